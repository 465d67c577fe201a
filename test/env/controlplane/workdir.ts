// A control plane's (or another set of test services') temporary folder and the processes that
// run in it.
//
// The folder holds the components' data, certificates and logs, and a state file naming the owner
// process and every pid started for it. A run that dies before it can stop its components (SIGKILL,
// a crash) leaves that file behind, and the next run uses it to stop them and remove the folder.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isAlive, killLeftover, type ManagedProcess, onExit, startProcess } from "./processes.ts";

const controlPlanePrefix = "hco-controlplane-";

interface State {
  owner: number;
  pids: number[];
}

export interface Workdir {
  readonly path: string;
  /**
   * Starts a component, logging to `<name>.log`; a later start of the same name replaces it.
   * `env` replaces this process's environment for it.
   */
  start(name: string, command: string, args: string[], env?: NodeJS.ProcessEnv): ManagedProcess;
  get(name: string): ManagedProcess | undefined;
  running(): ManagedProcess[];
  /** The end of a component's log, for error messages. */
  logTail(name: string, lines?: number): string;
  /** Stops the components, last started first, and removes the folder. Safe to call twice. */
  close(): Promise<void>;
}

/** @param prefix names the folder under the system's temporary folder (`<prefix>XXXXXX`). */
export function createWorkdir(prefix = controlPlanePrefix): Workdir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  const state: State = { owner: process.pid, pids: [] };
  const save = () => writeFileSync(join(path, "state.json"), JSON.stringify(state));
  save();
  const processes = new Map<string, ManagedProcess>();
  // An interrupted run removes its folder too (the components are killed first): etcd alone
  // preallocates over 100 MB.
  const forget = onExit(() => rmSync(path, { recursive: true, force: true }));
  let closed = false;
  return {
    path,
    start(name, command, args, env) {
      const logFile = join(path, `${name}.log`);
      const proc = startProcess({ name, command, args, logFile, ...(env ? { env } : {}) });
      processes.delete(name);
      processes.set(name, proc);
      state.pids.push(proc.pid);
      save();
      return proc;
    },
    get: (name) => processes.get(name),
    running: () => [...processes.values()].filter((p) => p.exit === undefined),
    logTail(name, lines = 30) {
      const log = join(path, `${name}.log`);
      return existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-lines).join("\n") : "(no log)";
    },
    async close() {
      if (closed) return;
      closed = true;
      // Clients before the servers they talk to.
      for (const proc of [...processes.values()].reverse()) await proc.stop();
      rmSync(path, { recursive: true, force: true });
      forget();
    },
  };
}

/** Stops the processes of control planes (or of `prefix`'s folders) whose owner has died. */
export function removeLeftovers(log: (line: string) => void, prefix = controlPlanePrefix): void {
  for (const entry of readdirSync(tmpdir())) {
    if (!entry.startsWith(prefix)) continue;
    const dir = join(tmpdir(), entry);
    let state: State;
    try {
      state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as State;
    } catch {
      continue;
    }
    if (isAlive(state.owner)) continue;
    // Every component's command line names its folder: that is how a recycled pid is told apart.
    const killed = state.pids.filter((pid) => killLeftover(pid, dir));
    if (killed.length > 0) log(`stopped ${killed.length} leftover processes in ${dir}`);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Polls `ready` until it holds; fails early, with the component's log, if the process exits, and
 * after `timeoutMs` with the same log.
 */
export async function waitReady(
  dir: Workdir,
  proc: ManagedProcess,
  timeoutMs: number,
  ready: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exit !== undefined) {
      const how = proc.exit.signal ? `signal ${proc.exit.signal}` : `code ${proc.exit.code}`;
      throw new Error(`${proc.name} exited (${how}) while starting:\n${dir.logTail(proc.name)}`);
    }
    if (await ready()) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${proc.name} not ready after ${Math.round(timeoutMs / 1000)} s:\n${dir.logTail(proc.name)}`,
      );
    }
    await sleep(200);
  }
}
