// Garbage collection: manual runs that progress on the world clock to their planned end (Running for
// 25 s more after the job, as Harbor 2.12.4 shows them), stop, logs; the schedule (cron types replace it, None deletes it, an empty body when there is none) and
// the runs it fires; Harbor's parameter and cron validation; history paging, q and order.
import { beforeAll, describe, expect, test } from "vitest";
import { q } from "../../../src/harbor/query.ts";
import { firstError, harborError, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();
const gc = () => h.emulator.control.gc;
const advance = (ms: number) => h.emulator.control.clock.advance(ms);
// Runs are looked at just before their planned end: the world's time moves only when advanced.
beforeAll(() => h.emulator.control.clock.freeze());
/** A run's job plus the 25 s Harbor 2.12.4 still shows it Running afterwards. */
const LAG = 25_000;

const manual = (parameters: Record<string, unknown> = {}) =>
  h.api("/system/gc/schedule", {
    method: "POST",
    body: JSON.stringify({ schedule: { type: "Manual" }, parameters }),
  });

describe("manual runs", () => {
  test("Manual starts a run: 201, Location /api/v2.0/system/gc/<id>, Running until its planned end", async () => {
    const res = await manual({ delete_untagged: true, workers: 3 });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe("");
    const id = Number(res.headers.get("location")?.match(/^\/api\/v2\.0\/system\/gc\/(\d+)$/)?.[1]);
    expect(id).toBeGreaterThan(0);

    const running = await h.admin.gc.get(id);
    expect(running).toMatchObject({
      id,
      job_name: "GARBAGE_COLLECTION",
      job_kind: "MANUAL",
      job_status: "Running",
      schedule: { type: "Manual", next_scheduled_time: "0001-01-01T00:00:00.000Z" },
    });
    // Parameters are a JSON string, keys in Go's sorted order, with what the server adds.
    expect(running.job_parameters).toBe(
      '{"delete_untagged":true,"dry_run":false,"redis_url_reg":"redis://redis:6379/1?idle_timeout_seconds=30","time_window":2,"workers":3}',
    );
    expect(running.deleted).toBeUndefined();

    // The job is done after 2 s, but core shows the run as Running for another 25 s.
    advance(2_000);
    expect((await h.admin.gc.get(id)).job_status).toBe("Running");
    advance(LAG - 1_000);
    expect((await h.admin.gc.get(id)).job_status).toBe("Running");
    advance(1_000);
    const done = await h.admin.gc.get(id);
    expect(done.job_status).toBe("Success");
    expect(Date.parse(done.update_time as string) - Date.parse(done.creation_time as string)).toBe(
      2_000 + LAG,
    );
    // Only now do the parameters carry what the job removed.
    expect(JSON.parse(done.job_parameters as string)).toEqual({
      delete_untagged: true,
      dry_run: false,
      freed_space: 0,
      purged_blobs: 0,
      purged_manifests: 0,
      redis_url_reg: "redis://redis:6379/1?idle_timeout_seconds=30",
      time_window: 2,
      workers: 3,
    });
    expect(done.job_parameters).toMatch(/^\{"delete_untagged":true,"dry_run":false,"freed_space":0,/);
  });

  test("what a planned job removed reaches job_parameters with the final status, not before", async () => {
    gc().plan({ durationMs: 1_000, freedSpace: 5 * 1024 * 1024, purgedBlobs: 7, purgedManifests: 2 });
    const id = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    advance(1_000);
    expect((await h.admin.gc.get(id)).job_parameters).not.toContain("freed_space");
    expect(await h.admin.gc.getLog(id)).toContain("7 blobs and 2 manifests are actually deleted");
    advance(LAG);
    const done = await h.admin.gc.get(id);
    expect(done.job_status).toBe("Success");
    expect(JSON.parse(done.job_parameters as string)).toMatchObject({
      freed_space: 5 * 1024 * 1024,
      purged_blobs: 7,
      purged_manifests: 2,
    });
  });

  test("the client returns the run's id", async () => {
    const id = await h.admin.gc.createSchedule({
      schedule: { type: "Manual" },
      parameters: { dry_run: true },
    });
    expect((await h.admin.gc.get(id)).job_parameters).toContain('"dry_run":true');
    gc().complete(id);
  });

  test("a planned failure ends as Error after the planned time and the lag, without results", async () => {
    gc().plan({ status: "Error", durationMs: 10_000 });
    const id = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    advance(5_000);
    expect((await h.admin.gc.get(id)).job_status).toBe("Running");
    advance(5_000 + LAG);
    const failed = await h.admin.gc.get(id);
    expect(failed.job_status).toBe("Error");
    expect(failed.job_parameters).not.toContain("freed_space");
    expect(await h.admin.gc.getLog(id)).toContain(
      "[ERROR] [/jobservice/job/impl/gc/garbage_collection.go]: failed to start gc as registry controller is unreachable",
    );
  });

  test("the log is 404 'object is not found' until the job has run, then text/plain without a charset", async () => {
    const id = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    const early = await h.api(`/system/gc/${id}/log`);
    expect(early.status).toBe(404);
    expect(await firstError(early)).toEqual({ code: "NOT_FOUND", message: "object is not found" });
    await expect(h.admin.gc.getLog(id)).rejects.toMatchObject({ kind: "notFound" });

    advance(2_000);
    // The job has run; the run itself is still Running.
    expect((await h.admin.gc.get(id)).job_status).toBe("Running");
    const res = await h.api(`/system/gc/${id}/log`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain");
    const text = await res.text();
    expect(text).toContain("start to run gc in job.");
    expect(text).toContain("no need to execute GC as there is no non referenced artifacts.");
    expect(text).toContain("success to run gc in job.");
    advance(LAG);
  });

  test("one GC job at a time: a second run is accepted, waits Running with no log, then runs after the first", async () => {
    gc().plan({ durationMs: 10_000 });
    const first = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    const second = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    expect((await h.admin.gc.get(second)).job_status).toBe("Running");
    const job = (id: number) =>
      gc()
        .runs()
        .find((r) => r.id === id)?.jobStatus;
    expect([job(first), job(second)]).toEqual(["Running", "Pending"]);
    await expect(h.admin.gc.getLog(second)).rejects.toMatchObject({ kind: "notFound" });

    // The first job ends: the second starts on the freed worker, at that moment of world time.
    advance(10_000);
    expect([job(first), job(second)]).toEqual(["Success", "Running"]);
    await expect(h.admin.gc.getLog(second)).rejects.toMatchObject({ kind: "notFound" });
    advance(2_000);
    expect(await h.admin.gc.getLog(second)).toContain("success to run gc in job.");
    advance(LAG);
    const done = await h.admin.gc.get(second);
    expect(done.job_status).toBe("Success");
    // It ends the lag after its job, which started when the first one's ended.
    const firstStart = Date.parse((await h.admin.gc.get(first)).creation_time as string);
    expect(Date.parse(done.update_time as string) - firstStart).toBe(10_000 + 2_000 + LAG);

    // A waiting run can be stopped; it never ran, and the running one goes on.
    gc().plan({ durationMs: 10_000 });
    const long = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    const queued = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    await h.admin.gc.stop(queued);
    expect((await h.admin.gc.get(queued)).job_status).toBe("Stopped");
    await expect(h.admin.gc.getLog(queued)).rejects.toMatchObject({ kind: "notFound" });
    expect(job(long)).toBe("Running");
    advance(10_000 + LAG);
    expect((await h.admin.gc.get(long)).job_status).toBe("Success");
  });

  test("PUT with Manual starts a run too", async () => {
    const before = gc().runs().length;
    await h.admin.gc.updateSchedule({ schedule: { type: "Manual" } });
    expect(gc().runs()).toHaveLength(before + 1);
    advance(2_000);
  });
});

describe("stop", () => {
  test("stops a running GC; stopping it again, or a finished one, changes nothing", async () => {
    gc().plan({ durationMs: 60_000 });
    const id = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    await h.admin.gc.stop(id);
    expect((await h.admin.gc.get(id)).job_status).toBe("Stopped");
    await h.admin.gc.stop(id);
    advance(60_000);
    expect((await h.admin.gc.get(id)).job_status).toBe("Stopped");
    expect(await h.admin.gc.getLog(id)).toContain("received the stop signal, quit GC job.");
  });

  test("once the job has ended, a stop changes nothing: the run still ends Success", async () => {
    const id = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    advance(2_000);
    await h.admin.gc.stop(id);
    expect((await h.admin.gc.get(id)).job_status).toBe("Running");
    advance(LAG);
    expect((await h.admin.gc.get(id)).job_status).toBe("Success");
  });

  test("unknown ids: 404 with Harbor's messages for run, log and stop", async () => {
    await expect(h.admin.gc.get(99999)).rejects.toMatchObject(
      harborError(404, "garbage collection execution 99999 not found"),
    );
    await expect(h.admin.gc.getLog(99999)).rejects.toMatchObject({
      status: 404,
      harborMessage: "garbage collection 99999 log is not found",
    });
    await expect(h.admin.gc.stop(99999)).rejects.toMatchObject({
      status: 404,
      harborMessage: "execution 99999 not found",
    });
  });

  test("a running GC occupies a job service worker; stopping that job stops the GC", async () => {
    gc().plan({ durationMs: 60_000 });
    const id = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    const worker = (await h.admin.jobService.listWorkers("all")).find(
      (w) => w.job_name === "GARBAGE_COLLECTION",
    );
    expect(worker?.job_id).toMatch(/^[0-9a-f]{24}$/);
    await h.admin.jobService.stopJob(worker?.job_id as string);
    expect((await h.admin.gc.get(id)).job_status).toBe("Stopped");
    const after = await h.admin.jobService.listWorkers("all");
    expect(after.some((w) => w.job_name === "GARBAGE_COLLECTION")).toBe(false);
  });
});

describe("schedule", () => {
  test("no schedule: 200 with an empty body, which the client reads as undefined", async () => {
    const res = await h.api("/system/gc/schedule");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expect(await h.admin.gc.getSchedule()).toBeUndefined();
  });

  test("a cron type sets the schedule: Location ends in /0, GET shows cron, type and next time", async () => {
    const res = await h.api("/system/gc/schedule", {
      method: "POST",
      body: JSON.stringify({
        schedule: { type: "Daily", cron: "0 0 3 * * *" },
        parameters: { delete_untagged: true, workers: 2 },
      }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe("/api/v2.0/system/gc/0");

    const s = await h.admin.gc.getSchedule();
    // 2.13 on, the schedule's parameters also say delete_tag (false); versions.test.ts has both.
    const deleteTag = h.emulator.world.version.has("gcDeleteTag") ? '"delete_tag":false,' : "";
    expect(s).toMatchObject({
      job_kind: "0 0 3 * * *",
      job_parameters: `{${deleteTag}"delete_untagged":true,"workers":2}`,
      schedule: { type: "Daily", cron: "0 0 3 * * *" },
    });
    const next = new Date(s?.schedule?.next_scheduled_time as string);
    expect(next.getTime()).toBeGreaterThan(h.emulator.control.clock.now());
    expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([3, 0, 0]);
  });

  test("a new cron schedule replaces the old one (no conflict); None deletes it", async () => {
    await h.admin.gc.createSchedule({ schedule: { type: "Custom", cron: "0 30 1 * * 1" } });
    await h.admin.gc.updateSchedule({ schedule: { type: "Weekly", cron: "0 0 0 * * 0" } });
    expect((await h.admin.gc.getSchedule())?.schedule).toMatchObject({ type: "Weekly", cron: "0 0 0 * * 0" });
    expect(await h.admin.gc.createSchedule({ schedule: { type: "None" } })).toBe(0);
    expect(await h.admin.gc.getSchedule()).toBeUndefined();
  });

  test("type Schedule (or none at all) is accepted and does nothing", async () => {
    const runs = gc().runs().length;
    expect(await h.admin.gc.createSchedule({ schedule: { type: "Schedule", cron: "0 0 * * * *" } })).toBe(0);
    const noType = await h.api("/system/gc/schedule", {
      method: "POST",
      body: JSON.stringify({ schedule: {} }),
    });
    expect(noType.status).toBe(201);
    expect(await h.admin.gc.getSchedule()).toBeUndefined();
    expect(gc().runs()).toHaveLength(runs);
  });

  test("the schedule fires on the world clock: a SCHEDULE run appears when its time passes", async () => {
    await h.admin.gc.createSchedule({ schedule: { type: "Hourly", cron: "0 0 * * * *" } });
    const next = Date.parse((await h.admin.gc.getSchedule())?.schedule?.next_scheduled_time as string);
    advance(next - h.emulator.control.clock.now() + 1_000);
    const [latest] = await h.admin.gc.listHistory({ q: q().exact("trigger", "SCHEDULE") });
    expect(latest).toMatchObject({
      job_kind: "SCHEDULE",
      schedule: { type: "Schedule" },
      job_status: "Running",
    });
    // The next time moved on by an hour.
    const moved = Date.parse((await h.admin.gc.getSchedule())?.schedule?.next_scheduled_time as string);
    expect(moved - next).toBe(3_600_000);
    advance(2_000);
  });

  test("the control API fires the schedule on demand", async () => {
    const id = gc().fireSchedule();
    expect((await h.admin.gc.get(id)).job_kind).toBe("SCHEDULE");
    await h.admin.gc.createSchedule({ schedule: { type: "None" } });
    expect(() => gc().fireSchedule()).toThrow("no gc schedule is found");
  });

  test("a scheduled GC never dry-runs (Harbor reads dry_run for Manual only), and waits while SCHEDULER is paused", async () => {
    await h.admin.gc.updateSchedule({
      schedule: { type: "Hourly", cron: "0 0 * * * *" },
      parameters: { dry_run: true, workers: 2 },
    });
    const scheduled = () =>
      gc()
        .runs()
        .filter((r) => r.trigger === "SCHEDULE");
    const before = scheduled().length;
    advance(3_600_000);
    expect(scheduled()).toHaveLength(before + 1);
    expect(scheduled().at(-1)?.parameters).toMatchObject({ dry_run: false, workers: 2 });

    await h.admin.jobService.actOnQueue("SCHEDULER", "pause");
    advance(3_600_000);
    expect(scheduled()).toHaveLength(before + 1);
    expect((await h.admin.jobService.listQueues()).find((x) => x.job_type === "SCHEDULER")).toMatchObject({
      paused: true,
      count: 1,
    });
    await h.admin.jobService.actOnQueue("SCHEDULER", "resume");
    expect(scheduled()).toHaveLength(before + 2);
    await h.admin.gc.updateSchedule({ schedule: { type: "None" } });
    advance(2_000 + LAG);
  });
});

describe("validation", () => {
  test.each([
    ["five fields", "0 3 * * *", "expected exactly 6 fields, found 5: [0 3 * * *]"],
    [
      "seconds other than 0",
      "30 0 3 * * *",
      "the 1st field (indicating Seconds of time) of the cron setting must be 0",
    ],
    ["no cron", "", "empty cron string is invalid"],
    ["an hour out of range", "0 0 25 * * *", "end of range (25) above maximum (23): 25"],
    ["a descriptor", "@daily", "parser does not accept descriptors: @daily"],
  ])("a cron type with %s: 400 invalid cron string for scheduled gc", async (_what, cron, detail) => {
    const res = await h.api("/system/gc/schedule", {
      method: "POST",
      body: JSON.stringify({ schedule: { type: "Custom", cron } }),
    });
    expect(res.status).toBe(400);
    expect(await firstError(res)).toEqual({
      code: "BAD_REQUEST",
      message: `invalid cron string for scheduled gc: ${cron}, error: ${detail}`,
    });
  });

  test.each(["0", "one above the maximum", "-1"])("workers %s: 400 with Harbor's message", async (which) => {
    // The maximum is 5 up to 2.12 and 10 from 2.13 (versions.test.ts has both).
    const max = h.emulator.world.version.has("gcTenWorkers") ? 10 : 5;
    const workers = which === "one above the maximum" ? max + 1 : Number(which);
    const res = await manual({ workers });
    expect(res.status).toBe(400);
    expect((await firstError(res)).message).toBe(
      `Error: Invalid number of workers:${workers}. Workers must be greater than 0 and less than or equal to ${max}.`,
    );
  });

  test("workers must be an integer; a non-number is ignored, as are non-boolean flags", async () => {
    const fraction = await manual({ workers: 1.5 });
    expect(fraction.status).toBe(400);
    expect((await firstError(fraction)).message).toBe("bad request: workers should be integer format");

    const res = await manual({ workers: "3", delete_untagged: "yes", dry_run: 1 });
    expect(res.status).toBe(201);
    const id = Number(res.headers.get("location")?.split("/").pop());
    const params = JSON.parse((await h.admin.gc.get(id)).job_parameters as string) as Record<string, unknown>;
    expect(params).toMatchObject({ workers: 0, delete_untagged: false, dry_run: false });
    gc().complete(id);
  });

  test("swagger-level failures are 422: no body, an unknown type", async () => {
    const none = await h.api("/system/gc/schedule", { method: "POST" });
    expect(none.status).toBe(422);
    const bad = await h.api("/system/gc/schedule", {
      method: "PUT",
      body: JSON.stringify({ schedule: { type: "Yearly" } }),
    });
    expect(bad.status).toBe(422);
    // The binder's list, the Schedule model's, and the nested ScheduleObj's.
    expect((await firstError(bad)).message).toBe(
      "validation failure list:\nvalidation failure list:\nvalidation failure list:\nschedule.type in body should be one of [Hourly Daily Weekly Custom Manual None Schedule]",
    );
  });

  test("a body without `schedule` crashes Harbor's handler: masked 500", async () => {
    const res = await h.api("/system/gc/schedule", {
      method: "POST",
      body: JSON.stringify({ parameters: {} }),
    });
    expect(res.status).toBe(500);
    expect(await firstError(res)).toEqual({ code: "UNKNOWN", message: "internal server error" });
  });
});

describe("history", () => {
  test("newest first, with X-Total-Count and Link; q filters by status; sort is honoured", async () => {
    gc().plan({ status: "Error", durationMs: 1 });
    const failed = await h.admin.gc.createSchedule({ schedule: { type: "Manual" } });
    advance(2_000 + LAG);

    const res = await h.api("/system/gc?page_size=2");
    const total = Number(res.headers.get("x-total-count"));
    expect(total).toBe(gc().runs().length);
    expect(res.headers.get("link")).toBe('</api/v2.0/system/gc?page=2&page_size=2>; rel="next"');
    const firstPage = (await res.json()) as Array<{ id: number }>;
    expect(firstPage[0]?.id).toBe(failed);

    const all = await h.admin.gc.listHistory();
    expect(all).toHaveLength(total);
    const starts = all.map((r) => Date.parse(r.creation_time as string));
    expect(starts).toEqual([...starts].sort((a, b) => b - a));

    const errors = await h.admin.gc.listHistory({ q: q().exact("status", "Error") });
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((r) => r.job_status === "Error")).toBe(true);

    const ascending = await h.admin.gc.listHistory({ sort: "id" });
    expect(ascending.map((r) => r.id)).toEqual(all.map((r) => r.id).sort((a, b) => (a ?? 0) - (b ?? 0)));
  });

  test("writes are audited", () => {
    const entries = h.emulator.control.audit.list().filter((e) => e.resource_type === "gc");
    expect(entries.map((e) => e.operation)).toContain("create");
    expect(entries.map((e) => e.operation)).toContain("update");
  });
});

describe("permissions", () => {
  test("GC is system-level: 403 with the username", async () => {
    const gus = h.client(h.addUser("gus"));
    for (const call of [
      () => gus.gc.listHistory(),
      () => gus.gc.get(1),
      () => gus.gc.getLog(1),
      () => gus.gc.getSchedule(),
      () => gus.gc.createSchedule({ schedule: { type: "Manual" } }),
      () => gus.gc.updateSchedule({ schedule: { type: "None" } }),
      () => gus.gc.stop(1),
    ]) {
      await expect(call()).rejects.toMatchObject({ kind: "forbidden", status: 403, harborMessage: "gus" });
    }
  });
});
