// The project's performance targets, checked against a result. They are reported, never asserted:
// a machine busy with other work would make a timed assertion fail for no fault of the code.
import { ratio, round } from "./stats.ts";
import { type BenchResult, KIND_NAMES, type ScalingResult, type TargetCheck } from "./types.ts";

const FULL_MIX_PROJECTS = 1000;
const RSS_TARGET_OBJECTS = 5000;
/** How far above "the limit" (the same creates with no operator running) the targets allow. */
const LIMIT_FACTOR = 1.5;

export function checkTargets(r: BenchResult): TargetCheck[] {
  const out: TargetCheck[] = [];
  const c = r.convergence;
  const fullMix = r.config.projects === FULL_MIX_PROJECTS && r.config.latencyMs === 10;
  const limit = c.baselineCreateSeconds;
  const readyFactor = ratio(c.readySeconds, limit);
  out.push({
    name: "All Ready against the limit",
    target: `≤ ${LIMIT_FACTOR} × the no-operator create time`,
    measured: `${c.readySeconds} s for ${r.workload.total} objects (${c.ready} Ready) = ${readyFactor} × ${limit} s`,
    met: c.ready === r.workload.total && c.readySeconds <= LIMIT_FACTOR * limit,
  });
  const slowdown = ratio(c.createSeconds, limit);
  out.push({
    name: "User's creates slowed",
    target: `≤ ${LIMIT_FACTOR} × the no-operator create time`,
    measured: `${c.createSeconds} s with the operator against ${limit} s without = ${slowdown} ×`,
    met: c.createSeconds <= LIMIT_FACTOR * limit,
  });
  out.push({
    name: "Harbor requests to converge",
    target: "≤ 1.5 per object",
    measured: `${c.harbor.perObject} per object`,
    met: c.harbor.perObject <= 1.5,
  });
  out.push({
    name: "Harbor requests after a restart",
    target: "≤ 1.0 per object",
    measured: `${r.restart.harbor.perObject} per object`,
    met: r.restart.harbor.perObject <= 1,
  });
  const robots = r.workload.perKind.HarborRobot;
  const secretWrites = c.kube.writesByClass.secret ?? 0;
  const beyondSecret = c.kube.writes - Math.min(secretWrites, robots);
  const perObject = ratio(beyondSecret, r.workload.total);
  out.push({
    name: "Kubernetes writes to converge",
    target: "≤ 2.5 per object including Events, plus each robot's Secret",
    measured: `${perObject} per object besides ${Math.min(secretWrites, robots)} robot Secret writes (${c.kube.writesPerObject} with them)`,
    met: perObject <= 2.5,
  });
  out.push({
    name: "Steady-state Harbor writes",
    target: "0",
    measured: String(r.steady.harborWrites),
    met: r.steady.harborWrites === 0,
  });
  for (const [kind, k] of Object.entries(r.steady.byKind)) {
    if (k.objects === 0) continue;
    const global = k.listing === "global";
    const value = global ? k.perObjectPerInterval : k.perProjectPerInterval;
    // One list call per interval is the least a globally listed kind can cost: 0.05 per object
    // is reachable only from 20 objects on.
    const few = global && k.objects < 20;
    out.push({
      name: `Steady-state reads, ${kind}`,
      target: global ? "≤ 0.05 per object per drift interval" : "≤ 1 per project per drift interval",
      measured: `${value} per ${global ? "object" : "project"} per interval (${k.sweeps} sweeps)${few ? "; not judged below 20 objects" : ""}`,
      met: few ? undefined : value <= (global ? 0.05 : 1),
    });
  }
  const sweeps = Object.entries(r.steady.byKind).filter(([, k]) => k.objects > 0);
  const longest = sweeps.reduce((m, [, k]) => Math.max(m, k.longestSweepSeconds), 0);
  const longestKind = sweeps.find(([, k]) => k.longestSweepSeconds === longest)?.[0] ?? "";
  out.push({
    name: "Drift pass",
    target: "≤ 5 s at 1,000 projects and 10 ms latency",
    measured: `longest sweep ${longest} s (${longestKind}) at ${r.config.projects} projects, ${r.config.latencyMs} ms latency`,
    met: fullMix ? longest <= 5 : undefined,
  });
  out.push({
    name: "Fixed memory cost",
    target: "reported",
    measured: `${r.operator.fixedRssMiB} MiB RSS started with nothing to do`,
    met: undefined,
  });
  out.push({
    name: "Peak RSS, full mix",
    target: "≤ 100 MiB at the full mix",
    measured: `${r.operator.peakRssMiB} MiB at ${r.workload.total} objects`,
    met: r.config.projects === FULL_MIX_PROJECTS ? r.operator.peakRssMiB <= 100 : undefined,
  });
  out.push({
    name: "Peak RSS, 5,000 objects",
    target: "≤ 128 MiB at 5,000 objects",
    measured: `${r.operator.peakRssMiB} MiB at ${r.workload.total} objects`,
    met: r.workload.total >= RSS_TARGET_OBJECTS ? r.operator.peakRssMiB <= 128 : undefined,
  });
  return out;
}

export interface Growth {
  measure: string;
  /** Per-object value at each size, smallest first. */
  perObject: number[];
  /**
   * How the total grows with the number of objects between the smallest and the largest run:
   * log(total ratio) / log(size ratio). 1 is linear; above 1.15 is reported as faster than linear.
   */
  exponent: number;
}

/** Harbor reads of every kind in one drift interval of the steady state. */
export function steadyReadsPerInterval(r: BenchResult): number {
  return Object.values(r.steady.byKind).reduce((n, k) => n + k.perObjectPerInterval * k.objects, 0);
}

/** How each cost grows across a scaling series. */
export function growth(s: ScalingResult): Growth[] {
  const runs = [...s.runs].sort((a, b) => a.workload.total - b.workload.total);
  const first = runs[0];
  const last = runs.at(-1);
  if (!first || !last || last.workload.total <= first.workload.total) return [];
  type Measure = [string, (r: BenchResult) => number, ((r: BenchResult) => number)?];
  const total = (r: BenchResult) => r.workload.total;
  const measures: Measure[] = [
    ["Time until all Ready", (r) => r.convergence.readySeconds],
    ["Harbor requests to converge", (r) => r.convergence.harbor.total],
    ["Kubernetes writes to converge", (r) => r.convergence.kube.writes],
    ["Steady-state Harbor reads per drift interval", steadyReadsPerInterval],
    ["Delete wave time", (r) => r.delete.seconds],
    ["Operator CPU seconds", (r) => r.operator.cpuSeconds],
    ["Operator peak RSS", (r) => r.operator.peakRssMiB],
    // Per kind, against that kind's own count, so that a kind whose cost outgrows it shows.
    ...KIND_NAMES.flatMap((kind): Measure[] => {
      const objects = (r: BenchResult) => r.workload.perKind[kind];
      return [
        [`Harbor requests to converge, ${kind}`, (r) => r.convergence.harbor.byKind[kind] ?? 0, objects],
        [
          `Kubernetes writes to converge, ${kind}`,
          (r) => r.convergence.kube.writesByKind[kind] ?? 0,
          objects,
        ],
      ];
    }),
  ];
  return measures.map(([measure, value, objects = total]) => {
    const a = value(first);
    const b = value(last);
    const sizeRatio = Math.log(objects(last) / objects(first));
    return {
      measure,
      perObject: runs.map((r) => ratio(value(r), objects(r), 4)),
      exponent: a > 0 && b > 0 && sizeRatio > 0 ? round(Math.log(b / a) / sizeRatio) : 0,
    };
  });
}
