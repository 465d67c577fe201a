// What a result was measured on: the machine and the code.
import { spawnSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { round } from "./stats.ts";
import type { Machine } from "./types.ts";

export function machine(): Machine {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    os: `${process.platform} ${process.arch}`,
    loadAverage: round(loadavg()[0] ?? 0),
  };
}

/** The code measured: the commit, "-dirty" when the working tree differs from it. */
export function revision(): string {
  const r = spawnSync("git", ["describe", "--always", "--dirty"], {
    cwd: import.meta.dirname,
    encoding: "utf8",
  });
  return r.status === 0 ? r.stdout.trim() : "unknown";
}
