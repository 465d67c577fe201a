// Child processes of the test environment (etcd, kube-apiserver, kube-controller-manager).
//
// Each child runs in its own process group so that stopping it also stops anything it forked, and
// so that a terminal's Ctrl-C reaches only this process: we decide the order of shutdown. Every
// child started here is remembered until it exits, and is killed when this process exits or is
// interrupted, whether or not the code that started it got to call stop().
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  /** How the process ended; undefined while it runs. */
  readonly exit: ProcessExit | undefined;
  /** Resolves when the process has exited, however that happened. */
  readonly exited: Promise<void>;
  /** SIGTERM to the process group, SIGKILL after the grace period; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  /** stdout and stderr are appended here: the first place to look when a component misbehaves. */
  logFile: string;
  env?: NodeJS.ProcessEnv;
}

const running = new Set<ChildProcess>();

export function startProcess(opts: StartOptions): ManagedProcess {
  installExitHooks();
  const log = openSync(opts.logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(opts.command, opts.args, {
      detached: true,
      stdio: ["ignore", log, log],
      env: opts.env ?? process.env,
    });
  } finally {
    closeSync(log);
  }
  const { pid } = child;
  if (pid === undefined) throw new Error(`could not start ${opts.name} (${opts.command})`);
  running.add(child);
  let exit: ProcessExit | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      running.delete(child);
      resolve();
    });
  });
  return {
    name: opts.name,
    pid,
    get exit() {
      return exit;
    },
    exited,
    async stop(graceMs = 10_000) {
      if (exit !== undefined) return;
      signalGroup(pid, "SIGTERM");
      // The grace timer is cancelled once the process is gone, so that it keeps nobody waiting.
      const grace = new AbortController();
      const timedOut = sleep(graceMs, true, { signal: grace.signal }).catch(() => false);
      const killed = await Promise.race([exited.then(() => false), timedOut]);
      grace.abort();
      if (killed) {
        signalGroup(pid, "SIGKILL");
        await exited;
      }
    },
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Kills a process group left behind by a run that could not clean up (killed with SIGKILL, machine
 * suspended mid-run). The group is killed only if its leader still runs a command line that
 * mentions `marker`, so that a recycled pid never takes an unrelated process with it. Command
 * lines are read from Linux's /proc; elsewhere nothing is killed.
 */
export function killLeftover(pid: number, marker: string): boolean {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return false;
  }
  if (!cmdline.includes(marker)) return false;
  signalGroup(pid, "SIGKILL");
  return true;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Registers a synchronous cleanup (e.g. removing a data folder) for when this process exits or is
 * interrupted; it runs after the children are killed. Returns a function that unregisters it.
 */
export function onExit(cleanup: () => void): () => void {
  installExitHooks();
  exitCleanups.add(cleanup);
  return () => exitCleanups.delete(cleanup);
}

const exitCleanups = new Set<() => void>();
let hooksInstalled = false;

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // 'exit' handlers must be synchronous: SIGKILL is the only stop that needs no waiting.
  const killAll = () => {
    for (const child of running) if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    running.clear();
    for (const cleanup of exitCleanups) cleanup();
    exitCleanups.clear();
  };
  process.once("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      killAll();
      // When nobody else handles the signal (a plain script), keep its default meaning: exit.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}
