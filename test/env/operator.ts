// End-to-end fixture: the operator as users run it — a separate process (`node src/main.ts`) that
// watches one namespace of the shared control plane — plus a Harbor emulator of the file's own
// and a Ready HarborConnection named "harbor" pointing at it. Tests drive everything with kubectl
// and look at Harbor through an admin client, the way a user would check.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { USABLE_AS_ANNOTATION } from "../../src/api/common.ts";
import type { HarborClient } from "../../src/harbor/client.ts";
import { budget } from "./budget.ts";
import { sharedControlPlane, useNamespace } from "./cluster.ts";
import type { Emulator, EmulatorOptions } from "./emulator/index.ts";
import { useEmulator } from "./harbor.ts";
import { clusterApi, readyAsKubectlWaits } from "./kube-api.ts";
import type { Kubectl, KubeObject } from "./kubectl.ts";
import { endsSweepSince, type LogEntry, logEntries, reconcileLog } from "./operator-log.ts";
import { untilTrue } from "./until.ts";

export interface OperatorOptions {
  /** Drift interval of the operator (short so that tests see drift corrected quickly). */
  driftInterval?: string;
  /** Extra environment for the operator process, e.g. HCO_TEST_CRASH_POINT. */
  env?: Record<string, string>;
  extraArgs?: string[];
  namespacePrefix?: string;
  /**
   * The kubeconfig the operator runs with, made once the fixture's namespace exists (e.g. one with
   * a ServiceAccount token, to run it with the RBAC of deploy/). Default: the cluster admin's.
   */
  kubeconfig?: (namespace: string) => string | Promise<string>;
  /** Elect a leader on a Lease in the fixture's namespace, as a deployed operator does. Default: off. */
  leaderElection?: boolean;
  /** How the process is started. Default: `node src/main.ts` from the working tree. */
  launcher?: OperatorLauncher;
  /** Options of the file's emulator, e.g. `{ harborVersion: "2.12.4" }` (the operator refuses 2.10.3). */
  emulator?: EmulatorOptions;
}

export interface OperatorFixture {
  readonly namespace: string;
  /** kubectl as admin, defaulting to the fixture's namespace. */
  readonly kubectl: Kubectl;
  readonly emulator: Emulator;
  /** An admin client of the emulator, to check or change Harbor behind the operator's back. */
  readonly harbor: HarborClient;
  /** Name of the Ready HarborConnection in the namespace. */
  readonly connection: string;
  /** Everything the operator process printed so far (stdout and stderr). */
  output(): string;
  /** The process id of the running operator. */
  pid(): number | undefined;
  /** Starts the operator (again), optionally with other environment variables. */
  start(env?: Record<string, string>): Promise<void>;
  /** Stops it: SIGTERM (graceful), or SIGKILL when `kill` is set. Resolves once it exited. */
  stop(opts?: { kill?: boolean }): Promise<void>;
  /** Resolves when the process exits on its own (e.g. at a crash point). */
  exited(): Promise<number | null>;
  /**
   * Another operator process for the same namespace (e.g. to contend for leadership), with extra
   * flags; stopped with the fixture.
   */
  spawn(extraArgs?: string[], env?: Record<string, string>): OperatorProcess;
  /**
   * Waits until the object is Ready as `kubectl wait --for=condition=Ready` sees it, and returns it.
   * The timeout is the budget's operator wait unless given.
   */
  waitReady<T = KubeObject>(resource: string, name: string, timeoutMs?: number): Promise<T>;
  /**
   * Resolves once the operator has finished `n` more drift sweeps of `kind` (e.g. "HarborProject"),
   * counted from this call: what a test of "nothing happens in steady state" waits for, instead of
   * sleeping through intervals.
   */
  sweeps(kind: string, n?: number): Promise<void>;
  /** Follows the object (a watch) until the predicate holds; returns it. */
  waitFor<T = KubeObject>(
    resource: string,
    name: string,
    predicate: (o: T) => boolean,
    timeoutMs?: number,
  ): Promise<T>;
  /** Resolves once the object is gone (its finalizer released), within the budget's operator wait. */
  waitGone(resource: string, name: string): Promise<void>;
  /**
   * The reconciles of the object that the operator finished (its "reconciled" or "reconcile failed"
   * log line), oldest first, printed after `from` (an earlier `output().length`; default: all).
   * `resource` is the kind in lower case, e.g. "harborrobot".
   */
  reconciles(resource: string, name: string, from?: number): LogEntry[];
}

const root = join(import.meta.dirname, "..", "..");

export interface OperatorProcess {
  readonly pid: number | undefined;
  /** True until the process has exited. */
  readonly running: boolean;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM (graceful), or SIGKILL with `kill`; resolves once it exited. */
  stop(opts?: { kill?: boolean }): Promise<void>;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>;
}

/** The command that starts the operator: program, arguments, directory, environment and user. */
export interface OperatorCommand {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  uid?: number;
  gid?: number;
}

/** Turns the operator's flags and extra environment into the command that runs it. */
export type OperatorLauncher = (args: string[], env: Record<string, string>) => OperatorCommand;

/** `node src/main.ts <args>` from the working tree, with this process's environment. */
export const sourceLauncher: OperatorLauncher = (args, env) => ({
  file: process.execPath,
  args: [join(root, "src", "main.ts"), ...args],
  cwd: root,
  env: { ...process.env, ...env },
});

/** The operator as a child process (by default `node src/main.ts <args>`). */
export function spawnOperator(
  args: string[],
  env: Record<string, string> = {},
  onOutput?: (chunk: string) => void,
  launcher: OperatorLauncher = sourceLauncher,
): OperatorProcess {
  const command = launcher(args, env);
  const proc: ChildProcess = spawn(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    ...(command.uid === undefined ? {} : { uid: command.uid }),
    ...(command.gid === undefined ? {} : { gid: command.gid }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const collect = (c: string) => {
    out += c;
    onOutput?.(c);
  };
  proc.stdout?.setEncoding("utf8").on("data", collect);
  proc.stderr?.setEncoding("utf8").on("data", collect);
  // "close", not "exit": the output is whole only once its pipes have closed.
  const exited = new Promise<number | null>((resolve) => proc.once("close", (code) => resolve(code)));
  return {
    pid: proc.pid,
    get running() {
      return proc.exitCode === null && proc.signalCode === null;
    },
    output: () => out,
    exited,
    async stop(opts = {}) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill(opts.kill ? "SIGKILL" : "SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function useOperator(options: OperatorOptions = {}): OperatorFixture {
  const ns = useNamespace(options.namespacePrefix ?? "e2e");
  const h = useEmulator(options.emulator);
  let child: OperatorProcess | undefined;
  const extras: OperatorProcess[] = [];
  let out = "";
  let kubeconfig = "";

  const spawnArgs = (extra: string[]) => [
    `--kubeconfig=${kubeconfig}`,
    `--namespace=${ns.name}`,
    // The test's namespace stands for the operator's own: cluster connections' Secrets go there.
    `--cluster-resource-namespace=${ns.name}`,
    "--metrics-bind-address=0",
    "--health-probe-bind-address=0",
    `--drift-interval=${options.driftInterval ?? "3s"}`,
    "--log-level=debug",
    ...(options.extraArgs ?? []),
    ...extra,
  ];

  const start = async (env: Record<string, string> = {}) => {
    if (child?.running) throw new Error("operator already running");
    const election = options.leaderElection
      ? ["--leader-elect=true", `--leader-election-namespace=${ns.name}`]
      : ["--leader-elect=false"];
    child = spawnOperator(
      spawnArgs(election),
      { ...options.env, ...env },
      (c) => {
        out += c;
      },
      options.launcher,
    );
  };

  const stop = async (opts: { kill?: boolean } = {}) => {
    await child?.stop(opts);
  };
  const fixture: OperatorFixture = {
    get namespace() {
      return ns.name;
    },
    get kubectl() {
      return ns.kubectl;
    },
    get emulator() {
      return h.emulator;
    },
    get harbor() {
      return h.admin;
    },
    connection: "harbor",
    output: () => out,
    pid: () => child?.pid,
    start,
    stop,
    exited: () => child?.exited ?? Promise.resolve(null),
    spawn: (extra = [], env = {}) => {
      const proc = spawnOperator(spawnArgs(extra), { ...options.env, ...env }, undefined, options.launcher);
      extras.push(proc);
      return proc;
    },
    waitReady: <T>(resource: string, name: string, timeoutMs?: number) =>
      clusterApi(ns.kubectl.kubeconfigPath).waitFor<T>(
        resource,
        ns.name,
        name,
        (o) => readyAsKubectlWaits(o as Parameters<typeof readyAsKubectlWaits>[0]),
        timeoutMs,
      ),
    async sweeps(kind: string, n = 2) {
      const from = out.lastIndexOf("\n") + 1;
      const since = Date.now();
      const done = () => logEntries(out.slice(from)).filter((e) => endsSweepSince(e, kind, since)).length;
      await untilTrue(`${n} drift sweeps of ${kind}`, () => done() >= n);
    },
    waitFor: <T>(resource: string, name: string, predicate: (o: T) => boolean, timeoutMs?: number) =>
      clusterApi(ns.kubectl.kubeconfigPath).waitFor<T>(resource, ns.name, name, predicate, timeoutMs),
    waitGone: (resource: string, name: string) =>
      clusterApi(ns.kubectl.kubeconfigPath).waitGone(resource, ns.name, name),
    reconciles: (resource: string, name: string, from = 0) =>
      reconcileLog(fixture, resource, name, from).filter(
        (l) => l.msg === "reconciled" || l.msg.startsWith("reconcile failed"),
      ),
  };

  beforeAll(async () => {
    // The operator runs as the cluster admin unless a test gives it other credentials.
    kubeconfig = options.kubeconfig ? await options.kubeconfig(ns.name) : sharedControlPlane().kubeconfigPath;
    await ns.kubectl.apply([
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          name: "harbor-credentials",
          annotations: { [USABLE_AS_ANNOTATION]: "harbor-connection" },
        },
        stringData: { username: h.emulator.adminUsername, password: h.emulator.adminPassword },
      },
      {
        apiVersion: "harborconfig.io/v1alpha1",
        kind: "HarborConnection",
        metadata: { name: "harbor" },
        spec: { url: h.emulator.url, credentialsSecretRef: { name: "harbor-credentials" } },
      },
    ]);
    await start();
    // An operator that cannot start fails the file at once, not after the wait's timeout.
    const exitedEarly = fixture.exited().then((code) => {
      throw new Error(`the operator exited with code ${code}`);
    });
    await Promise.race([fixture.waitReady("harborconnection", "harbor", budget.startMs), exitedEarly]).catch(
      (e: unknown) => {
        throw new Error(
          `the operator did not get its connection Ready: ${(e as Error).message}\n--- operator output ---\n${out.slice(-4000)}`,
        );
      },
    );
  }, budget.startMs + budget.requestMs);

  // A failed test keeps what the operator printed until then, to see what it was doing.
  afterEach(({ task }) => {
    if (task.result?.state !== "fail") return;
    const file = join(tmpdir(), `hco-operator-${ns.name}.log`);
    writeFileSync(file, out);
    console.error(`the operator's output so far: ${file}`);
  });

  afterAll(async () => {
    await stop();
    await Promise.all(extras.map((p) => p.stop()));
  });

  return fixture;
}
