// Markdown for a result and for a scaling series: what docs/performance.md shows.

import { STATUS_REFRESH_RATIO } from "./processes.ts";
import { formatDuration, ratio } from "./stats.ts";
import { growth, LINEAR_EXPONENT } from "./targets.ts";
import type { BenchResult, HarborCost, KubeCost, Machine, ScalingResult } from "./types.ts";
import { KIND_NAMES } from "./types.ts";

const n = (v: number) => v.toLocaleString("en-US");
const mark = (met: boolean | undefined) => (met === undefined ? "–" : met ? "✅ met" : "❌ missed");
const short = (kind: string) => kind.replace(/^Harbor/, "");

export function machineLine(m: Machine): string {
  return `${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.os} (load ${m.loadAverage} at start)`;
}

/** How a run was made; `steady` names the steady state's drift interval (a series: each run's). */
function configLine(r: BenchResult, steady = formatDuration(r.config.steadyDriftIntervalMs)): string {
  const c = r.config;
  return [
    `Harbor emulator latency ${c.latencyMs} ms per request.`,
    `Operator: \`--workers ${c.workers}\`, drift interval ${formatDuration(c.convergeDriftIntervalMs)}`,
    `(steady state: ${steady}, status refresh ${STATUS_REFRESH_RATIO} × that, for at least ${c.steadyIntervals} intervals);`,
    `HarborConnection \`rateLimit: {requestsPerSecond: ${c.connection.requestsPerSecond}, burst: ${c.connection.burst}}\`,`,
    `\`maxConcurrency: ${c.connection.maxConcurrency}\`.`,
    `Objects created through the Kubernetes API, ${c.createConcurrency} at a time.`,
    // Results saved before the setting existed had no policy.
    c.finalizerAtAdmission
      ? "The finalizer set at admission (deploy/components/finalizer-at-admission), from the operator's start."
      : "No finalizer policy: the operator writes each finalizer itself.",
    ...(c.operatorNodeOptions.length ? [`Operator node flags: \`${c.operatorNodeOptions.join(" ")}\`.`] : []),
  ].join(" ");
}

function methods(h: HarborCost, objects: number): string {
  return Object.entries(h.byMethod)
    .map(([m, v]) => `${m} ${ratio(v, objects)}`)
    .join(", ");
}

function writeClasses(k: KubeCost, objects: number): string {
  return Object.entries(k.writesByClass)
    .map(([c, v]) => `${c} ${ratio(v, objects)}`)
    .join(", ");
}

function cost(h: HarborCost, k: KubeCost, objects: number): string {
  return `Harbor ${ratio(h.total, objects)} requests/object (${methods(h, objects)}); Kubernetes writes ${ratio(k.writes, objects)}/object`;
}

export function renderResult(r: BenchResult): string {
  const c = r.convergence;
  const f = r.floor;
  const w = r.workload;
  const target = (name: string) => r.targets.find((t) => t.name === name);
  const cell = (name: string) => {
    const t = target(name);
    return t ? `${t.target} ${mark(t.met)}` : "";
  };
  const steadyGlobal = KIND_NAMES.filter((k) => r.steady.byKind[k]?.listing === "global" && w.perKind[k] > 0);
  const steadyPerProject = KIND_NAMES.filter(
    (k) => r.steady.byKind[k]?.listing === "per-project" && w.perKind[k] > 0,
  );
  const steadyTargetsMet = r.targets.filter((t) => t.name.startsWith("Steady-state reads"));
  const cpu = (phase: { cpuSeconds: Record<string, number> }) =>
    Object.entries(phase.cpuSeconds)
      .filter(([, v]) => v >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .map(([p, v]) => `${p} ${v}`)
      .join(", ");
  const lines = [
    `### ${r.config.label}: ${n(w.total)} objects`,
    "",
    `Machine: ${machineLine(r.machine)}. Code: ${r.revision}. ${configLine(r)}`,
    "",
    "| Measure | Measured | Target |",
    "|---|---|---|",
    `| Workload | ${KIND_NAMES.map((k) => `${n(w.perKind[k])} ${short(k)}`).join(" · ")} | |`,
    `| No controller: created through the API in | ${c.baselineCreateSeconds} s | |`,
    `| The floor (reference controller, one status write per object): created in | ${f.createSeconds} s | |`,
    `| The floor: all Ready after (from the first create) | ${f.readySeconds} s (${n(f.ready)}/${n(w.total)} Ready, ${n(f.statusWrites)} status writes; p50 / p95 ${f.latencySeconds.p50} / ${f.latencySeconds.p95} s) | |`,
    `| The floor: deleted, all gone after | ${f.deleteSeconds} s | |`,
    `| Created through the API, operator running, in | ${c.createSeconds} s (${ratio(c.createSeconds, f.createSeconds)} × the floor's creates; ${ratio(c.createSeconds, c.baselineCreateSeconds)} × no controller's) | ${cell("User's creates slowed")} |`,
    `| All Ready after (from the first create) | ${c.readySeconds} s (${n(c.ready)}/${n(w.total)} Ready; ${ratio(c.readySeconds, f.readySeconds)} × the floor) | ${cell("All Ready against the floor")} |`,
    `| create → Ready p50 / p95 / p99 | ${c.latencySeconds.p50} / ${c.latencySeconds.p95} / ${c.latencySeconds.p99} s | |`,
    `| Harbor requests to converge | ${n(c.harbor.total)}: ${c.harbor.perObject}/object (${methods(c.harbor, w.total)}) | ${cell("Harbor requests to converge")} |`,
    `| Operator's Kubernetes writes to converge | ${n(c.kube.writes)}: ${c.kube.writesPerObject}/object (${writeClasses(c.kube, w.total)}) | ${cell("Kubernetes writes to converge")} |`,
    `| Update wave (${n(r.update.objects)} objects edited) | converged in ${r.update.seconds} s, p95 ${r.update.latencySeconds.p95} s; ${cost(r.update.harbor, r.update.kube, r.update.objects)} | |`,
    `| Operator restart | ready in ${r.restart.startSeconds} s, every object checked in ${r.restart.resyncSeconds} s; ${cost(r.restart.harbor, r.restart.kube, w.total)} | ${cell("Harbor requests after a restart")} |`,
    `| Steady state: Harbor writes (${r.steady.intervals} × ${r.steady.intervalSeconds} s) | ${r.steady.harborWrites} | ${cell("Steady-state Harbor writes")} |`,
    `| Steady state: reads per object per drift interval, globally listed kinds | ${steadyGlobal.map((k) => `${short(k)} ${r.steady.byKind[k]?.perObjectPerInterval}`).join(", ")} | ≤ 0.05 ${mark(allMet(steadyTargetsMet, steadyGlobal))} |`,
    `| Steady state: reads per project per drift interval, per-project kinds | ${steadyPerProject.map((k) => `${short(k)} ${r.steady.byKind[k]?.perProjectPerInterval}`).join(", ")} | ≤ 1 list ${mark(allMet(steadyTargetsMet, steadyPerProject))} |`,
    `| Drift pass (longest sweep of a kind in the steady state) | ${target("Drift pass")?.measured ?? ""} | ${cell("Drift pass")} |`,
    `| Delete wave (everything) | gone in ${r.delete.seconds} s (${ratio(r.delete.seconds, f.deleteSeconds)} × the floor's); ${cost(r.delete.harbor, r.delete.kube, w.total)}; left in Harbor: ${leftovers(r)} | ${cell("Delete wave against the floor")} |`,
    `| Operator fixed cost (started, caches synced, nothing to do) | ${r.operator.fixedRssMiB} MiB RSS | ${cell("Fixed memory cost")} |`,
    `| Operator peak RSS | ${r.operator.peakRssMiB} MiB (V8 heap at the end of convergence: ${c.resources.operatorHeapMiB.used} used of ${c.resources.operatorHeapMiB.total} MiB) | ${cell("Peak RSS, full mix")}; ${cell("Peak RSS, 32,000 objects")} |`,
    `| Operator CPU | ${r.operator.cpuSeconds} s (${ratio(r.operator.cpuSeconds * 1000, w.total)} ms/object) | |`,
    `| CPU seconds while converging, by process | ${cpu(c.resources)} | |`,
    `| CPU seconds of the floor until all Ready, by process | ${cpu({ cpuSeconds: f.cpuSeconds })} | |`,
    "",
    "| Kind | Objects | All Ready (s) | create → Ready p50 / p95 (s) | Harbor requests/object | Kubernetes writes/object | Steady-state reads per drift interval |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const kind of KIND_NAMES) {
    const objects = w.perKind[kind];
    if (objects === 0) continue;
    const k = c.byKind[kind];
    const s = r.steady.byKind[kind];
    const steady =
      s?.listing === "per-project"
        ? `${s.perProjectPerInterval}/project (${n(s.projects)} projects, ${s.sweeps} sweeps, longest ${s.longestSweepSeconds} s)`
        : `${s?.perObjectPerInterval}/object (${s?.sweeps} sweeps)`;
    lines.push(
      `| ${kind} | ${n(objects)} | ${k?.readySeconds} | ${k?.latencySeconds.p50} / ${k?.latencySeconds.p95} | ${ratio(c.harbor.byKind[kind] ?? 0, objects)} | ${ratio(c.kube.writesByKind[kind] ?? 0, objects)} | ${steady} |`,
    );
  }
  lines.push(
    "",
    "| Target | Measured | Met |",
    "|---|---|---|",
    ...r.targets.map((t) => `| ${t.name}: ${t.target} | ${t.measured} | ${mark(t.met)} |`),
  );
  const notReady = Object.entries(c.notReady);
  if (notReady.length) {
    lines.push("", `Not Ready at the deadline: ${notReady.map(([k, v]) => `${k} × ${v}`).join(", ")}.`);
  }
  return lines.join("\n");
}

function allMet(checks: BenchResult["targets"], kinds: readonly string[]): boolean | undefined {
  const relevant = checks.filter((t) => t.met !== undefined && kinds.some((k) => t.name.endsWith(k)));
  if (relevant.length === 0) return undefined;
  return relevant.every((t) => t.met === true);
}

function leftovers(r: BenchResult): string {
  const left = Object.entries(r.delete.leftInHarbor).filter(([, v]) => v > 0);
  return left.length ? left.map(([k, v]) => `${v} ${short(k)}`).join(", ") : "nothing";
}

/** The steady state's drift interval of each run, smallest first: one value when they agree. */
function steadyIntervals(runs: BenchResult[]): string {
  const each = runs.map((r) => formatDuration(r.config.steadyDriftIntervalMs));
  return new Set(each).size === 1 ? (each[0] as string) : `${each.join(" / ")} for the runs in order`;
}

export function renderScaling(s: ScalingResult): string {
  const runs = [...s.runs].sort((a, b) => a.workload.total - b.workload.total);
  const lines = [
    `### Scaling: ${runs.map((r) => n(r.config.projects)).join(" → ")} projects`,
    "",
    `Machine: ${machineLine(s.machine)}. Code: ${s.revision}.${runs[0] ? ` ${configLine(runs[0], steadyIntervals(runs))}` : ""}`,
    "",
    "| Projects | Objects | All Ready (s) | p95 (s) | Harbor req/object | K8s writes/object | Steady: Project reads/object/interval | Steady: Robot reads/project/interval | Steady: Webhook reads/project/interval | Delete (s) | Peak RSS (MiB) | Operator CPU (s) |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of runs) {
    lines.push(
      `| ${n(r.config.projects)} | ${n(r.workload.total)} | ${r.convergence.readySeconds} | ${r.convergence.latencySeconds.p95} | ${r.convergence.harbor.perObject} | ${r.convergence.kube.writesPerObject} | ${r.steady.byKind.HarborProject?.perObjectPerInterval} | ${r.steady.byKind.HarborRobot?.perProjectPerInterval} | ${r.steady.byKind.HarborWebhookPolicy?.perProjectPerInterval} | ${r.delete.seconds} | ${r.operator.peakRssMiB} | ${r.operator.cpuSeconds} |`,
    );
  }
  const g = growth(s);
  if (g.length) {
    lines.push(
      "",
      "How each cost grows (exponent of total cost against objects, of every kind or of the kind named, between the smallest and the largest run: 1 = linear):",
      "",
      `| Cost | Per object at ${runs.map((r) => n(r.workload.total)).join(" / ")} objects | Exponent | Target ≤ ${LINEAR_EXPONENT} |`,
      "|---|---|---|---|",
      ...g.map((x) => `| ${x.measure} | ${x.perObject.join(" / ")} | ${x.exponent} | ${mark(x.met)} |`),
    );
  }
  return lines.join("\n");
}
