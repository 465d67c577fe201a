// Scan all: Harbor's 412 for every call while no scanner is the default; the schedule (an empty body
// when none, type and cron only, unchanged type and cron keep it, Manual refused on PUT, a second
// POSTed schedule 412); runs now (201 with no Location, 409 while a manual one goes), their metrics
// on the world clock, and the scheduled runs' metrics of their own.
import { beforeAll, describe, expect, test } from "vitest";
import { harborError, harborErrorOf, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();
// Runs are looked at before their planned end: the world's time moves only when advanced.
beforeAll(() => h.emulator.control.clock.freeze());
const control = () => h.emulator.control;
const NO_SCANNER = "no scanner is configured, it's not possible to scan";

describe("scan all", () => {
  test("every call is 412 while Harbor has no default scanner", async () => {
    for (const call of [
      h.admin.scanAll.getSchedule(),
      h.admin.scanAll.metrics(),
      h.admin.scanAll.scheduledMetrics(),
      h.admin.scanAll.updateSchedule({ schedule: { type: "Daily", cron: "0 0 0 * * *" } }),
      h.admin.scanAll.runNow(),
    ])
      expect(await harborErrorOf(call)).toMatchObject(harborError(412, NO_SCANNER));
  });

  test("with a default scanner: no schedule is an empty body, no run is {}", async () => {
    control().scanners.addAdapter("http://trivy.example.com");
    await h.admin.scanners.create({ name: "trivy", url: "http://trivy.example.com" });
    const raw = await h.raw("GET", "/system/scanAll/schedule");
    expect(raw).toMatchObject({ status: 200, text: "" });
    expect(await h.admin.scanAll.getSchedule()).toBeUndefined();
    expect(await h.admin.scanAll.metrics()).toEqual({});
    expect(await h.admin.scanAll.scheduledMetrics()).toEqual({});
  });

  test("PUT sets the schedule; the same type and cron keep it; another replaces it; Manual and bad crons are 400", async () => {
    await h.admin.scanAll.updateSchedule({ schedule: { type: "Daily", cron: "0 0 3 * * *" } });
    const first = await h.admin.scanAll.getSchedule();
    expect(first).toMatchObject({ schedule: { type: "Daily", cron: "0 0 3 * * *" } });
    expect(first?.schedule?.next_scheduled_time).toBeUndefined();
    await h.admin.scanAll.updateSchedule({ schedule: { type: "Daily", cron: "0 0 3 * * *" } });
    expect((await h.admin.scanAll.getSchedule())?.id).toBe(first?.id);
    await h.admin.scanAll.updateSchedule({ schedule: { type: "Custom", cron: "0 30 1 * * 1" } });
    const second = await h.admin.scanAll.getSchedule();
    expect(second).toMatchObject({ schedule: { type: "Custom", cron: "0 30 1 * * 1" } });
    expect(second?.id).not.toBe(first?.id);

    expect(
      await harborErrorOf(h.admin.scanAll.updateSchedule({ schedule: { type: "Manual" } })),
    ).toMatchObject(harborError(400, "fail to update scan all schedule as wrong schedule type: Manual"));
    expect(
      await harborErrorOf(
        h.admin.scanAll.updateSchedule({ schedule: { type: "Custom", cron: "0 0 25 * * *" } }),
      ),
    ).toMatchObject({ status: 400 });
    expect((await h.admin.scanAll.getSchedule())?.schedule?.cron).toBe("0 30 1 * * 1");
  });

  test("POST of a schedule while one exists is 412", async () => {
    const res = await h.raw("POST", "/system/scanAll/schedule", {
      schedule: { type: "Daily", cron: "0 0 0 * * *" },
    });
    expect(res.status).toBe(412);
    expect(res.text).toContain("please delete it firstly then to re-schedule");
  });

  test("a run now: 201 without a Location, ongoing until done, 409 for a second while it goes", async () => {
    control().scanAll.setArtifacts(4);
    control().scanAll.plan({ durationMs: 4000, errors: 1 });
    const res = await h.raw("POST", "/system/scanAll/schedule", { schedule: { type: "Manual" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBeNull();
    expect(await h.admin.scanAll.metrics()).toMatchObject({ trigger: "Manual", ongoing: true, total: 4 });
    expect(await harborErrorOf(h.admin.scanAll.runNow())).toMatchObject({ kind: "conflict", status: 409 });

    control().clock.advance(4000);
    expect(await h.admin.scanAll.metrics()).toEqual({
      total: 4,
      completed: 4,
      metrics: { Pending: 0, Running: 0, Success: 3, Error: 1, Stopped: 0 },
      ongoing: false,
      trigger: "Manual",
    });
    // Only scheduled runs count for the scheduled metrics.
    expect(await h.admin.scanAll.scheduledMetrics()).toEqual({});
    await h.admin.scanAll.runNow();
    expect((await h.admin.scanAll.metrics()).ongoing).toBe(true);
    control().clock.advance(2000);
  });

  test("a scheduled run shows in both metrics; None removes the schedule", async () => {
    control().scanAll.fireSchedule();
    expect(await h.admin.scanAll.scheduledMetrics()).toMatchObject({ trigger: "Schedule", ongoing: true });
    expect((await h.admin.scanAll.metrics()).trigger).toBe("Schedule");
    control().clock.advance(2000);
    expect((await h.admin.scanAll.scheduledMetrics()).ongoing).toBe(false);

    await h.admin.scanAll.updateSchedule({ schedule: { type: "None" } });
    expect(await h.admin.scanAll.getSchedule()).toBeUndefined();
    expect(control().scanAll.schedule()).toBeUndefined();
  });
});
