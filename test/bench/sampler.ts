// CPU seconds and memory of the processes under test, read from /proc once a second. A name may
// change process (the operator is restarted): the CPU of the earlier process is kept, read just
// before it was stopped. The benchmark's own process is measured too, so its overhead is known.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

export interface ProcReading {
  cpuSeconds: number;
  rssBytes: number;
  /** Peak resident set of the process so far (VmHWM). */
  hwmBytes: number;
}

const clockTicks = (() => {
  const r = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

/** utime + stime and VmRSS / VmHWM of a process; undefined once it is gone. */
export function readProc(pid: number): ProcReading | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / clockTicks;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) * 1024;
    return { cpuSeconds, rssBytes: kib("VmRSS"), hwmBytes: kib("VmHWM") };
  } catch {
    return undefined;
  }
}

interface Tracked {
  pid: number | undefined;
  /** CPU of earlier processes under this name. */
  base: number;
  last: ProcReading | undefined;
  peakRss: number;
  peakHwm: number;
}

export const SELF = "driver";

export class Sampler {
  readonly #tracked = new Map<string, Tracked>();
  #timer: NodeJS.Timeout | undefined;

  /** Starts (or moves) tracking of `name` to this process. */
  track(name: string, pid: number | undefined): void {
    const t = this.#tracked.get(name);
    if (t) {
      this.#read(name, t);
      t.base += t.last?.cpuSeconds ?? 0;
      t.last = undefined;
      t.pid = pid;
    } else {
      this.#tracked.set(name, { pid, base: 0, last: undefined, peakRss: 0, peakHwm: 0 });
    }
    this.sample();
  }

  start(periodMs = 1000): void {
    this.#timer ??= setInterval(() => this.sample(), periodMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  sample(): void {
    for (const [name, t] of this.#tracked) this.#read(name, t);
  }

  /** CPU seconds so far, by name (the driver's from Node's own accounting). */
  cpu(): Record<string, number> {
    this.sample();
    const out: Record<string, number> = {};
    for (const [name, t] of this.#tracked) out[name] = t.base + (t.last?.cpuSeconds ?? 0);
    const self = process.cpuUsage();
    out[SELF] = (self.user + self.system) / 1e6;
    return out;
  }

  /** The peak resident set of the process(es) under this name so far, in bytes. */
  peakRss(name: string): number {
    const t = this.#tracked.get(name);
    return t ? Math.max(t.peakRss, t.peakHwm) : 0;
  }

  #read(_name: string, t: Tracked): void {
    if (t.pid === undefined) return;
    const r = readProc(t.pid);
    if (!r) return;
    t.last = r;
    t.peakRss = Math.max(t.peakRss, r.rssBytes);
    t.peakHwm = Math.max(t.peakHwm, r.hwmBytes);
  }
}

/** b − a for every name, in seconds. */
export function cpuDelta(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, v] of Object.entries(b)) out[name] = Math.round((v - (a[name] ?? 0)) * 100) / 100;
  return out;
}
