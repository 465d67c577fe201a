// The pure mappings of the per-Harbor kinds: HarborGarbageCollection and HarborAuditLogPurge (what
// of Harbor's schedule is compared, the requests sent, the newest run in status) and
// HarborJobService (which listed queues change, what status shows), plus what a purge removes on
// each release (operations up to 2.12, event types Harbor lists from 2.13, a spec of the other
// release refused by name); then their external clients with Harbor faked: the tenancy check, what
// "exists" means, the claim, and what deletion sends.
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
import { harborRelease } from "../../../src/controllers/shared/harbor-release.ts";
import { HarborError } from "../../../src/harbor/errors.ts";
import { Stalled } from "../../../src/runtime/external-client.ts";
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

/** The release a connection reports, as the kinds read it. */
const release = (version: string) => harborRelease({ harborVersion: version });
const V2_12 = release("v2.12.4-e12a4c0e");
const V2_15 = release("v2.15.2-e15a2c0e");
/** GET /auditlog-exts/events of 2.13 to 2.15, in Harbor's order. */
const EVENT_TYPES = [
  "create_artifact",
  "delete_artifact",
  "pull_artifact",
  "create_project",
  "delete_project",
  "delete_repository",
  "login_user",
  "logout_user",
  "create_user",
  "delete_user",
  "update_user",
  "create_robot",
  "delete_robot",
  "update_configuration",
];
const OPERATIONS = { key: "include_operations", field: "includeOperations" } as const;
const EVENTS = { key: "include_event_types", field: "includeEventTypes" } as const;

describe("HarborAuditLogPurge", () => {
  const stored = (params: object, type = "Daily", cron = "0 0 0 * * *") => ({
    job_kind: cron,
    job_parameters: JSON.stringify(params),
    schedule: { type, cron, next_scheduled_time: "2030-01-02T00:00:00.000Z" },
  });
  const params = { audit_retention_hour: 168, include_operations: "create,delete,pull", dry_run: false };
  const all = { ...OPERATIONS, names: ["create", "delete", "pull"] };

  test("parameters are compared as Harbor shows them; the order of operations does not matter", () => {
    const observed = {
      schedule: purge.scheduleFrom(stored({ ...params, include_operations: "pull, Create,delete" })),
    };
    expect(purge.diff(purgeSpec(), observed, all)).toEqual([]);
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
    expect(purge.diff(purgeSpec(), observed, all)).toEqual([
      "schedule.type",
      "schedule.cron",
      "retentionHours",
      "includeOperations",
      "dryRun",
    ]);
  });

  test("every request carries the retention and what to purge in the release's key, None included", () => {
    const spec = purgeSpec({ includeOperations: ["pull", "create"], dryRun: true });
    const p = { audit_retention_hour: 168, include_operations: "create,pull", dry_run: true };
    const target = { ...OPERATIONS, names: ["create", "pull"] };
    expect(purge.scheduleRequest(spec, target)).toEqual({
      schedule: { type: "Daily", cron: "0 0 0 * * *" },
      parameters: p,
    });
    expect(purge.noScheduleRequest(spec, target)).toEqual({ schedule: { type: "None" }, parameters: p });
    expect(purge.runRequest(spec, target)).toEqual({ schedule: { type: "Manual" }, parameters: p });
    const events = { ...EVENTS, names: ["create_artifact", "pull_artifact"] };
    expect(purge.scheduleRequest(purgeSpec(), events).parameters).toEqual({
      audit_retention_hour: 168,
      include_event_types: "create_artifact,pull_artifact",
      dry_run: false,
    });
  });

  // What a purge removes, by release: [what, release, spec fields, target or refusal].
  test.each([
    ["2.12, unset: all three operations", V2_12, {}, { ...OPERATIONS, names: ["create", "delete", "pull"] }],
    ["2.12, operations", V2_12, { includeOperations: ["pull"] }, { ...OPERATIONS, names: ["pull"] }],
    [
      "2.12, event types: refused, naming the release that has them and what to write",
      V2_12,
      { includeEventTypes: ["pull_artifact"] },
      {
        reason: "UnsupportedByHarbor",
        message:
          "spec.includeEventTypes needs Harbor 2.13 or later; this Harbor is v2.12.4-e12a4c0e, which purges by operation: write includeOperations (create, delete, pull) instead, or leave both out for all three",
      },
    ],
    ["2.15, unset: every event type Harbor lists", V2_15, {}, { ...EVENTS, names: [...EVENT_TYPES].sort() }],
    [
      "2.15, event types",
      V2_15,
      { includeEventTypes: ["pull_artifact", "delete_artifact"] },
      { ...EVENTS, names: ["delete_artifact", "pull_artifact"] },
    ],
    [
      "2.15, operations: refused, never sent as event types; the operations' event types suggested",
      V2_15,
      { includeOperations: ["delete", "pull"] },
      {
        reason: "UnsupportedByHarbor",
        message:
          "spec.includeOperations (delete, pull) is what Harbor 2.12 purges by; Harbor 2.13 and later purge by event type; this Harbor is v2.15.2-e15a2c0e: write includeEventTypes instead (these operations' event types are delete_artifact, delete_project, delete_repository, delete_robot, delete_user, pull_artifact), or leave both out for every event type Harbor lists",
      },
    ],
    [
      "2.15, a name Harbor does not list: refused, naming it and Harbor's list",
      V2_15,
      { includeEventTypes: ["create_artifact", "push_artifact"] },
      {
        reason: "UnknownEventType",
        message: `spec.includeEventTypes: "push_artifact" is not an event type of this Harbor; it lists ${EVENT_TYPES.join(", ")}`,
      },
    ],
    [
      "a release that names none (a dev build) is the newest known: unset, every event type listed",
      release("dev"),
      {},
      { ...EVENTS, names: [...EVENT_TYPES].sort() },
    ],
    [
      "a release that names none, operations: refused as on 2.15",
      release(""),
      { includeOperations: ["pull"] },
      {
        reason: "UnsupportedByHarbor",
        message:
          "spec.includeOperations (pull) is what Harbor 2.12 purges by; Harbor 2.13 and later purge by event type; this Harbor is of a release it does not name: write includeEventTypes instead (these operations' event types are pull_artifact), or leave both out for every event type Harbor lists",
      },
    ],
  ])("%s", (_what, rel, fields, want) => {
    const listed = rel === V2_12 ? undefined : EVENT_TYPES;
    const got = purge.purgeTarget(purgeSpec(fields), rel, listed);
    expect(got).toEqual("reason" in want ? { refused: want } : { target: want });
  });

  test("a resource being deleted is never refused: its None request carries the release's key", () => {
    const deleting = { deleting: true };
    expect(
      purge.purgeTarget(purgeSpec({ includeOperations: ["pull"] }), V2_15, EVENT_TYPES, deleting),
    ).toEqual({
      target: { ...EVENTS, names: [...EVENT_TYPES].sort() },
    });
    expect(
      purge.purgeTarget(purgeSpec({ includeEventTypes: ["pull_artifact"] }), V2_12, undefined, deleting),
    ).toEqual({ target: { ...OPERATIONS, names: ["create", "delete", "pull"] } });
  });

  test("2.13 on: include_event_types compared as a set; a schedule stored with 2.12's key is drift", () => {
    const target = { ...EVENTS, names: ["delete_artifact", "pull_artifact"] };
    const spec = purgeSpec({ includeEventTypes: ["pull_artifact", "delete_artifact"] });
    const events = (text: string) => ({
      schedule: purge.scheduleFrom(
        stored({ audit_retention_hour: 168, include_event_types: text, dry_run: false }),
      ),
    });
    expect(purge.diff(spec, events("pull_artifact, delete_artifact"), target)).toEqual([]);
    expect(purge.diff(spec, events("pull_artifact"), target)).toEqual(["includeEventTypes"]);
    expect(purge.diff(spec, { schedule: purge.scheduleFrom(stored(params)) }, target)).toEqual([
      "includeEventTypes",
    ]);
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
/** client.auditLogs with Harbor's event-type list, or, without one, a release that has no such route. */
function auditLogsApi(calls: string[], eventTypes?: string[]) {
  return {
    eventTypes: async () => {
      calls.push("eventTypes");
      if (!eventTypes)
        throw new HarborError({
          operation: "listAuditLogEventTypes",
          kind: "notFound",
          harborMessage: "path /api/v2.0/auditlog-exts/events was not found",
          requestId: "r1",
        });
      return eventTypes;
    },
  };
}

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
    const base = inputOf(k.spec(), { conn: handle(client), knownId: 0 });
    const input = { ...base, extra: await ext.prepare(base) };
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

describe("HarborAuditLogPurge against Harbor 2.13 and later", () => {
  const on = (version: string, calls: string[], schedule?: object) =>
    handle(
      fakeHarborCalls({ purge: scheduleApi(calls, schedule), auditLogs: auditLogsApi(calls, EVENT_TYPES) }),
      {
        harborVersion: version,
      },
    );
  const ext = () => auditLogPurgeExternal(deps) as unknown as AnyScheduleClient;
  const deleting = {
    metadata: { name: "res", namespace: "team", deletionTimestamp: "2030-01-01T00:00:00Z" },
  };

  test("event types are checked against Harbor's list and sent as include_event_types", async () => {
    const calls: string[] = [];
    const conn = on("v2.15.2-e15a2c0e", calls);
    const spec = purgeSpec({ includeEventTypes: ["pull_artifact", "create_artifact"] });
    const base = inputOf(spec, { conn });
    const extra = await ext().prepare(base);
    await ext().create({ ...base, extra });
    expect(calls.filter((c) => !c.startsWith("get") && c !== "listHistory")).toEqual([
      "eventTypes",
      `updateSchedule ${JSON.stringify({
        schedule: { type: "Daily", cron: "0 0 0 * * *" },
        parameters: {
          audit_retention_hour: 168,
          include_event_types: "create_artifact,pull_artifact",
          dry_run: false,
        },
      })}`,
    ]);
  });

  test.each([
    [
      "v2.13.5-e13a5c0e",
      { includeOperations: ["create"] },
      "UnsupportedByHarbor",
      "write includeEventTypes instead",
    ],
    [
      "v2.15.2-e15a2c0e",
      { includeEventTypes: ["create"] },
      "UnknownEventType",
      '"create" is not an event type',
    ],
  ])("Harbor %s, spec %j: Stalled (%s) before any write", async (version, fields, reason, says) => {
    const calls: string[] = [];
    const refused = await ext()
      .prepare(inputOf(purgeSpec(fields), { conn: on(version, calls) }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Stalled);
    expect(refused).toMatchObject({ reason });
    expect((refused as Error).message).toContain(says);
    expect(calls).toEqual(["eventTypes"]);
  });

  test("deleting a resource written for 2.12 removes the schedule with include_event_types, never the old words", async () => {
    const calls: string[] = [];
    const held = gcSchedule({
      params: { audit_retention_hour: 168, include_event_types: "create_artifact" },
    });
    const base = inputOf(purgeSpec({ includeOperations: ["create"] }), {
      conn: on("v2.15.2-e15a2c0e", calls, held),
      knownId: 0,
      resource: deleting,
    });
    const input = { ...base, extra: await ext().prepare(base) };
    await ext().delete(input, await ext().observe(input));
    const none = calls.find((c) => c.startsWith("updateSchedule"));
    expect(none).toBe(
      `updateSchedule ${JSON.stringify({
        schedule: { type: "None" },
        parameters: {
          audit_retention_hour: 168,
          include_event_types: [...EVENT_TYPES].sort().join(","),
          dry_run: false,
        },
      })}`,
    );
  });

  test("an unknown release with event types that has no event-type list (2.12): refused by name", async () => {
    const calls: string[] = [];
    const conn = handle(fakeHarborCalls({ purge: scheduleApi(calls), auditLogs: auditLogsApi(calls) }), {
      harborVersion: "",
    });
    const refused = await ext()
      .prepare(inputOf(purgeSpec({ includeEventTypes: ["pull_artifact"] }), { conn }))
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: "UnsupportedByHarbor" });
    expect((refused as Error).message).toContain("spec.includeEventTypes needs Harbor 2.13 or later");
  });

  test("on 2.12 no event types are read, and event types are refused before any call", async () => {
    const calls: string[] = [];
    const conn = on("v2.12.4-e12a4c0e", calls);
    expect(await ext().prepare(inputOf(purgeSpec(), { conn }))).toEqual({
      ...OPERATIONS,
      names: ["create", "delete", "pull"],
    });
    const refused = await ext()
      .prepare(inputOf(purgeSpec({ includeEventTypes: ["pull_artifact"] }), { conn }))
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: "UnsupportedByHarbor" });
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
