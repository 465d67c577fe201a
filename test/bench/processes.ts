// The processes under test, each on its own: the Harbor emulator (so its CPU is not the driver's)
// and the operator, run as the image runs it (its JavaScript from src/build.ts, `node src/main.js`),
// its log going to a file rather than through the benchmark.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, openSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type RemoteControl, remoteControl } from "../env/emulator/index.ts";
import { KIND_NAMES } from "./types.ts";

const root = join(import.meta.dirname, "..", "..");

export interface Child {
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Resolves with the exit code (null: killed by a signal) when the process ends. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after a grace period; resolves once it exited. */
  stop(): Promise<void>;
}

/** Every process started here that is still running, for killChildren(). */
const live = new Set<ChildProcess>();

/**
 * SIGKILLs every process started here that still runs: for an interrupted or crashed benchmark,
 * which must not leave an operator or an emulator behind. Synchronous, so it can run on 'exit'.
 */
export function killChildren(): void {
  for (const proc of live) proc.kill("SIGKILL");
  live.clear();
}
process.once("exit", killChildren);

function child(proc: ChildProcess, graceMs = 20_000): Child {
  live.add(proc);
  proc.once("exit", () => live.delete(proc));
  const exited = new Promise<number | null>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve(proc.exitCode);
    else proc.once("exit", (code) => resolve(code));
  });
  return {
    pid: proc.pid,
    exited,
    get running() {
      return proc.exitCode === null && proc.signalCode === null;
    },
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface EmulatorProcess extends Child {
  url: string;
  username: string;
  password: string;
  control: RemoteControl;
}

/** `node test/env/emulator/main.ts` on a free loopback port; resolves once it serves. */
export async function startEmulatorProcess(latencyMs: number, logPath: string): Promise<EmulatorProcess> {
  const log = openSync(logPath, "a");
  const proc = spawn(
    process.execPath,
    [join(root, "test", "env", "emulator", "main.ts"), "--port=0", `--latency-ms=${latencyMs}`],
    { cwd: root, stdio: ["ignore", "pipe", log] },
  );
  closeSync(log);
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`the emulator did not start: ${out}`)), 30_000);
    proc.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const first = out.split("\n").find((l) => l.startsWith("Harbor emulator ready:"));
      if (first) {
        clearTimeout(timer);
        resolve(first);
      }
    });
    proc.once("exit", (code) => reject(new Error(`the emulator exited (code ${code}): ${out}`)));
  });
  // Nothing else is read from its standard output; keep it flowing.
  proc.stdout?.resume();
  const field = (name: string) => new RegExp(`${name}=(\\S+)`).exec(line)?.[1] ?? "";
  const url = field("url");
  return {
    ...child(proc, 5000),
    get running() {
      return proc.exitCode === null && proc.signalCode === null;
    },
    url,
    username: field("username"),
    password: field("password"),
    control: remoteControl(url),
  };
}

export interface FloorProcess extends Child {
  /** Resolves once the reference controller has listed every kind. */
  readonly ready: Promise<void>;
  /** Stops it; resolves with how many status writes it made. */
  finish(): Promise<number>;
}

/** The floor's reference controller (test/bench/floor.ts) as a process of its own. */
export function startFloorProcess(o: {
  kubeconfig: string;
  namespace: string;
  workers: number;
  logPath: string;
}): FloorProcess {
  const log = openSync(o.logPath, "a");
  const proc = spawn(
    process.execPath,
    [
      join(root, "test", "bench", "floor.ts"),
      `--kubeconfig=${o.kubeconfig}`,
      `--namespace=${o.namespace}`,
      `--workers=${o.workers}`,
    ],
    { cwd: root, stdio: ["ignore", "pipe", log] },
  );
  closeSync(log);
  let out = "";
  proc.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  const base = child(proc, 5000);
  const ready = (async () => {
    const deadline = Date.now() + 60_000;
    while (!out.includes("floor ready\n")) {
      if (!base.running) throw new Error(`the floor controller exited; see ${o.logPath}`);
      if (Date.now() > deadline) throw new Error(`the floor controller did not start; see ${o.logPath}`);
      await sleep(100);
    }
  })();
  return {
    ...base,
    get running() {
      return proc.exitCode === null && proc.signalCode === null;
    },
    ready,
    async finish() {
      await base.stop();
      return Number(/floor writes (\d+)/.exec(out)?.[1] ?? Number.NaN);
    },
  };
}

/**
 * The operator as the image holds it, built into `dir` by the Dockerfile's command: its JavaScript
 * next to the project's package.json and node_modules. Returns the main module to run.
 */
export function buildOperator(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", join(root, "src", "build.ts"), dir],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  symlinkSync(join(root, "package.json"), join(dir, "package.json"));
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return join(dir, "src", "main.js");
}

export interface OperatorOptions {
  /** The main module (buildOperator's). */
  entry: string;
  kubeconfig: string;
  namespace: string;
  workers: number;
  driftIntervalMs: number;
  /** --status-refresh-interval; the operator's default when absent. */
  statusRefreshIntervalMs?: number;
  metricsPort: number;
  probePort: number;
  logPath: string;
  /** Write a V8 CPU profile into this folder when the process exits. */
  cpuProfileDir?: string;
  /** Extra flags for node itself, e.g. --max-semi-space-size=8. */
  nodeOptions?: readonly string[];
}

export interface OperatorProcess extends Child {
  readonly startedAt: number;
  readonly exitCode: number | null;
  /** The operator's Prometheus metrics, parsed. */
  metrics(): Promise<MetricSample[]>;
  /** Resolves when /readyz answers 200 (caches synced); rejects if the process exits first. */
  waitReady(timeoutMs: number): Promise<void>;
}

export function startOperatorProcess(o: OperatorOptions): OperatorProcess {
  const log = openSync(o.logPath, "a");
  const args = [
    ...(o.nodeOptions ?? []),
    ...(o.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${o.cpuProfileDir}`] : []),
    o.entry,
    `--kubeconfig=${o.kubeconfig}`,
    `--namespace=${o.namespace}`,
    "--leader-elect=false",
    `--workers=${o.workers}`,
    `--drift-interval=${o.driftIntervalMs}ms`,
    ...(o.statusRefreshIntervalMs ? [`--status-refresh-interval=${o.statusRefreshIntervalMs}ms`] : []),
    `--metrics-bind-address=127.0.0.1:${o.metricsPort}`,
    `--health-probe-bind-address=127.0.0.1:${o.probePort}`,
    "--log-level=info",
  ];
  const startedAt = performance.now();
  const proc = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", log, log] });
  closeSync(log);
  const base = child(proc);
  return {
    ...base,
    get running() {
      return proc.exitCode === null && proc.signalCode === null;
    },
    get exitCode() {
      return proc.exitCode;
    },
    startedAt,
    async metrics() {
      const res = await fetch(`http://127.0.0.1:${o.metricsPort}/metrics`);
      return parseMetrics(await res.text());
    },
    async waitReady(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (proc.exitCode !== null || proc.signalCode !== null) {
          throw new Error(`the operator exited (code ${proc.exitCode}); see ${o.logPath}`);
        }
        const ok = await fetch(`http://127.0.0.1:${o.probePort}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) return;
        if (Date.now() > deadline) throw new Error(`the operator was not ready in time; see ${o.logPath}`);
        await sleep(200);
      }
    },
  };
}

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text format, enough of it for counters and gauges. */
export function parseMetrics(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] ?? ""] = l[2] ?? "";
    out.push({ name: m[1] ?? "", labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of a metric over the samples whose labels match. */
export function metricSum(
  samples: readonly MetricSample[],
  name: string,
  match: (labels: Record<string, string>) => boolean = () => true,
): number {
  return samples.filter((s) => s.name === name && match(s.labels)).reduce((n, s) => n + s.value, 0);
}

/**
 * The operator's status-refresh interval over its drift interval by default (1 h / 5 min). A
 * shortened drift interval keeps the ratio, so that a steady state of a few minutes sees every
 * periodic read.
 */
export const STATUS_REFRESH_RATIO = 12;

/**
 * The steady state's default drift interval: 10 s per 1,000 projects, at least 5 s. The per-project
 * kinds' drift pass grows with the projects (its target is 5 s at 1,000), and an interval shorter
 * than the pass keeps Harbor's connection busy with back-to-back sweeps: the operator would never be
 * steady, and the status refreshes queued behind the sweeps would never let it be quiet.
 */
export function steadyDriftIntervalFor(projects: number): number {
  return Math.max(5_000, Math.round(projects * 10));
}

const MANAGED_CONTROLLERS = new Set(KIND_NAMES.map((k) => k.toLowerCase()));
const MiB = 1024 * 1024;
/** No reconcile for this long (nothing queued or running either) counts as done. */
const QUIET_MS = 2000;

/**
 * Waits until a (re)started operator has reconciled every object at least once, has nothing
 * queued or running, has not reconciled anything for a moment, and has run for at least `minMs`
 * (from its own metrics). Returns how many reconciles it made and when the last one was.
 */
export async function resynced(operator: OperatorProcess, objects: number, minMs: number, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  const ours = (l: Record<string, string>) => MANAGED_CONTROLLERS.has(l.controller ?? "");
  let reconciles = 0;
  let lastReconcileAt = performance.now();
  for (;;) {
    const m = await operator.metrics();
    const now = performance.now();
    const total = metricSum(m, "controller_runtime_reconcile_total", ours);
    const busy =
      metricSum(m, "workqueue_depth", ours) + metricSum(m, "controller_runtime_active_workers", ours);
    if (total !== reconciles || busy > 0) lastReconcileAt = now;
    reconciles = total;
    const quiet = reconciles >= objects && now - lastReconcileAt >= QUIET_MS;
    if ((quiet && now - operator.startedAt >= minMs) || now > deadline)
      return { reconciles, lastReconcileAt };
    await sleep(250);
  }
}

/** The operator's V8 heap from its own metrics, in MiB (zeros when it is not running). */
export async function heapOf(operator: OperatorProcess | undefined) {
  const m = operator?.running ? await operator.metrics().catch(() => []) : [];
  const mib = (name: string) => Math.round((metricSum(m, name) / MiB) * 10) / 10;
  return {
    used: mib("nodejs_heap_size_used_bytes"),
    total: mib("nodejs_heap_size_total_bytes"),
    external: mib("nodejs_external_memory_bytes"),
  };
}
