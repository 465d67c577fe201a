// The benchmark's machinery on a tiny workload (5 projects, 40 objects) against the shared control
// plane: every phase runs (the floor's reference controller, and the operator built as the image
// runs it), every figure is filled in, and the report renders. Speed is not judged
// here (that is the benchmark's job); this only keeps `npm run bench` from rotting unnoticed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { renderResult, renderScaling } from "../../bench/report.ts";
import { runBenchmark } from "../../bench/scenario.ts";
import { formatDuration } from "../../bench/stats.ts";
import { type BenchResult, KIND_NAMES } from "../../bench/types.ts";
import { mixFor } from "../../bench/workload.ts";
import { budget } from "../../env/budget.ts";
import { sharedControlPlane } from "../../env/cluster.ts";

const workDir = mkdtempSync(join(tmpdir(), "hco-bench-smoke-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Every number in the result, with its path, so that none can be missing or NaN unnoticed. */
function numbers(value: unknown, path = "result"): Array<[string, number]> {
  if (typeof value === "number") return [[path, value]];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => numbers(v, `${path}.${k}`));
}

describe("the benchmark on a tiny workload", () => {
  test("runs every phase and fills in a complete result", { timeout: budget.longTestMs }, async () => {
    const cp = sharedControlPlane();
    const r: BenchResult = await runBenchmark({
      label: "smoke",
      operatorNodeOptions: [],
      projects: 5,
      latencyMs: 1,
      workers: 4,
      convergeDriftIntervalMs: 300_000,
      steadyDriftIntervalMs: 1000,
      steadyIntervals: 2,
      createConcurrency: 4,
      connection: { requestsPerSecond: 500, burst: 500, maxConcurrency: 16 },
      updateFraction: 0.1,
      finalizerAtAdmission: true,
      // How long each phase may wait for the operator.
      timeoutMs: budget.operatorMs,
      restartMinMs: 2000,
      workDir,
      cluster: cp,
      log: () => {},
    });

    const total = mixFor(5).total;
    expect(r.workload.total).toBe(total);
    expect(KIND_NAMES.every((k) => r.workload.perKind[k] > 0)).toBe(true);
    // Every object converged, every edit landed, everything was deleted, in Harbor too.
    expect(r.convergence.ready).toBe(total);
    expect(r.convergence.notReady).toEqual({});
    expect(r.update.objects).toBe(KIND_NAMES.length);
    expect(r.update.done).toBe(r.update.objects);
    expect(r.delete.done).toBe(total);
    expect(Object.values(r.delete.leftInHarbor).every((n) => n === 0)).toBe(true);
    expect(r.delete.leftInHarbor).toMatchObject({
      HarborLabel: 0,
      HarborUserGroup: 0,
      HarborProjectMember: 0,
      HarborRetentionPolicy: 0,
      HarborImmutableTagRule: 0,
      HarborPreheatInstance: 0,
      HarborPreheatPolicy: 0,
      HarborConfiguration: 0,
      HarborScanAll: 0,
    });

    // The figures come from where they should: Harbor's counters, the audit log of the operator's
    // own identity, /proc of its process.
    expect(r.convergence.harbor.total).toBeGreaterThanOrEqual(total);
    expect(r.convergence.harbor.byMethod.POST).toBeGreaterThanOrEqual(total);
    expect(r.convergence.kube.writesByClass.status).toBeGreaterThanOrEqual(total);
    expect(r.convergence.kube.writesByClass.secret).toBeGreaterThanOrEqual(r.workload.perKind.HarborRobot);
    expect(r.convergence.kube.writesByKind.HarborRobot).toBeGreaterThan(0);
    // The finalizer's admission policy was in place: no resource needed the operator's finalizer write.
    expect(r.convergence.kube.writesByClass.cr).toBeUndefined();
    expect(r.delete.harbor.byMethod.DELETE).toBeGreaterThan(0);
    expect(r.restart.reconciles).toBeGreaterThanOrEqual(total);
    expect(r.steady.harborWrites).toBe(0);
    expect(Object.keys(r.steady.byKind).sort()).toEqual([...KIND_NAMES].sort());
    expect(r.steady.byKind.HarborRobot?.sweeps).toBeGreaterThan(0);
    expect(r.operator.peakRssMiB).toBeGreaterThan(0);
    expect(r.operator.fixedRssMiB).toBeGreaterThan(0);
    expect(r.operator.fixedRssMiB).toBeLessThanOrEqual(r.operator.peakRssMiB);
    expect(r.convergence.baselineCreateSeconds).toBeGreaterThan(0);
    // The floor: the reference controller made every object Ready with one status write each (a
    // write it retried would show as more), and its deletes were waited for.
    expect(r.floor.ready).toBe(total);
    expect(r.floor.statusWrites).toBeGreaterThanOrEqual(total);
    expect(r.floor.readySeconds).toBeGreaterThan(0);
    expect(r.floor.deleteSeconds).toBeGreaterThan(0);
    expect(r.operator.cpuSeconds).toBeGreaterThan(0);
    expect(r.convergence.resources.cpuSeconds.operator).toBeGreaterThan(0);
    expect(r.convergence.resources.cpuSeconds.emulator).toBeGreaterThan(0);
    expect(r.convergence.resources.operatorHeapMiB.used).toBeGreaterThan(0);
    expect(r.targets.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "All Ready against the floor",
        "User's creates slowed",
        "Harbor requests to converge",
        "Harbor requests after a restart",
        "Kubernetes writes to converge",
        "Delete wave against the floor",
        "Drift pass",
        "Fixed memory cost",
        "Peak RSS, full mix",
        "Peak RSS, 32,000 objects",
      ]),
    );

    const bad = numbers(r).filter(([, v]) => !Number.isFinite(v) || v < 0);
    expect(bad).toEqual([]);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);

    const md = renderResult(r);
    for (const kind of KIND_NAMES) expect(md).toContain(`| ${kind} |`);
    expect(md).not.toMatch(/undefined|NaN/);
    const series = renderScaling({
      version: 1,
      startedAt: r.startedAt,
      revision: r.revision,
      machine: r.machine,
      runs: [r],
    });
    expect(series).toContain(`| 5 | ${total} |`);
    // A series whose runs had different steady-state intervals names each, not the first one's.
    const larger = {
      ...r,
      config: { ...r.config, projects: 10, steadyDriftIntervalMs: 2 * r.config.steadyDriftIntervalMs },
      workload: { ...r.workload, total: 2 * total },
    };
    const two = renderScaling({
      version: 1,
      startedAt: r.startedAt,
      revision: r.revision,
      machine: r.machine,
      runs: [larger, r],
    });
    expect(two).toContain(
      `steady state: ${formatDuration(r.config.steadyDriftIntervalMs)} / ${formatDuration(larger.config.steadyDriftIntervalMs)} for the runs in order`,
    );
  });
});
