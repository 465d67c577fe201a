// Audit-log purge through the client against the emulator: Harbor 2.12's required parameters (also
// for None), manual runs that really purge the audit log (by age and operation, or only count on a
// dry run) and show their end after Harbor's lag, the schedule (a bad cron leaves none), stop, logs,
// history with q and limit, and the scheduler: a purge schedule waits while SCHEDULER is paused.
// On Harbor 2.12.4: what to purge is include_operations up to 2.12; from 2.13 it is
// include_event_types, and versions.test.ts holds the two side by side.
import { beforeAll, describe, expect, test } from "vitest";
import { q } from "../../../src/harbor/query.ts";
import { firstError, harborError, harborFailure, useEmulator } from "../../env/harbor.ts";

const h = useEmulator({ harborVersion: "2.12.4" });
// Runs are looked at before their planned end: the world's time moves only when advanced.
beforeAll(() => h.emulator.control.clock.freeze());
const purge = () => h.emulator.control.purge;
const advance = (ms: number) => h.emulator.control.clock.advance(ms);
const LAG = 25_000;
const HOUR = 3_600_000;
const params = { audit_retention_hour: 24, include_operations: "create,delete,pull", dry_run: false };

describe("what every request must carry", () => {
  test.each([
    [{ schedule: { type: "None" }, parameters: {} }, "schedule parameter cann't be empty"],
    [{ schedule: { type: "None" }, parameters: { dry_run: true } }, "audit_retention_hour should provide"],
    [
      { schedule: { type: "None" }, parameters: { audit_retention_hour: 1 } },
      "include_operations should provide",
    ],
    [{ parameters: params }, "schedule cann't be empty"],
  ])("%j → 400 %s", async (body, message) => {
    for (const method of ["POST", "PUT"]) {
      const res = await h.api("/system/purgeaudit/schedule", { method, body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect(await firstError(res)).toEqual({ code: "BAD_REQUEST", message });
    }
  });

  test("a retention that is not a whole number: the client refuses it; Harbor answers 400", async () => {
    expect(() =>
      h.admin.purge.updateSchedule({
        schedule: { type: "Manual" },
        parameters: { ...params, audit_retention_hour: 1.5 },
      }),
    ).toThrow(/expected int/);
    const res = await h.api("/system/purgeaudit/schedule", {
      method: "PUT",
      body: JSON.stringify({
        schedule: { type: "Manual" },
        parameters: { ...params, audit_retention_hour: 1.5 },
      }),
    });
    expect(res.status).toBe(400);
    expect((await firstError(res)).message).toMatch(/^failed to convert audit_retention_hour/);
  });
});

describe("manual runs", () => {
  test("Manual starts a run that purges old records of the given operations, after Harbor's lag shows Success", async () => {
    const audit = h.emulator.world.audit;
    // Records of three days ago (two old creates, one old update), and a fresh one.
    audit.record({
      project_id: 0,
      username: "a",
      resource: "x",
      resource_type: "project",
      operation: "create",
    });
    audit.record({
      project_id: 0,
      username: "a",
      resource: "y",
      resource_type: "project",
      operation: "create",
    });
    audit.record({
      project_id: 0,
      username: "a",
      resource: "z",
      resource_type: "project",
      operation: "update",
    });
    advance(72 * HOUR);
    audit.record({
      project_id: 0,
      username: "a",
      resource: "w",
      resource_type: "project",
      operation: "create",
    });
    const total = audit.all().length;

    const res = await h.api("/system/purgeaudit/schedule", {
      method: "POST",
      body: JSON.stringify({ schedule: { type: "Manual" }, parameters: params }),
    });
    expect(res.status).toBe(201);
    const id = Number(res.headers.get("location")?.match(/^\/api\/v2\.0\/system\/purgeaudit\/(\d+)$/)?.[1]);
    expect(id).toBeGreaterThan(0);
    const running = await h.admin.purge.get(id);
    expect(running).toMatchObject({
      id,
      job_name: "PURGE_AUDIT",
      job_kind: "MANUAL",
      job_status: "Running",
      schedule: { type: "Manual" },
    });
    expect(running.job_parameters).toBe(
      '{"audit_retention_hour":24,"dry_run":false,"include_operations":"create,delete,pull"}',
    );
    // The log is 404 until the job has run.
    await expect(h.admin.purge.getLog(id)).rejects.toMatchObject(harborError(404, "object is not found"));

    advance(1_000);
    const log = await h.admin.purge.getLog(id);
    expect(log).toContain("Purged 2 rows of audit logs");
    // The update (not an operation the purge takes) and everything newer stay.
    expect(audit.all().length).toBe(total - 2 + 1); // + the POST's own record
    expect((await h.admin.purge.get(id)).job_status).toBe("Running");
    advance(LAG);
    const done = await h.admin.purge.get(id);
    expect(done.job_status).toBe("Success");
    expect(Date.parse(done.update_time as string) - Date.parse(done.creation_time as string)).toBe(
      1_000 + LAG,
    );
  });

  test("a dry run only counts; 0 hours ends the job without purging", async () => {
    const audit = h.emulator.world.audit;
    audit.record({
      project_id: 0,
      username: "a",
      resource: "p",
      resource_type: "artifact",
      operation: "pull",
    });
    advance(2 * HOUR);
    const before = audit.all().length;
    const dry = await h.admin.purge.createSchedule({
      schedule: { type: "Manual" },
      parameters: { audit_retention_hour: 1, include_operations: "pull", dry_run: true },
    });
    const zero = await h.admin.purge.createSchedule({
      schedule: { type: "Manual" },
      parameters: { audit_retention_hour: 0, include_operations: "pull" },
    });
    advance(1_000);
    expect(await h.admin.purge.getLog(dry)).toMatch(/\[DRYRUN\]Purged [1-9]\d* rows of audit logs/);
    expect(await h.admin.purge.getLog(zero)).toContain("quit purge job, retentionHour:0");
    expect(audit.all().length).toBe(before + 2);
    advance(LAG);
  });

  test("stop: a running purge ends Stopped at once; unknown ids as Harbor answers them", async () => {
    purge().plan({ durationMs: 60_000 });
    const id = await h.admin.purge.createSchedule({ schedule: { type: "Manual" }, parameters: params });
    await h.admin.purge.stop(id);
    expect((await h.admin.purge.get(id)).job_status).toBe("Stopped");
    await h.admin.purge.stop(id);
    await expect(h.admin.purge.stop(99999)).rejects.toMatchObject(
      harborError(404, "execution 99999 not found"),
    );
    await expect(h.admin.purge.getLog(99999)).rejects.toMatchObject({
      status: 404,
      harborMessage: "purge job with execution ID: 99999 taskLog is not found",
    });
    // The handler dereferences the missing execution: a masked 500.
    const res = await h.api("/system/purgeaudit/99999");
    expect(res.status).toBe(500);
  });

  test("history: newest first, limit reads one page of one, q by status", async () => {
    const a = await h.admin.purge.createSchedule({ schedule: { type: "Manual" }, parameters: params });
    advance(1_000);
    const b = await h.admin.purge.createSchedule({ schedule: { type: "Manual" }, parameters: params });
    const newest = await h.admin.purge.listHistory({ limit: 1 });
    expect(newest.map((r) => r.id)).toEqual([b]);
    const all = await h.admin.purge.listHistory();
    expect(all.map((r) => r.id).slice(0, 2)).toEqual([b, a]);
    advance(1_000 + LAG);
    const done = await h.admin.purge.listHistory({ q: q().exact("status", "Success") });
    expect(done.map((r) => r.id)).toEqual(expect.arrayContaining([a, b]));
  });
});

describe("schedule", () => {
  test("none: 200 with an empty body, read as undefined", async () => {
    const res = await h.api("/system/purgeaudit/schedule");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expect(await h.admin.purge.getSchedule()).toBeUndefined();
  });

  test("a cron type sets it (Location …/0); GET shows type, cron, next time and the parameters as sent", async () => {
    const res = await h.api("/system/purgeaudit/schedule", {
      method: "POST",
      body: JSON.stringify({ schedule: { type: "Daily", cron: "0 0 3 * * *" }, parameters: params }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe("/api/v2.0/system/purgeaudit/0");
    const s = await h.admin.purge.getSchedule();
    expect(s).toMatchObject({
      job_kind: "0 0 3 * * *",
      schedule: { type: "Daily", cron: "0 0 3 * * *" },
    });
    expect(JSON.parse(s?.job_parameters as string)).toEqual(params);
    expect(Date.parse(s?.schedule?.next_scheduled_time as string)).toBeGreaterThan(
      h.emulator.control.clock.now(),
    );
  });

  test("a bad cron is refused, and the old schedule is gone all the same (Harbor deletes it first)", async () => {
    await h.admin.purge.updateSchedule({
      schedule: { type: "Hourly", cron: "0 0 * * * *" },
      parameters: params,
    });
    const e = await harborFailure(
      h.admin.purge.updateSchedule({ schedule: { type: "Custom", cron: "5 0 * * * *" }, parameters: params }),
    );
    expect(e).toMatchObject({ status: 400 });
    expect(e.harborMessage).toMatch(/^invalid cron 5 0 \* \* \* \*: /);
    expect(await h.admin.purge.getSchedule()).toBeUndefined();
    const empty = await harborFailure(
      h.admin.purge.updateSchedule({ schedule: { type: "Daily" }, parameters: params }),
    );
    expect(empty.harborMessage).toBe("empty cron string for schedule");
  });

  test("None deletes it; Schedule does nothing", async () => {
    await h.admin.purge.updateSchedule({
      schedule: { type: "Daily", cron: "0 0 0 * * *" },
      parameters: params,
    });
    await h.admin.purge.updateSchedule({ schedule: { type: "Schedule" }, parameters: params });
    expect((await h.admin.purge.getSchedule())?.schedule?.type).toBe("Daily");
    await h.admin.purge.updateSchedule({ schedule: { type: "None" }, parameters: params });
    expect(await h.admin.purge.getSchedule()).toBeUndefined();
  });

  test("the schedule fires on its time, with its parameters; while SCHEDULER is paused it waits in that queue", async () => {
    await h.admin.purge.updateSchedule({
      schedule: { type: "Hourly", cron: "0 0 * * * *" },
      parameters: { ...params, dry_run: true },
    });
    const fired = () =>
      purge()
        .runs()
        .filter((r) => r.trigger === "SCHEDULE");
    const before = fired().length;
    advance(HOUR);
    expect(fired()).toHaveLength(before + 1);
    expect(fired().at(-1)?.parameters).toMatchObject({ dry_run: true, audit_retention_hour: 24 });

    await h.admin.jobService.actOnQueue("SCHEDULER", "pause");
    advance(HOUR);
    expect(fired()).toHaveLength(before + 1);
    const scheduler = (await h.admin.jobService.listQueues()).find((x) => x.job_type === "SCHEDULER");
    expect(scheduler).toMatchObject({ paused: true, count: 1 });
    await h.admin.jobService.actOnQueue("SCHEDULER", "resume");
    expect(fired()).toHaveLength(before + 2);
    await h.admin.purge.updateSchedule({ schedule: { type: "None" }, parameters: params });
    advance(2_000 + LAG);
  });
});
