// HarborGarbageCollection end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator). The schedule as written, in four requests; steady state costing two reads per drift
// sweep and no write; a spec edit reaching Harbor and a change made in Harbor (a schedule removed
// included) reverted and named; run now by annotation, one run per new value, followed to its end
// on the emulator's clock, and one run only when the operator is killed between starting it and
// recording it; deletion setting the schedule to None. One per Harbor, "exists", adoption, Orphan,
// the tenancy check and run now's other decisions are proven in unit tables
// (test/unit/controllers/per-harbor-mapping.test.ts, test/unit/controllers/run-now.test.ts,
// test/unit/runtime/managed-lifecycle.test.ts); what kubectl refuses, in
// test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { armedAt, startDisarmed, untilCrashed } from "../env/crash.ts";
import { useOperator } from "../env/operator.ts";
import { requestsOverSweeps } from "../env/operator-log.ts";
import {
  eventOf,
  type GarbageCollectionCR as GcCR,
  garbageCollection,
  readyForSpec,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

// Armed: the operator dies the first time it has started a run for a value (the crash test, the first
// to ask for one), before recording it.
const op = useOperator({ namespacePrefix: "gc", ...armedAt("after-run-start") });
const KIND = "harborgarbagecollection";
const KIND_NAME = "HarborGarbageCollection";
const ANNOTATION = "harborconfig.io/runRequestedAt";
/** GC runs stay Running this long after their job in Harbor 2.12 (world time). */
const LAG = 25_000;

const count = (o: string) => op.emulator.counters.total({ op: o });
const manualRuns = () => op.emulator.control.gc.runs().filter((r) => r.trigger === "MANUAL");
const schedule = () => op.harbor.gc.getSchedule();
const annotate = (name: string, value: string) =>
  op.kubectl.run(["annotate", "--overwrite", KIND, name, `${ANNOTATION}=${value}`]);
const handled = (value: string) => (o: GcCR) =>
  o.status?.lastHandledRunAt === value && o.status.runRequest?.executionId !== undefined;
/** The spec the run-now tests start from. */
const weekly = { schedule: { type: "Weekly" as const }, deleteUntagged: true, workers: 3 };

describe("HarborGarbageCollection", () => {
  test("apply → Harbor holds the schedule as written, Ready, in four requests; kubectl get shows it", async () => {
    expect(await schedule()).toBeUndefined();
    const ops = ["getGCSchedule", "updateGCSchedule", "createGCSchedule", "getGCHistory"];
    const before = Object.fromEntries(ops.map((o) => [o, count(o)]));
    await op.kubectl.apply(garbageCollection("gc", weekly));
    const cr = await op.waitReady<GcCR>(KIND, "gc");
    const spent = Object.fromEntries(ops.map((o) => [o, count(o) - (before[o] as number)]));
    // A drift sweep in between may add its two reads.
    expect(spent.updateGCSchedule).toBe(1);
    expect(spent.createGCSchedule).toBe(0);
    expect((spent.getGCSchedule as number) + (spent.getGCHistory as number)).toBeLessThanOrEqual(5);

    const s = await schedule();
    expect(s?.schedule).toMatchObject({ type: "Weekly", cron: "0 0 0 * * 0" });
    expect(JSON.parse(s?.job_parameters as string)).toMatchObject({ delete_untagged: true, workers: 3 });
    expect(cr.status?.harborId).toBe(0);
    expect(cr.status?.nextScheduledTime).toBe(s?.schedule?.next_scheduled_time);

    const table = await op.kubectl.run(["get", "harborgarbagecollections"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+SCHEDULE\s+NEXT RUN\s+LAST RUN\s+AGE/);
    expect(table).not.toContain("HARBOR ID");
    expect(table).toMatch(/gc\s+True\s+Synced\s+Weekly\s+\d{4}-/);
  });

  test("steady state: no writes, and two reads per drift sweep (the schedule, one page of one run)", async () => {
    const { writes, requests } = await requestsOverSweeps(op, "HarborGarbageCollection", 2);
    expect(writes).toBe(0);
    expect(requests).toEqual({ getGCSchedule: 2, getGCHistory: 2 });
  });

  test("a spec edit reaches Harbor; a change made in Harbor is reverted and named, a removed schedule put back", async () => {
    const edited = {
      schedule: { type: "Custom" as const, cron: "0 0 1 * * 1" },
      deleteUntagged: true,
      workers: 4,
    };
    await op.kubectl.apply(garbageCollection("gc", edited));
    await op.waitFor<GcCR>(KIND, "gc", readyForSpec);
    const s = await schedule();
    expect(s?.schedule).toMatchObject({ type: "Custom", cron: "0 0 1 * * 1" });
    expect(JSON.parse(s?.job_parameters as string)).toMatchObject({ delete_untagged: true, workers: 4 });
    await eventOf(op.kubectl, "gc", KIND_NAME, "Updated");

    await op.harbor.gc.updateSchedule({
      schedule: { type: "Daily", cron: "0 15 4 * * *" },
      parameters: { delete_untagged: true, workers: 5 },
    });
    const reverted = await until("the schedule to be reverted", async () => {
      const now = await schedule();
      return now?.schedule?.cron === "0 0 1 * * 1" ? now : undefined;
    });
    expect(reverted.schedule?.type).toBe("Custom");
    expect(JSON.parse(reverted.job_parameters as string)).toMatchObject({ workers: 4 });
    const cr = await op.waitFor<GcCR>(KIND, "gc", (o) => o.status?.lastDriftCorrection !== undefined);
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["schedule.type", "schedule.cron", "workers"]);
    const drift = await eventOf(op.kubectl, "gc", KIND_NAME, "DriftCorrected");
    expect(drift.message).toBe("Reverted changes made in Harbor to schedule.type, schedule.cron, workers");

    // A schedule removed in Harbor is put back too.
    await op.harbor.gc.updateSchedule({ schedule: { type: "None" } });
    await until("the schedule to come back", async () => ((await schedule()) ? true : undefined));
    await op.waitFor<GcCR>(
      KIND,
      "gc",
      (o) => o.status?.lastDriftCorrection?.fields.join() === "schedule.type",
    );
  });

  test("the operator killed between starting a run and recording it starts exactly one run", async () => {
    const value = "crash-after-run-start";
    const runs = manualRuns().length;
    await annotate("gc", value);
    await untilCrashed(op);
    const recorded = await op.kubectl.get<GcCR>(KIND, "gc");
    expect(recorded.status?.runRequest).toMatchObject({ requestedAt: value });
    expect(recorded.status?.runRequest?.executionId).toBeUndefined();
    expect(manualRuns()).toHaveLength(runs + 1);

    await startDisarmed(op);
    const cr = await op.waitFor<GcCR>(KIND, "gc", handled(value));
    expect(manualRuns()).toHaveLength(runs + 1);
    expect(cr.status?.runRequest?.executionId).toBe(manualRuns().at(-1)?.id);
    expect(cr.status?.runRequest?.afterExecutionId).toBeLessThan(
      cr.status?.runRequest?.executionId as number,
    );
    op.emulator.control.clock.advance(2_000 + LAG);
  });

  test("run now: one run per new value, recorded in status and followed to its end; the value handled starts nothing again", async () => {
    await op.kubectl.apply(garbageCollection("gc", { ...weekly, dryRun: true }));
    await op.waitFor<GcCR>(KIND, "gc", readyForSpec);
    const runs = manualRuns().length;
    await annotate("gc", "first");
    const cr = await op.waitFor<GcCR>(KIND, "gc", handled("first"));
    expect(manualRuns()).toHaveLength(runs + 1);
    const run = manualRuns().at(-1);
    expect(cr.status?.runRequest?.executionId).toBe(run?.id);
    expect(run?.parameters).toMatchObject({ delete_untagged: true, dry_run: true, workers: 3 });
    expect(cr.status?.lastRun).toMatchObject({
      id: run?.id,
      status: "Running",
      trigger: "MANUAL",
      dryRun: true,
    });
    await eventOf(
      op.kubectl,
      "gc",
      KIND_NAME,
      "RunStarted",
      `(execution ${run?.id}) for ${ANNOTATION} "first"`,
    );

    // The job ends and Harbor shows it final after its lag: the run is followed to there.
    op.emulator.control.clock.advance(2_000 + LAG);
    await op.waitFor<GcCR>(KIND, "gc", (o) => o.status?.lastRun?.status === "Success");
    expect(await op.kubectl.run(["get", KIND, "gc"])).toMatch(/gc\s+True\s+Synced\s+Weekly\s+\S+\s+Success/);

    // The value handled starts nothing when the spec changes: the reconcile of the new generation,
    // which ends with its status written, saw it. A new value starts one more.
    await op.kubectl.apply(garbageCollection("gc", { ...weekly, workers: 2 }));
    await op.waitFor<GcCR>(KIND, "gc", readyForSpec);
    expect(manualRuns()).toHaveLength(runs + 1);
    await annotate("gc", "second");
    await op.waitFor<GcCR>(KIND, "gc", handled("second"));
    expect(manualRuns()).toHaveLength(runs + 2);
    op.emulator.control.clock.advance(2_000 + LAG);
  });

  test("deletion (deletionPolicy Delete) sets the schedule to None", async () => {
    await op.kubectl.delete(KIND, "gc", { wait: true });
    expect(await schedule()).toBeUndefined();
  });
});
