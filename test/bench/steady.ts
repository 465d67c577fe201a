// The steady state: Harbor's counters sampled four times a second, so that each drift sweep (a
// burst of one kind's list calls) shows, and the reads of each kind per drift interval.
import { setTimeout as sleep } from "node:timers/promises";
import type { CounterRow, RemoteControl } from "../env/emulator/index.ts";
import { bursts, SWEEP_LIST, snapshot } from "./harbor.ts";
import { round } from "./stats.ts";
import { KIND_NAMES, type KindName, type SteadyKind } from "./types.ts";

export type SweepSeries = Map<KindName, { at: number; total: number }[]>;

/**
 * Samples the sweep list calls for at least `minMs`, and on until every kind with objects was
 * seen sweeping from start to end (a sweep of many projects may outlast the interval), or until
 * `maxMs`.
 */
export async function sampleSweeps(
  control: RemoteControl,
  kinds: readonly KindName[],
  minMs: number,
  maxMs: number,
): Promise<SweepSeries> {
  const series: SweepSeries = new Map(KIND_NAMES.map((k) => [k, []]));
  const start = performance.now();
  const sweptWhole = () => kinds.every((k) => bursts(series.get(k) ?? []).whole > 0);
  for (;;) {
    const snap = await snapshot(control);
    const at = performance.now();
    for (const kind of KIND_NAMES) {
      let total = 0;
      for (const r of snap.values()) if (r.op === SWEEP_LIST[kind]) total += r.count;
      series.get(kind)?.push({ at, total });
    }
    const elapsed = at - start;
    if (elapsed >= minMs && (sweptWhole() || elapsed >= maxMs)) return series;
    await sleep(250);
  }
}

/**
 * One kind's reads per drift interval: its sweep's list calls per sweep, plus its other reads
 * (reconciles on a timer) per configured interval. See SteadyKind.
 */
export function steadyKind(
  kind: KindName,
  rows: readonly CounterRow[],
  requests: number,
  objects: number,
  projects: number,
  series: SweepSeries,
  intervals: number,
): SteadyKind {
  const sweepRequests = rows.filter((r) => r.op === SWEEP_LIST[kind]).reduce((n, r) => n + r.count, 0);
  const b = bursts(series.get(kind) ?? []);
  const perInterval = (of: number) =>
    of === 0
      ? 0
      : round(
          sweepRequests / ((b.count || intervals) * of) + (requests - sweepRequests) / (intervals * of),
          3,
        );
  return {
    objects,
    projects,
    requests,
    sweepRequests,
    listing: projects > 0 ? "per-project" : "global",
    sweeps: b.count,
    longestSweepSeconds: b.longestSeconds,
    perObjectPerInterval: perInterval(objects),
    perProjectPerInterval: perInterval(projects),
  };
}
