// The pure mappings of the per-Harbor kinds: HarborGarbageCollection and HarborAuditLogPurge (what
// of Harbor's schedule is compared, the requests sent, the newest run in status) and
// HarborJobService (which listed queues change, what status shows), plus the release check that
// keeps the 2.12 purge parameters away from Harbor 2.13; then their external clients with Harbor
// faked: the tenancy check, what "exists" means, the claim, and what deletion sends.
import { describe, expect, test } from "vitest";
import { HarborAuditLogPurgeSpec } from "../../../src/api/audit-log-purge.ts";
import { HarborGarbageCollectionSpec } from "../../../src/api/garbage-collection.ts";
import { HarborJobServiceSpec } from "../../../src/api/job-service.ts";
import { auditLogPurgeExternal } from "../../../src/controllers/audit-log-purge/external.ts";
import * as purge from "../../../src/controllers/audit-log-purge/mapping.ts";
import { garbageCollectionExternal } from "../../../src/controllers/garbage-collection/external.ts";
import * as gc from "../../../src/controllers/garbage-collection/mapping.ts";
import { jobServiceExternal } from "../../../src/controllers/job-service/external.ts";
import * as jobs from "../../../src/controllers/job-service/mapping.ts";
import { followDelayMs } from "../../../src/controllers/shared/executions.ts";
import { Stalled } from "../../../src/runtime/managed.ts";
import { fakeHarborCalls, handle, inputOf, tenantConnection } from "./fakes.ts";

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

  test("up to 10 workers (2.13's limit; above 5 on 2.12 is refused before, see release-fields)", () => {
    const ten = gcSpec({ workers: 10 });
    expect(gc.scheduleRequest(ten).parameters).toEqual({ delete_untagged: false, workers: 10 });
    expect(
      gc.diff(ten, {
        schedule: gc.scheduleFrom(gcSchedule({ params: { delete_untagged: false, workers: 10 } })),
      }),
    ).toEqual([]);
    expect(
      gc.diff(ten, {
        schedule: gc.scheduleFrom(gcSchedule({ params: { delete_untagged: false, workers: 5 } })),
      }),
    ).toEqual(["workers"]);
    expect(HarborGarbageCollectionSpec.safeParse({ connectionRef: { name: "h" }, workers: 11 }).success).toBe(
      false,
    );
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
    // A Harbor that does not name its release is taken as the newest known.
    [undefined, "of a release it does not name"],
    ["unknown", "unknown"],
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

// ---------------------------------------------------------------------------------------------
// The external clients, Harbor faked

/** A system job's schedule API (client.gc, client.purge) holding `schedule`, every call written down. */
function scheduleApi(calls: string[], schedule?: object) {
  let held = schedule;
  return {
    getSchedule: async () => {
      calls.push("getSchedule");
      return held;
    },
    updateSchedule: async (req: { schedule: { type: string } }) => {
      calls.push(`updateSchedule ${JSON.stringify(req)}`);
      if (req.schedule.type === "None") held = undefined;
    },
    listHistory: async () => {
      calls.push("listHistory");
      return [];
    },
  };
}

const deps = { kube: {}, events: {}, type: {} } as unknown as Parameters<typeof garbageCollectionExternal>[0];

/** What these cases call of an external client, whichever kind's spec it takes. */
interface AnyScheduleClient {
  prepare(input: unknown): Promise<unknown>;
  observe(input: unknown): Promise<unknown>;
  create(input: unknown): Promise<unknown>;
  delete(input: unknown, current: unknown): Promise<unknown>;
  describe?(observed: unknown): string;
  claim(spec: unknown, harborName: string, namespace: string): string;
}

const scheduleKinds = [
  {
    kind: "HarborGarbageCollection",
    external: () => garbageCollectionExternal(deps) as unknown as AnyScheduleClient,
    api: "gc",
    spec: gcSpec as (o?: object) => unknown,
    setting: "the garbage-collection schedule",
    claim: "gc-schedule",
    none: { schedule: { type: "None" } },
  },
  {
    kind: "HarborAuditLogPurge",
    external: () => auditLogPurgeExternal(deps) as unknown as AnyScheduleClient,
    api: "purge",
    spec: purgeSpec as (o?: object) => unknown,
    setting: "the audit-log purge",
    claim: "audit-log-purge",
    // Harbor 2.12 refuses a purge request without its parameters, None included.
    none: {
      schedule: { type: "None" },
      parameters: { audit_retention_hour: 168, include_operations: "create,delete,pull", dry_run: false },
    },
  },
] as const;

describe.each(scheduleKinds)("$kind against Harbor", (k) => {
  const someoneElses = gcSchedule({ type: "Daily", cron: "0 0 4 * * *" });

  test("through a ClusterHarborConnection, only a tenancy with allowSystemSettings may manage it; before any call", async () => {
    const calls: string[] = [];
    const client = fakeHarborCalls({ [k.api]: scheduleApi(calls) });
    const refused = await k
      .external()
      .prepare(inputOf(k.spec(), { conn: tenantConnection({ allowSystemSettings: false }, client) }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Stalled);
    expect(refused).toMatchObject({
      reason: "NotAllowed",
      message: `not allowed: ClusterHarborConnection shared does not let namespace team manage ${k.setting}, which every tenant of this Harbor shares (spec.tenancy.allowSystemSettings)`,
    });
    await k
      .external()
      .prepare(inputOf(k.spec(), { conn: tenantConnection({ allowSystemSettings: true }, client) }));
    await k.external().prepare(inputOf(k.spec(), { conn: handle(client) }));
    expect(calls).toEqual([]);
  });

  test("exists when Harbor has a schedule: none is nothing to take; one someone set is named", async () => {
    const calls: string[] = [];
    const ext = k.external();
    const empty = fakeHarborCalls({ [k.api]: scheduleApi(calls) });
    expect(await ext.observe(inputOf(k.spec(), { conn: handle(empty) }))).toBeUndefined();
    const set = fakeHarborCalls({ [k.api]: scheduleApi(calls, someoneElses) });
    const found = await ext.observe(inputOf(k.spec(), { conn: handle(set) }));
    expect(found).toBeDefined();
    expect(ext.describe?.(found)).toBe("schedule Daily, 0 0 4 * * *");
  });

  test("one per Harbor: the same claim whatever the spec", () => {
    const ext = k.external();
    expect(ext.claim(k.spec(), "a", "team")).toBe(k.claim);
    expect(ext.claim(k.spec({ schedule: { type: "Weekly" } }), "b", "other")).toBe(k.claim);
  });

  test("deletion sets type None when Harbor has a schedule, and sends nothing when it has none", async () => {
    const calls: string[] = [];
    const ext = k.external();
    const client = fakeHarborCalls({ [k.api]: scheduleApi(calls, someoneElses) });
    const input = inputOf(k.spec(), { conn: handle(client), knownId: 0 });
    const current = await ext.observe(input);
    calls.length = 0;
    await ext.delete(input, current);
    expect(calls).toEqual([`updateSchedule ${JSON.stringify(k.none)}`]);
    calls.length = 0;
    await ext.delete(input, { schedule: undefined });
    expect(calls).toEqual([]);
  });

  test("a spec of type None on a Harbor without a schedule writes nothing", async () => {
    const calls: string[] = [];
    const client = fakeHarborCalls({ [k.api]: scheduleApi(calls) });
    await k.external().create(inputOf(k.spec({ schedule: { type: "None" } }), { conn: handle(client) }));
    expect(calls.filter((c) => c.startsWith("update"))).toEqual([]);
  });
});

describe("HarborAuditLogPurge against Harbor 2.13", () => {
  test("refused by name before any purge call (UnsupportedByHarbor)", async () => {
    const calls: string[] = [];
    const client = fakeHarborCalls({ purge: scheduleApi(calls) });
    const refused = await auditLogPurgeExternal(deps)
      .prepare(inputOf(purgeSpec(), { conn: handle(client, { harborVersion: "v2.13.0-6e3a4b2c" }) }))
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: "UnsupportedByHarbor" });
    expect((refused as Error).message).toContain("this Harbor is v2.13.0-6e3a4b2c");
    expect(calls).toEqual([]);
  });
});

describe("HarborJobService against Harbor", () => {
  const listed = (paused: Record<string, boolean>) =>
    HarborJobServiceSpec.parse({
      ...conn,
      queues: Object.entries(paused).map(([jobType, p]) => ({ jobType, paused: p })),
    });
  /** Harbor's job service with these queues paused, every pause and resume written down. */
  const jobService = (calls: string[], paused: string[]) => {
    const state = new Set(paused);
    return fakeHarborCalls({
      jobService: {
        listQueues: async () =>
          ["GARBAGE_COLLECTION", "REPLICATION", "RETENTION", "SCHEDULER", "WEBHOOK"].map((t) => ({
            job_type: t,
            paused: state.has(t),
          })),
        listPools: async () => [{ worker_pool_id: "p1", concurrency: 10 }],
        listWorkers: async () => [],
        actOnQueue: async (jobType: string, action: string) => {
          calls.push(`${action} ${jobType}`);
          if (action === "pause") state.add(jobType);
          else state.delete(jobType);
        },
      },
    });
  };

  test("through a ClusterHarborConnection, only a tenancy with allowSystemSettings may manage the queues", async () => {
    const spec = listed({ RETENTION: true });
    const client = jobService([], []);
    const refused = await jobServiceExternal()
      .prepare(inputOf(spec, { conn: tenantConnection({ allowSystemSettings: false }, client) }))
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({
      reason: "NotAllowed",
      message:
        "not allowed: ClusterHarborConnection shared does not let namespace team manage the job queues, which every tenant of this Harbor shares (spec.tenancy.allowSystemSettings)",
    });
    await jobServiceExternal().prepare(
      inputOf(spec, { conn: tenantConnection({ allowSystemSettings: true }, client) }),
    );
  });

  test("exists when a listed queue is paused: none paused is nothing to take; someone else's pause is named", async () => {
    const ext = jobServiceExternal();
    const spec = listed({ WEBHOOK: true });
    expect(
      await ext.observe(inputOf(spec, { conn: handle(jobService([], ["REPLICATION"])) })),
    ).toBeUndefined();
    const found = await ext.observe(inputOf(spec, { conn: handle(jobService([], ["WEBHOOK"])) }));
    expect(ext.describe?.(found as never)).toBe("paused: WEBHOOK");
    expect(ext.claim(spec, "x", "team")).toBe("job-service");
    expect(ext.claim(listed({ RETENTION: false }), "y", "other")).toBe("job-service");
  });

  test("a listed job type Harbor does not list stalls (UnknownJobType), naming it and Harbor's queues", async () => {
    const refused = await jobServiceExternal()
      .observe(inputOf(listed({ REPLICATON: true }), { conn: handle(jobService([], [])), knownId: 0 }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Stalled);
    expect(refused).toMatchObject({
      reason: "UnknownJobType",
      message:
        'spec.queues: "REPLICATON" is not a queue of this Harbor; it lists GARBAGE_COLLECTION, REPLICATION, RETENTION, SCHEDULER, WEBHOOK',
    });
  });

  test("deletion resumes the listed queues it keeps paused, and no other", async () => {
    const calls: string[] = [];
    const ext = jobServiceExternal();
    const client = jobService(calls, ["REPLICATION", "SCHEDULER", "WEBHOOK"]);
    const input = inputOf(listed({ REPLICATION: true, SCHEDULER: false, RETENTION: true }), {
      conn: handle(client),
      knownId: 0,
    });
    await ext.delete(input, (await ext.observe(input)) as never);
    expect(calls).toEqual(["resume REPLICATION"]);
  });
});
