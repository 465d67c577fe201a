// Scan all: the schedule of Harbor's "scan every artifact" job, runs started by hand or by the
// schedule, and the metrics of the newest run, as Harbor 2.12.4 serves them:
// - Every scan-all call needs Harbor to have a default scanner: without one, 412 "no scanner is
//   configured, it's not possible to scan" (the permission check comes first).
// - GET /system/scanAll/schedule: 200 with an empty body when there is no schedule; else id, status,
//   type and cron (no next time, unlike GC), parameters null.
// - PUT: Manual is 400; None removes the schedule; another type replaces it (kept as it is when type
//   and cron are unchanged); a cron the scheduler cannot parse is 400.
// - POST: None does nothing; Manual starts a run (409 while the newest manual run still goes);
//   another type is 412 when a schedule exists ("please delete it firstly"), else sets it. 201 with
//   no Location: the API shows no scan-all execution ids.
// - Metrics ({} before any run): total, completed, metrics by status, ongoing, trigger (Manual,
//   Schedule); /scans/schedule/metrics only looks at scheduled runs. A run scans every artifact the
//   world holds (`setArtifacts`, default 0) and takes 2 s of world time unless a plan says otherwise.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireSystem } from "../auth.ts";
import { badRequest, conflict, internal, precondition } from "../errors.ts";
import { type Ctx, ok, type RouteSpec } from "../router.ts";
import { harborTime, type World } from "../world.ts";
import { defineArea } from "./area.ts";
import { type CronSpec, parseCron } from "./cron.ts";
import { JobSchedule, type JobScheduleRecord } from "./system-job.ts";

export interface ScanAllRun {
  id: number;
  trigger: "MANUAL" | "SCHEDULE";
  start: number;
  end: number;
  total: number;
  /** How many of the scans fail. */
  errors: number;
  stopped: boolean;
}

/** The schedule: a scheduled run scans everything, so it has no policy. */
export type ScanAllSchedule = JobScheduleRecord<undefined>;

export interface ScanAllPlan {
  durationMs?: number;
  errors?: number;
}

export class ScanAllStore {
  readonly #world: World;
  readonly #runs: ScanAllRun[] = [];
  readonly #schedule: JobSchedule<undefined>;
  #artifacts = 0;
  readonly #plans: ScanAllPlan[] = [];

  constructor(world: World) {
    this.#world = world;
    this.#schedule = new JobSchedule(world, () => this.start("SCHEDULE"));
    world.clock.onTick(() => this.#schedule.tick(world.now()));
  }

  get schedule(): ScanAllSchedule | undefined {
    return this.#schedule.record;
  }

  runs(): ScanAllRun[] {
    return [...this.#runs];
  }

  setArtifacts(n: number): void {
    this.#artifacts = n;
  }

  plan(p: ScanAllPlan): void {
    this.#plans.push(p);
  }

  /** The newest run, of the trigger when given. */
  newest(trigger?: ScanAllRun["trigger"]): ScanAllRun | undefined {
    const runs = trigger ? this.#runs.filter((r) => r.trigger === trigger) : this.#runs;
    return runs.reduce<ScanAllRun | undefined>((a, r) => (!a || r.start >= a.start ? r : a), undefined);
  }

  ongoing(run: ScanAllRun): boolean {
    return !run.stopped && this.#world.now() < run.end;
  }

  start(trigger: ScanAllRun["trigger"]): ScanAllRun {
    const now = this.#world.now();
    const plan = this.#plans.shift() ?? {};
    const run: ScanAllRun = {
      id: this.#world.ids.next("execution"),
      trigger,
      start: now,
      end: now + (plan.durationMs ?? 2000),
      total: this.#artifacts,
      errors: Math.min(plan.errors ?? 0, this.#artifacts),
      stopped: false,
    };
    this.#runs.push(run);
    return run;
  }

  stopNewest(): boolean {
    const run = this.newest();
    if (!run || !this.ongoing(run)) return false;
    run.stopped = true;
    run.end = this.#world.now();
    return true;
  }

  /** Sets the schedule; an unchanged type and cron keep it as it is. */
  setSchedule(cronType: string, cron: string): void {
    const cur = this.#schedule.record;
    if (cur && cur.cronType === cronType && cur.cron === cron) return;
    let spec: CronSpec;
    try {
      spec = parseCron(cron);
    } catch (e) {
      throw badRequest(`invalid cron ${cron}: ${(e as Error).message}`);
    }
    this.#schedule.set(cronType, cron, spec, undefined);
  }

  deleteSchedule(): void {
    this.#schedule.delete();
  }

  /** Harbor's Stats of a run (undefined: Harbor's {} for no run). */
  stats(run: ScanAllRun | undefined): Record<string, unknown> {
    if (!run) return {};
    const now = this.#world.now();
    const span = Math.max(1, run.end - run.start);
    const done =
      run.stopped || now >= run.end ? run.total : Math.floor((run.total * (now - run.start)) / span);
    const stoppedCount = run.stopped ? run.total - done : 0;
    const errors = Math.min(run.errors, done);
    const finished = done + stoppedCount;
    return {
      total: run.total,
      completed: finished,
      metrics: {
        Pending: 0,
        Running: run.total - finished,
        Success: done - errors,
        Error: errors,
        Stopped: stoppedCount,
      },
      ongoing: this.ongoing(run),
      trigger: run.trigger === "MANUAL" ? "Manual" : "Schedule",
    };
  }
}

const ScheduleBody = z
  .object({
    schedule: z
      .object({
        type: z.enum(["Hourly", "Daily", "Weekly", "Custom", "Manual", "None", "Schedule"]).nullish(),
        cron: z.string().nullish(),
        next_scheduled_time: z.string().nullish(),
      })
      .meta({ goType: "ScheduleObj" })
      .nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  })
  .meta({ goType: "Schedule" });
type ScheduleBody = z.output<typeof ScheduleBody>;

/** Harbor's scan-all permission check, then its "is there a default scanner" check. */
function access(ctx: Ctx, action: string): void {
  requireSystem(ctx, "scan-all", action);
  if (!ctx.world.scanners.defaultRegistration())
    throw precondition("no scanner is configured, it's not possible to scan");
}

function scheduleOf(body: ScheduleBody) {
  // Harbor dereferences `schedule` without a nil check.
  if (!body.schedule) throw internal("nil schedule");
  return { type: body.schedule.type ?? "", cron: body.schedule.cron ?? "" };
}

const audit = (ctx: Ctx, operation: "create" | "update") =>
  auditWrite(ctx, { project_id: 0, resource: "scan all", resource_type: "scan_all", operation });

const routes: RouteSpec[] = [
  {
    op: "getScanAllSchedule",
    method: "GET",
    path: "/system/scanAll/schedule",
    handle(ctx) {
      access(ctx, "read");
      const s = ctx.world.scanAll.schedule;
      if (!s) return ok();
      return ok({
        id: s.id,
        status: "Running",
        schedule: { type: s.cronType, cron: s.cron },
        parameters: null,
        creation_time: harborTime(s.creationTime),
        update_time: harborTime(s.updateTime),
      });
    },
  },
  {
    op: "updateScanAllSchedule",
    method: "PUT",
    path: "/system/scanAll/schedule",
    body: { name: "schedule", schema: ScheduleBody },
    handle(ctx) {
      access(ctx, "update");
      const { type, cron } = scheduleOf(ctx.body as ScheduleBody);
      if (type === "Manual")
        throw badRequest(`fail to update scan all schedule as wrong schedule type: ${type}`);
      if (type === "None") ctx.world.scanAll.deleteSchedule();
      else ctx.world.scanAll.setSchedule(type, cron);
      audit(ctx, "update");
      return ok();
    },
  },
  {
    op: "createScanAllSchedule",
    method: "POST",
    path: "/system/scanAll/schedule",
    body: { name: "schedule", schema: ScheduleBody },
    handle(ctx) {
      access(ctx, "create");
      const { type, cron } = scheduleOf(ctx.body as ScheduleBody);
      const store = ctx.world.scanAll;
      if (type === "None") return { status: 201 };
      if (type === "Manual") {
        const last = store.newest("MANUAL");
        if (last && store.ongoing(last))
          throw conflict("a previous scan all job aleady exits, its status is Running");
        store.start("MANUAL");
      } else {
        if (store.schedule)
          throw precondition(
            "fail to set schedule for scan all as always had one, please delete it firstly then to re-schedule",
          );
        store.setSchedule(type, cron);
      }
      audit(ctx, "create");
      return { status: 201 };
    },
  },
  {
    op: "stopScanAll",
    method: "POST",
    path: "/system/scanAll/stop",
    handle(ctx) {
      access(ctx, "stop");
      if (!ctx.world.scanAll.newest()) throw badRequest("no scan all job is found currently");
      ctx.world.scanAll.stopNewest();
      return { status: 202 };
    },
  },
  {
    op: "getLatestScanAllMetrics",
    method: "GET",
    path: "/scans/all/metrics",
    handle(ctx) {
      access(ctx, "read");
      return ok(ctx.world.scanAll.stats(ctx.world.scanAll.newest()));
    },
  },
  {
    op: "getLatestScheduledScanAllMetrics",
    method: "GET",
    path: "/scans/schedule/metrics",
    handle(ctx) {
      access(ctx, "read");
      return ok(ctx.world.scanAll.stats(ctx.world.scanAll.newest("SCHEDULE")));
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** How many artifacts a scan-all run scans (default 0). */
    setArtifacts(n: number): void {
      world.scanAll.setArtifacts(n);
    },
    /** The next run's world-time duration and failed scans (plans queue up, one per run). */
    plan(p: ScanAllPlan): void {
      world.scanAll.plan(p);
    },
    /** Starts a run of the schedule now (trigger SCHEDULE), as the scheduler does at its time. */
    fireSchedule(): number {
      return world.scanAll.start("SCHEDULE").id;
    },
    /** Every run: id, trigger, start and end (world ms). */
    runs: () => world.scanAll.runs(),
    /** The schedule as stored: type and cron, or undefined. */
    schedule: () => {
      const s = world.scanAll.schedule;
      return s ? { type: s.cronType, cron: s.cron } : undefined;
    },
  }),
});
