// HarborGarbageCollection end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator). One per Harbor (Conflict for a second, through any connection to the same Harbor),
// the schedule as written, drift made in Harbor reverted within one drift interval and named in
// status, "exists" meaning a schedule is set, deletion to None, bad input refused by kubectl, and
// run now by annotation: one run per new value, its end in `kubectl get` within seconds, and one run
// only when the operator is killed between starting it and recording it.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  connection,
  eventReasons,
  eventsOf,
  type GarbageCollectionCR as GcCR,
  garbageCollection,
  invalid,
  readyForSpec,
  stalled,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "gc" });
const KIND = "harborgarbagecollection";
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

describe("HarborGarbageCollection", () => {
  test("apply → Harbor holds the schedule as written, Ready, in four requests; kubectl get shows it", async () => {
    expect(await schedule()).toBeUndefined();
    const ops = ["getGCSchedule", "updateGCSchedule", "createGCSchedule", "getGCHistory"];
    const before = Object.fromEntries(ops.map((o) => [o, count(o)]));
    await op.kubectl.apply(
      garbageCollection("gc", { schedule: { type: "Weekly" }, deleteUntagged: true, workers: 3 }),
    );
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
    expect(await eventReasons(op.kubectl, "gc", "HarborGarbageCollection")).toContain("Created");

    const table = await op.kubectl.run(["get", "harborgarbagecollections"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+SCHEDULE\s+NEXT RUN\s+LAST RUN\s+AGE/);
    expect(table).not.toContain("HARBOR ID");
    expect(table).toMatch(/gc\s+True\s+Synced\s+Weekly\s+\d{4}-/);
  });

  test("steady state: no writes, and two reads per drift interval (the schedule, one page of one run)", async () => {
    const before = op.emulator.counters.list();
    const writes = op.emulator.counters.writes();
    // Four drift intervals of 3 s (each jittered by ±10 %).
    await new Promise((r) => setTimeout(r, 12_000));
    expect(op.emulator.counters.writes()).toBe(writes);
    const spent = op.emulator.counters.since(before);
    // Besides the connection's own periodic check (systeminfo, current user), only these.
    const own = Object.keys(spent).filter((o) => !["getSystemInfo", "getCurrentUserInfo"].includes(o));
    expect(own.sort()).toEqual(["getGCHistory", "getGCSchedule"]);
    expect(spent.getGCSchedule).toBe(spent.getGCHistory);
    expect(spent.getGCSchedule).toBeGreaterThanOrEqual(3);
    expect(spent.getGCSchedule).toBeLessThanOrEqual(5);
  });

  test("a change made in Harbor is reverted within one drift interval (3 s) and named in status", async () => {
    await op.harbor.gc.updateSchedule({
      schedule: { type: "Custom", cron: "0 15 4 * * *" },
      parameters: { delete_untagged: true, workers: 5 },
    });
    const changed = Date.now();
    const reverted = await until("the schedule to be reverted", async () => {
      const s = await schedule();
      return s?.schedule?.type === "Weekly" ? s : undefined;
    });
    const took = Date.now() - changed;
    // One drift interval (3 s, ±10 %) plus the reconcile it queues.
    expect(took).toBeLessThan(5_000);
    expect(reverted.schedule?.cron).toBe("0 0 0 * * 0");
    expect(JSON.parse(reverted.job_parameters as string)).toMatchObject({ workers: 3 });
    const cr = await op.waitFor<GcCR>(KIND, "gc", (o) => o.status?.lastDriftCorrection !== undefined);
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["schedule.type", "schedule.cron", "workers"]);
    const drift = (await eventsOf(op.kubectl, "gc", "HarborGarbageCollection")).find(
      (e) => e.reason === "DriftCorrected",
    );
    expect(drift?.message).toBe("Reverted changes made in Harbor to schedule.type, schedule.cron, workers");

    // A schedule removed in Harbor is put back too.
    await op.harbor.gc.updateSchedule({ schedule: { type: "None" } });
    await until("the schedule to come back", async () => ((await schedule()) ? true : undefined), 6_000);
    await op.waitFor<GcCR>(
      KIND,
      "gc",
      (o) => o.status?.lastDriftCorrection?.fields.join() === "schedule.type",
    );
  });

  test("a second resource for the same Harbor, through the same or another connection, gets Conflict and writes nothing", async () => {
    await op.kubectl.apply([
      connection("harbor-again", op.emulator.url, "harbor-credentials"),
      garbageCollection("gc-2", { schedule: { type: "Hourly" } }),
      garbageCollection("gc-3", { schedule: { type: "Daily" }, connectionRef: { name: "harbor-again" } }),
    ]);
    await op.waitReady("harborconnection", "harbor-again");
    const writes = count("updateGCSchedule");
    for (const name of ["gc-2", "gc-3"]) {
      const cr = await op.waitFor<GcCR>(KIND, name, (o) => condition(o, "Ready")?.reason === "Conflict");
      expect(condition(cr, "Ready")?.message).toBe(
        `HarborGarbageCollection ${op.namespace}/gc already manages this Harbor object; only one resource may own it`,
      );
    }
    await new Promise((r) => setTimeout(r, 1_000));
    expect(count("updateGCSchedule")).toBe(writes);
    expect((await schedule())?.schedule?.type).toBe("Weekly");
    await op.kubectl.run(["delete", KIND, "gc-2", "gc-3", "--wait=true"]);
  });

  test("bad input is refused by kubectl, naming the field", async () => {
    const rejected = async (name: string, spec: Record<string, unknown>) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], {
        input: JSON.stringify(garbageCollection(name, spec)),
      });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected("manual", { schedule: { type: invalid("Manual") } })).toContain(
      "type Manual is not a schedule: Harbor would start a run at every apply",
    );
    expect(await rejected("schedule", { schedule: { type: invalid("Schedule") } })).toContain(
      "type Schedule is accepted by Harbor and does nothing",
    );
    expect(await rejected("custom", { schedule: { type: "Custom" } })).toContain(
      "a Custom schedule needs a cron",
    );
    expect(await rejected("none-cron", { schedule: { type: "None", cron: "0 0 0 * * *" } })).toContain(
      "cron is not used with type None",
    );
    expect(await rejected("seconds", { schedule: { type: "Custom", cron: "5 0 0 * * *" } })).toContain(
      "spec.schedule.cron",
    );
    expect(await rejected("workers", { workers: 6 })).toMatch(/spec\.workers/);
  });

  test("run now: one run per new value, recorded in status, its end in kubectl get within seconds", async () => {
    await op.kubectl.apply(
      garbageCollection("gc", {
        schedule: { type: "Weekly" },
        deleteUntagged: true,
        workers: 3,
        dryRun: true,
      }),
    );
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
    expect(await eventReasons(op.kubectl, "gc", "HarborGarbageCollection")).toContain("RunStarted");

    // The job ends and Harbor shows it final after its lag: kubectl get shows it within seconds.
    op.emulator.control.clock.advance(2_000 + LAG);
    const finished = Date.now();
    await until("LAST RUN Success in kubectl get", async () =>
      /gc\s+True\s+Synced\s+Weekly\s+\S+\s+Success/.test(await op.kubectl.run(["get", KIND, "gc"]))
        ? true
        : undefined,
    );
    expect(Date.now() - finished).toBeLessThan(7_000);

    // The same value again (a re-apply, an edit) starts nothing; a new one starts one more.
    await op.kubectl.apply(
      garbageCollection("gc", { schedule: { type: "Weekly" }, deleteUntagged: true, workers: 2 }),
    );
    await op.waitFor<GcCR>(KIND, "gc", readyForSpec);
    await annotate("gc", "first");
    await new Promise((r) => setTimeout(r, 1_500));
    expect(manualRuns()).toHaveLength(runs + 1);
    await annotate("gc", "second");
    await op.waitFor<GcCR>(KIND, "gc", handled("second"));
    expect(manualRuns()).toHaveLength(runs + 2);
    op.emulator.control.clock.advance(2_000 + LAG);
  });

  test.each([
    ["between starting the run and recording it", "after-run-start"],
    ["between recording the request and starting the run", "after-run-request-recorded"],
  ])("the operator killed %s starts exactly one run", async (_when, point) => {
    const value = `crash-${point}`;
    const runs = manualRuns().length;
    await op.stop();
    await op.start({ HCO_TEST_CRASH_POINT: point });
    await op.waitReady<GcCR>(KIND, "gc");
    await annotate("gc", value);
    const code = await Promise.race([
      op.exited(),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the operator did not reach the crash point")), 30_000),
      ),
    ]);
    expect(code).toBeNull(); // SIGKILL
    const recorded = await op.kubectl.get<GcCR>(KIND, "gc");
    expect(recorded.status?.runRequest).toMatchObject({ requestedAt: value });
    expect(recorded.status?.runRequest?.executionId).toBeUndefined();
    expect(manualRuns()).toHaveLength(point === "after-run-start" ? runs + 1 : runs);

    await op.start();
    const cr = await op.waitFor<GcCR>(KIND, "gc", handled(value), 60_000);
    expect(manualRuns()).toHaveLength(runs + 1);
    expect(cr.status?.runRequest?.executionId).toBe(manualRuns().at(-1)?.id);
    expect(cr.status?.runRequest?.afterExecutionId).toBeLessThan(
      cr.status?.runRequest?.executionId as number,
    );
    op.emulator.control.clock.advance(2_000 + LAG);
  });

  test("a schedule someone else set: Create refuses it by name, CreateOrAdopt takes it over; Delete sets None, Orphan keeps it", async () => {
    await op.kubectl.delete(KIND, "gc", { wait: true });
    expect(await schedule()).toBeUndefined();
    expect(await eventReasons(op.kubectl, "gc", "HarborGarbageCollection")).toContain("Deleted");

    await op.harbor.gc.updateSchedule({
      schedule: { type: "Daily", cron: "0 0 4 * * *" },
      parameters: { workers: 1 },
    });
    await op.kubectl.apply(garbageCollection("theirs", { schedule: { type: "Hourly" } }));
    const refused = await op.waitFor<GcCR>(KIND, "theirs", stalled);
    expect(condition(refused, "Ready")).toMatchObject({ reason: "AlreadyExists" });
    expect(condition(refused, "Ready")?.message).toContain("(schedule Daily, 0 0 4 * * *)");
    expect((await schedule())?.schedule?.type).toBe("Daily");

    await op.kubectl.apply(
      garbageCollection("theirs", {
        schedule: { type: "Hourly" },
        creationPolicy: "CreateOrAdopt",
        deletionPolicy: "Orphan",
      }),
    );
    await op.waitFor<GcCR>(KIND, "theirs", readyForSpec);
    expect((await schedule())?.schedule).toMatchObject({ type: "Hourly", cron: "0 0 * * * *" });
    expect(await eventReasons(op.kubectl, "theirs", "HarborGarbageCollection")).toContain("Adopted");
    await op.kubectl.delete(KIND, "theirs", { wait: true });
    expect((await schedule())?.schedule?.type).toBe("Hourly");
    await op.harbor.gc.updateSchedule({ schedule: { type: "None" } });
  });
});
