// The pure mappings of the per-Harbor kinds: HarborGarbageCollection and HarborAuditLogPurge (what
// of Harbor's schedule is compared, the requests sent, the newest run in status) and
// HarborJobService (which listed queues change, what status shows), plus the release check that
// keeps the 2.12 purge parameters away from Harbor 2.13.
import { describe, expect, test } from "vitest";
import { HarborAuditLogPurgeSpec } from "../../../src/api/audit-log-purge.ts";
import { HarborGarbageCollectionSpec } from "../../../src/api/garbage-collection.ts";
import { HarborJobServiceSpec } from "../../../src/api/job-service.ts";
import * as purge from "../../../src/controllers/audit-log-purge/mapping.ts";
import * as gc from "../../../src/controllers/garbage-collection/mapping.ts";
import * as jobs from "../../../src/controllers/job-service/mapping.ts";
import { followDelayMs } from "../../../src/controllers/shared/executions.ts";

const conn = { connectionRef: { name: "harbor" } };
const gcSpec = (o: object = {}) =>
  HarborGarbageCollectionSpec.parse({ ...conn, schedule: { type: "Daily" }, ...o });
const purgeSpec = (o: object = {}) =>
  HarborAuditLogPurgeSpec.parse({ ...conn, schedule: { type: "Daily" }, retentionHours: 168, ...o });

/** GET /system/gc/schedule as Harbor 2.12 answers it. */
const gcSchedule = (o: { type?: string; cron?: string; params?: object; next?: string } = {}) => ({
  id: 3,
  job_kind: o.cron ?? "0 0 0 * * *",
  job_parameters: JSON.stringify(o.params ?? { delete_untagged: false, workers: 1 }),
  job_status: "Running",
  schedule: {
    type: o.type ?? "Daily",
    cron: o.cron ?? "0 0 0 * * *",
    next_scheduled_time: o.next ?? "2030-01-02T00:00:00.000Z",
  },
});

describe("HarborGarbageCollection", () => {
  test("a schedule that matches: no diff; extra parameters Harbor adds are not compared", () => {
    const observed = {
      schedule: gc.scheduleFrom(
        gcSchedule({ params: { delete_untagged: false, workers: 1, time_window: 2, redis_url_reg: "x" } }),
      ),
    };
    expect(gc.diff(gcSpec(), observed)).toEqual([]);
  });

  test("each field that differs is named; a missing schedule is schedule.type", () => {
    const observed = {
      schedule: gc.scheduleFrom(
        gcSchedule({ type: "Custom", cron: "0 0 3 * * *", params: { delete_untagged: true, workers: 3 } }),
      ),
    };
    expect(gc.diff(gcSpec(), observed)).toEqual([
      "schedule.type",
      "schedule.cron",
      "deleteUntagged",
      "workers",
    ]);
    expect(gc.diff(gcSpec(), {})).toEqual(["schedule.type"]);
    expect(gc.scheduleFrom(undefined)).toBeUndefined();
  });

  test("None: in sync when Harbor has no schedule, drift when it has one", () => {
    const none = gcSpec({ schedule: { type: "None" } });
    expect(gc.diff(none, {})).toEqual([]);
    expect(gc.diff(none, { schedule: gc.scheduleFrom(gcSchedule()) })).toEqual(["schedule.type"]);
  });

  test("requests: the type's default cron, the parameters; None without parameters; run now with dry_run", () => {
    expect(gc.scheduleRequest(gcSpec({ schedule: { type: "Weekly" }, workers: 2 }))).toEqual({
      schedule: { type: "Weekly", cron: "0 0 0 * * 0" },
      parameters: { delete_untagged: false, workers: 2 },
    });
    expect(
      gc.scheduleRequest(gcSpec({ schedule: { type: "Hourly", cron: "0 30 * * * *" } })).schedule,
    ).toEqual({
      type: "Hourly",
      cron: "0 30 * * * *",
    });
    expect(gc.scheduleRequest(gcSpec({ schedule: { type: "None" } }))).toEqual({
      schedule: { type: "None" },
    });
    expect(gc.runRequest(gcSpec({ dryRun: true, deleteUntagged: true }))).toEqual({
      schedule: { type: "Manual" },
      parameters: { delete_untagged: true, dry_run: true, workers: 1 },
    });
  });

  test("status: the next time (none for a zero time) and the newest run with what it freed", () => {
    const done = {
      id: 9,
      job_kind: "MANUAL",
      job_status: "Success",
      job_parameters: JSON.stringify({
        dry_run: false,
        freed_space: 1024,
        purged_blobs: 2,
        purged_manifests: 1,
      }),
      creation_time: "2030-01-01T00:00:00.000Z",
      update_time: "2030-01-01T00:00:27.000Z",
    };
    expect(gc.status({ schedule: gc.scheduleFrom(gcSchedule()), lastRun: done })).toEqual({
      nextScheduledTime: "2030-01-02T00:00:00.000Z",
      lastRun: {
        id: 9,
        status: "Success",
        trigger: "MANUAL",
        dryRun: false,
        startTime: "2030-01-01T00:00:00.000Z",
        endTime: "2030-01-01T00:00:27.000Z",
        freedBytes: 1024,
        purgedBlobs: 2,
        purgedManifests: 1,
      },
    });
    const running = gc.runStatus({ ...done, job_status: "Running", job_parameters: "not json" });
    expect(running).toEqual({ id: 9, status: "Running", trigger: "MANUAL", startTime: done.creation_time });
    expect(gc.isRunning(running)).toBe(true);
    expect(
      gc.status({ schedule: gc.scheduleFrom(gcSchedule({ next: "0001-01-01T00:00:00.000Z" })) }),
    ).toEqual({
      nextScheduledTime: undefined,
      lastRun: undefined,
    });
    expect(gc.describe({ schedule: gc.scheduleFrom(gcSchedule()) })).toBe("schedule Daily, 0 0 0 * * *");
    expect(gc.describe({})).toBe("no schedule");
  });

  test("a running execution is looked at again after a quarter of its age, 1 to 5 s", () => {
    const start = "2030-01-01T00:00:00.000Z";
    const t0 = Date.parse(start);
    expect(followDelayMs(start, t0)).toBe(1000);
    expect(followDelayMs(start, t0 + 12_000)).toBe(3000);
    expect(followDelayMs(start, t0 + 60_000)).toBe(5000);
    expect(followDelayMs(undefined, t0)).toBe(1000);
  });
});

describe("HarborAuditLogPurge", () => {
  const stored = (params: object, type = "Daily", cron = "0 0 0 * * *") => ({
    job_kind: cron,
    job_parameters: JSON.stringify(params),
    schedule: { type, cron, next_scheduled_time: "2030-01-02T00:00:00.000Z" },
  });
  const params = { audit_retention_hour: 168, include_operations: "create,delete,pull", dry_run: false };

  test("parameters are compared as Harbor shows them; the order of operations does not matter", () => {
    const observed = {
      schedule: purge.scheduleFrom(stored({ ...params, include_operations: "pull, Create,delete" })),
    };
    expect(purge.diff(purgeSpec(), observed)).toEqual([]);
  });

  test("each field that differs is named", () => {
    const observed = {
      schedule: purge.scheduleFrom(
        stored(
          { audit_retention_hour: 24, include_operations: "pull", dry_run: true },
          "Custom",
          "0 5 0 * * *",
        ),
      ),
    };
    expect(purge.diff(purgeSpec(), observed)).toEqual([
      "schedule.type",
      "schedule.cron",
      "retentionHours",
      "includeOperations",
      "dryRun",
    ]);
  });

  test("every request carries the retention and the operations, None included", () => {
    const spec = purgeSpec({ includeOperations: ["pull", "create"], dryRun: true });
    const p = { audit_retention_hour: 168, include_operations: "create,pull", dry_run: true };
    expect(purge.scheduleRequest(spec)).toEqual({
      schedule: { type: "Daily", cron: "0 0 0 * * *" },
      parameters: p,
    });
    expect(purge.noScheduleRequest(spec)).toEqual({ schedule: { type: "None" }, parameters: p });
    expect(purge.runRequest(spec)).toEqual({ schedule: { type: "Manual" }, parameters: p });
  });

  test.each([
    [undefined, undefined],
    ["unknown", undefined],
    ["v2.10.3-emulator", undefined],
    ["v2.12.4-6b4981d4", undefined],
    ["v2.13.0-abcdef", "v2.13.0-abcdef"],
    ["v3.0.0", "v3.0.0"],
  ])("Harbor %s: %s refuses the 2.12 parameters", (version, named) => {
    const why = purge.unsupportedRelease(version);
    if (named === undefined) expect(why).toBeUndefined();
    else {
      expect(why).toContain(`this Harbor is ${named}`);
      expect(why).toContain("include_event_types");
    }
  });

  test("status: the newest run, final or not", () => {
    const run = {
      id: 4,
      job_kind: "SCHEDULE",
      job_status: "Stopped",
      job_parameters: JSON.stringify(params),
      creation_time: "2030-01-01T00:00:00.000Z",
      update_time: "2030-01-01T00:00:01.000Z",
    };
    expect(purge.status({ lastRun: run })).toEqual({
      nextScheduledTime: undefined,
      lastRun: {
        id: 4,
        status: "Stopped",
        trigger: "SCHEDULE",
        dryRun: false,
        startTime: run.creation_time,
        endTime: run.update_time,
      },
    });
    expect(purge.isRunning(purge.runStatus({ ...run, job_status: "Running" }))).toBe(true);
  });
});

describe("HarborJobService", () => {
  const spec = HarborJobServiceSpec.parse({
    ...conn,
    queues: [
      { jobType: "REPLICATION", paused: true },
      { jobType: "SCHEDULER", paused: false },
      { jobType: "RETENTION", paused: true },
    ],
  });
  const observed = (paused: string[], extra: object[] = []) => ({
    queues: ["REPLICATION", "RETENTION", "SCHEDULER", "WEBHOOK"].map((t) => ({
      job_type: t,
      paused: paused.includes(t),
      ...(t === "WEBHOOK" ? { count: 3, latency: 40 } : {}),
    })),
    pools: [{ worker_pool_id: "p1", concurrency: 3 }],
    workers: [
      { id: "w1", pool_id: "p1", job_id: "j1", job_name: "WEBHOOK" },
      { id: "w2", pool_id: "p1" },
      ...extra,
    ],
  });

  test("only listed queues whose state differs change; unlisted ones never", () => {
    const o = observed(["SCHEDULER", "RETENTION", "WEBHOOK"]);
    expect(jobs.changes(spec, o)).toEqual([
      { jobType: "REPLICATION", action: "pause" },
      { jobType: "SCHEDULER", action: "resume" },
    ]);
    expect(jobs.diff(spec, o)).toEqual(["queues[REPLICATION].paused", "queues[SCHEDULER].paused"]);
    expect(jobs.diff(spec, observed(["REPLICATION", "RETENTION"]))).toEqual([]);
  });

  test("a pause it holds; what deletion resumes; job types Harbor does not list", () => {
    expect(jobs.holdsPause(spec, observed([]))).toBe(false);
    expect(jobs.holdsPause(spec, observed(["WEBHOOK"]))).toBe(false);
    expect(jobs.holdsPause(spec, observed(["RETENTION"]))).toBe(true);
    expect(jobs.pausedByResource(spec, observed(["RETENTION", "SCHEDULER", "WEBHOOK"]))).toEqual([
      "RETENTION",
    ]);
    const typo = HarborJobServiceSpec.parse({ ...conn, queues: [{ jobType: "REPLICATON", paused: true }] });
    expect(jobs.unknownJobTypes(typo, observed([]))).toEqual(["REPLICATON"]);
  });

  test("status: every queue, the paused ones as one line, the scheduler, pools and workers", () => {
    expect(jobs.status(observed(["SCHEDULER", "REPLICATION"]))).toEqual({
      schedulerPaused: true,
      pausedQueues: "REPLICATION, SCHEDULER",
      pools: 1,
      workers: { total: 2, busy: 1, idle: 1 },
      queues: [
        { jobType: "REPLICATION", count: 0, latency: 0, paused: true },
        { jobType: "RETENTION", count: 0, latency: 0, paused: false },
        { jobType: "SCHEDULER", count: 0, latency: 0, paused: true },
        { jobType: "WEBHOOK", count: 3, latency: 40, paused: false },
      ],
    });
    expect(jobs.status(observed([])).pausedQueues).toBeUndefined();
    expect(jobs.describe(observed(["RETENTION", "REPLICATION"]))).toBe("paused: REPLICATION, RETENTION");
  });
});
