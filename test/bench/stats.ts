// Small numeric helpers: percentiles, rounding, counting into records.
import type { Latency } from "./types.ts";

/** Nearest-rank percentiles of seconds; zeros for an empty list. */
export function latency(seconds: readonly number[]): Latency {
  if (seconds.length === 0) return { p50: 0, p95: 0, p99: 0, max: 0 };
  const sorted = [...seconds].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  return { p50: round(at(50)), p95: round(at(95)), p99: round(at(99)), max: round(sorted.at(-1) ?? 0) };
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function ratio(n: number, d: number, digits = 2): number {
  return d === 0 ? 0 : round(n / d, digits);
}

export function bump(record: Record<string, number>, key: string, by = 1): void {
  record[key] = (record[key] ?? 0) + by;
}

/** The record with its entries sorted by value, largest first. */
export function sortedByCount(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
}

export function sum(values: Iterable<number>): number {
  let n = 0;
  for (const v of values) n += v;
  return n;
}

/** "90s", "5m", "500ms", "1m30s" → milliseconds. */
export function parseDuration(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) {
    throw new Error(`not a duration: ${JSON.stringify(text)} (e.g. 500ms, 5s, 5m)`);
  }
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return Math.round(sum(parts.map((p) => Number(p[1]) * (unit[p[2] ?? ""] ?? 0))));
}

export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** The latest of the times, or `start` when there are none. */
export function latest(start: number, times: Iterable<number>): number {
  let max = start;
  for (const t of times) if (t > max) max = t;
  return max;
}

/** Seconds from `from` to `to` (milliseconds) for every key that has both. */
export function latencies(
  keys: readonly string[],
  from: Map<string, number>,
  to: Map<string, number>,
): number[] {
  const out: number[] = [];
  for (const k of keys) {
    const a = from.get(k);
    const b = to.get(k);
    if (a !== undefined && b !== undefined) out.push(Math.max(0, b - a) / 1000);
  }
  return out;
}
