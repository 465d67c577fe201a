// Garbage collection: the schedule, and runs that progress on the world clock, as Harbor 2.12.4
// shows them. A run's execution is Running while its job runs (on a job service worker when one is
// free; 2 s of world time unless a plan says otherwise) and for another 25 s after the job ended
// (core refreshes the execution's status asynchronously); only then is it Success or Error, and a
// successful run's job_parameters gain freed_space, purged_blobs and purged_manifests. The job's log
// is 404 "object is not found" until the job has run, then text/plain. A stopped job stops the run
// at once. A cron schedule starts a run whenever its next time passes on the world clock.
// The job service runs one GC job at a time (Harbor's GC job has MaxCurrency 1), and the API does not
// refuse a second run: its job waits in the queue (the execution shows Running, its log is 404)
// and starts when the one before it has ended, in world time.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireSystem } from "../auth.ts";
import { badRequest, internal, notFound } from "../errors.ts";
import { type Fields, listReply } from "../listing.ts";
import { type Ctx, ok, type Reply, type RouteSpec } from "../router.ts";
import { harborTime, type World, ZERO_TIME } from "../world.ts";
import { defineArea } from "./area.ts";

// ---------------------------------------------------------------------------------------------
// cron: robfig/cron's parser with a mandatory seconds field, as Harbor's scheduler uses it (UTC)

export interface CronSpec {
  second: boolean[];
  minute: boolean[];
  hour: boolean[];
  dom: boolean[];
  month: boolean[];
  dow: boolean[];
  /** A day matches when both day fields do if either starts with * or ?, else when either does. */
  domStar: boolean;
  dowStar: boolean;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const FIELDS: Array<{ min: number; max: number; names?: string[]; base?: number }> = [
  { min: 0, max: 59 },
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, base: 1 },
  { min: 0, max: 6, names: DAYS, base: 0 },
];

function cronNumber(text: string, names: string[] | undefined, base: number, expr: string): number {
  const named = names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + base;
  if (!/^-?\d+$/.test(text))
    throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`);
  const n = Number(text);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function cronField(field: string, f: (typeof FIELDS)[number]): boolean[] {
  const bits = new Array<boolean>(f.max + 1).fill(false);
  for (const expr of field.split(",")) {
    const [range = "", stepText, extra] = expr.split("/");
    if (extra !== undefined) throw new Error(`too many slashes: ${expr}`);
    let start: number;
    let end: number;
    if (range === "*" || range === "?") {
      start = f.min;
      end = f.max;
    } else {
      const [lo = "", hi, more] = range.split("-");
      if (more !== undefined) throw new Error(`too many hyphens: ${expr}`);
      start = cronNumber(lo, f.names, f.base ?? 0, expr);
      end =
        hi === undefined
          ? stepText === undefined
            ? start
            : f.max
          : cronNumber(hi, f.names, f.base ?? 0, expr);
    }
    const step = stepText === undefined ? 1 : cronNumber(stepText, undefined, 0, expr);
    if (start < f.min) throw new Error(`beginning of range (${start}) below minimum (${f.min}): ${expr}`);
    if (end > f.max) throw new Error(`end of range (${end}) above maximum (${f.max}): ${expr}`);
    if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
    if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
    for (let i = start; i <= end; i += step) bits[i] = true;
  }
  return bits;
}

/** Harbor's ValidateCronString plus the parse: throws with the parser's message. */
export function parseCron(cron: string): CronSpec {
  if (cron === "") throw new Error("empty cron string is invalid");
  if (cron.startsWith("@")) throw new Error(`parser does not accept descriptors: ${cron}`);
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 6) {
    throw new Error(`expected exactly 6 fields, found ${fields.length}: [${fields.join(" ")}]`);
  }
  const [second, minute, hour, dom, month, dow] = fields.map((text, i) =>
    cronField(text, FIELDS[i] as (typeof FIELDS)[number]),
  ) as [boolean[], boolean[], boolean[], boolean[], boolean[], boolean[]];
  const parts = cron.split(" ");
  if (parts.length === 6 && parts[0] !== "0") {
    throw new Error("the 1st field (indicating Seconds of time) of the cron setting must be 0");
  }
  const star = (t: string) => t.startsWith("*") || t.startsWith("?");
  return {
    second,
    minute,
    hour,
    dom,
    month,
    dow,
    domStar: star(fields[3] as string),
    dowStar: star(fields[5] as string),
  };
}

const DAY_MS = 86_400_000;

/** The first time strictly after `afterMs` that the spec matches (UTC), within five years. */
export function nextCronTime(spec: CronSpec, afterMs: number): number | undefined {
  const from = Math.floor(afterMs / 1000) * 1000 + 1000;
  const first = new Date(from);
  const firstDay = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate());
  for (let day = firstDay; day < firstDay + 5 * 366 * DAY_MS; day += DAY_MS) {
    const d = new Date(day);
    const domOk = spec.dom[d.getUTCDate()] === true;
    const dowOk = spec.dow[d.getUTCDay()] === true;
    const dayOk = spec.domStar || spec.dowStar ? domOk && dowOk : domOk || dowOk;
    if (!spec.month[d.getUTCMonth() + 1] || !dayOk) continue;
    for (let h = 0; h < 24; h++) {
      if (!spec.hour[h]) continue;
      for (let m = 0; m < 60; m++) {
        if (!spec.minute[m]) continue;
        for (let s = 0; s < 60; s++) {
          const t = day + h * 3_600_000 + m * 60_000 + s * 1000;
          if (spec.second[s] && t >= from) return t;
        }
      }
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// runs and the schedule

export type GcStatus = "Running" | "Success" | "Error" | "Stopped";
type Trigger = "MANUAL" | "SCHEDULE";

export interface GcPlan {
  /** How the job ends (Error: as without registryctl). Default Success. */
  status?: "Success" | "Error";
  /** World time the job takes. Default 2000 ms. */
  durationMs?: number;
  /** What a successful job reports it removed (bytes, blobs, manifests). Default nothing. */
  freedSpace?: number;
  purgedBlobs?: number;
  purgedManifests?: number;
}

type JobStatus = "Pending" | "Running" | "Success" | "Error" | "Stopped";

interface GcPolicy {
  deleteUntagged: boolean;
  dryRun: boolean;
  workers: number;
}

export interface GcRunRecord {
  id: number;
  trigger: Trigger;
  /** The execution's status, as the API shows it. */
  status: GcStatus;
  /** Harbor's execution extra attributes, printed as job_parameters. */
  parameters: Record<string, unknown>;
  startTime: number;
  updateTime: number;
  /** The job's own status, ahead of the execution's: Pending while another GC job runs. */
  job: JobStatus;
  /** Whether the job has started (a job stopped while it waited never ran). */
  jobStarted: boolean;
  /** When the job ends (as planned) or ended; for a waiting job, its planned duration from now. */
  jobEnd: number;
  plan: Required<GcPlan>;
  log: string[];
  /** The job service job it occupies, if a worker was free. */
  jobId?: string;
}

export interface GcScheduleRecord {
  id: number;
  cronType: string;
  cron: string;
  spec: CronSpec;
  policy: GcPolicy;
  creationTime: number;
  updateTime: number;
  nextRun?: number;
}

/** What the server adds to every GC's parameters. */
const REDIS_URL_REG = "redis://redis:6379/1?idle_timeout_seconds=30";
const TIME_WINDOW_HOURS = 2;
/** Harbor's execution sweeper keeps this many GC executions. */
const KEEP_EXECUTIONS = 50;
/** How long core still shows a finished GC job's execution as Running. */
export const GC_STATUS_LAG_MS = 25_000;

/** Go's json.Marshal of a map: keys in sorted order. */
function goJson(map: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : 1))));
}

export class GcStore {
  readonly #world: World;
  readonly #runs = new Map<number, GcRunRecord>();
  #schedule: GcScheduleRecord | undefined;
  /** When the last GC job ended or was stopped (world time): a waiting job starts from then. */
  #freeSince = 0;
  readonly #plans: GcPlan[] = [];
  #defaultPlan: Required<GcPlan> = {
    status: "Success",
    durationMs: 2000,
    freedSpace: 0,
    purgedBlobs: 0,
    purgedManifests: 0,
  };

  constructor(world: World) {
    this.#world = world;
    world.clock.onTick(() => this.#tick());
  }

  get world(): World {
    return this.#world;
  }

  runs(): GcRunRecord[] {
    return [...this.#runs.values()];
  }

  get(id: number): GcRunRecord | undefined {
    return this.#runs.get(id);
  }

  get schedule(): GcScheduleRecord | undefined {
    return this.#schedule;
  }

  /** The outcome of the next run that starts (first in, first out). */
  plan(p: GcPlan): void {
    this.#plans.push(p);
  }

  setDefaultPlan(p: GcPlan): void {
    this.#defaultPlan = { ...this.#defaultPlan, ...p };
  }

  start(policy: GcPolicy, trigger: Trigger): GcRunRecord {
    const now = this.#world.now();
    const plan: Required<GcPlan> = { ...this.#defaultPlan, ...this.#plans.shift() };
    const run: GcRunRecord = {
      id: this.#world.ids.next("execution"),
      trigger,
      status: "Running",
      parameters: {
        delete_untagged: policy.deleteUntagged,
        dry_run: policy.dryRun,
        redis_url_reg: REDIS_URL_REG,
        time_window: TIME_WINDOW_HOURS,
        workers: policy.workers,
      },
      startTime: now,
      updateTime: now,
      job: "Pending",
      jobStarted: false,
      jobEnd: now + plan.durationMs,
      plan,
      log: [],
    };
    this.#runs.set(run.id, run);
    this.#dispatch(now);
    this.#sweep();
    return run;
  }

  /** The job starts on a worker (at `at`, world time): its first log lines are written. */
  #beginJob(run: GcRunRecord, at: number): void {
    Object.assign(run, { job: "Running", jobStarted: true, jobEnd: at + run.plan.durationMs });
    run.jobId = this.#world.jobservice.startJob("GARBAGE_COLLECTION", () => this.stop(run));
    const { delete_untagged, dry_run, workers } = run.parameters;
    if (run.plan.status === "Error") {
      this.#log(
        run,
        'failed to start gc as registry controller is unreachable: Get "http://registryctl:8080/api/health": dial tcp: lookup registryctl: no such host',
        "ERROR",
      );
    } else {
      this.#log(
        run,
        `Garbage Collection parameters: [delete_untagged: ${delete_untagged}, dry_run: ${dry_run}, time_window: ${TIME_WINDOW_HOURS}, workers: ${(workers as number) || 1}]`,
      );
      this.#log(run, "start to run gc in job.");
    }
  }

  /**
   * One GC job at a time: ends the running job when its time has come, then starts the oldest
   * waiting one when the worker came free (in world time), and so on up to `now`.
   */
  #dispatch(now: number): void {
    for (;;) {
      const running = this.runs().find((r) => r.job === "Running");
      if (running) {
        if (now < running.jobEnd) return;
        this.#endJob(running, running.plan.status, running.jobEnd);
        continue;
      }
      const next = this.runs()
        .filter((r) => r.job === "Pending")
        .sort((a, b) => a.id - b.id)[0];
      if (!next) return;
      this.#beginJob(next, Math.min(now, Math.max(next.startTime, this.#freeSince)));
    }
  }

  /**
   * Stops a waiting or running job, and with it the run (the next waiting job may start); once the
   * job has ended, nothing changes.
   */
  stop(run: GcRunRecord): void {
    if (run.job !== "Running" && run.job !== "Pending") return;
    if (run.jobId) this.#world.jobservice.finishJob(run.jobId);
    const now = this.#world.now();
    const ran = run.job === "Running";
    Object.assign(run, { job: "Stopped", jobEnd: now, status: "Stopped", updateTime: now });
    if (ran) {
      this.#freeSince = now;
      this.#log(run, "received the stop signal, quit GC job.");
    }
    this.#dispatch(now);
  }

  /** Ends a running job now with the given status (or its planned one); the run follows later. */
  complete(run: GcRunRecord, status?: "Success" | "Error"): void {
    if (run.job !== "Running") return;
    const now = this.#world.now();
    this.#endJob(run, status ?? run.plan.status, now);
    this.#dispatch(now);
  }

  /** Whether the job has run, so that its log can be read. */
  hasLog(run: GcRunRecord): boolean {
    return run.jobStarted && run.job !== "Running";
  }

  /** Replaces the schedule (Harbor deletes the old one, then creates the new one). */
  setSchedule(cronType: string, cron: string, spec: CronSpec, policy: GcPolicy): void {
    const now = this.#world.now();
    this.#schedule = {
      id: this.#world.ids.next("schedule"),
      cronType,
      cron,
      spec,
      policy,
      creationTime: now,
      updateTime: now,
      nextRun: nextCronTime(spec, now),
    };
  }

  deleteSchedule(): void {
    this.#schedule = undefined;
  }

  /** Starts the scheduled GC now, as the scheduler does when the cron time comes. */
  fireSchedule(): GcRunRecord {
    if (!this.#schedule) throw new Error("no gc schedule is found");
    return this.start(this.#schedule.policy, "SCHEDULE");
  }

  /** The job ends: its log is complete; the execution shows it GC_STATUS_LAG_MS later. */
  #endJob(run: GcRunRecord, status: "Success" | "Error", at: number): void {
    if (run.jobId) this.#world.jobservice.finishJob(run.jobId);
    Object.assign(run, { job: status, jobEnd: at });
    this.#freeSince = Math.max(this.#freeSince, at);
    if (status === "Error") return;
    const { freedSpace, purgedBlobs, purgedManifests } = run.plan;
    if (purgedBlobs + purgedManifests === 0) {
      this.#log(run, "no removed artifacts.", "WARNING");
      this.#log(run, "no need to execute GC as there is no non referenced artifacts.");
    } else {
      this.#log(run, `${purgedBlobs} blobs and ${purgedManifests} manifests eligible for deletion`);
      this.#log(
        run,
        `The GC could free up ${Math.floor(freedSpace / 1024 / 1024)} MB space, the size is a rough estimation.`,
      );
      if (run.parameters.dry_run !== true) {
        this.#log(run, `${purgedBlobs} blobs and ${purgedManifests} manifests are actually deleted`);
        this.#log(run, `The GC job actual frees up ${Math.floor(freedSpace / 1024 / 1024)} MB space.`);
      }
    }
    this.#log(run, "success to run gc in job.");
  }

  /** The execution takes the job's status; a successful one gains what the job reported. */
  #settle(run: GcRunRecord, at: number): void {
    // Only an ended job is settled: its status is one an execution has.
    run.status = run.job as GcStatus;
    run.updateTime = at;
    if (run.job !== "Success") return;
    Object.assign(run.parameters, {
      freed_space: run.plan.freedSpace,
      purged_blobs: run.plan.purgedBlobs,
      purged_manifests: run.plan.purgedManifests,
    });
  }

  #log(run: GcRunRecord, line: string, level = "INFO"): void {
    run.log.push(
      `${new Date(this.#world.now()).toISOString().slice(0, 19)}Z [${level}] [/jobservice/job/impl/gc/garbage_collection.go]: ${line}`,
    );
  }

  #tick(): void {
    const now = this.#world.now();
    this.#dispatch(now);
    for (const run of this.#runs.values()) {
      const ended = run.job !== "Running" && run.job !== "Pending";
      if (run.status === "Running" && ended && now >= run.jobEnd + GC_STATUS_LAG_MS) {
        this.#settle(run, run.jobEnd + GC_STATUS_LAG_MS);
      }
    }
    const s = this.#schedule;
    if (s?.nextRun !== undefined && now >= s.nextRun) {
      s.nextRun = nextCronTime(s.spec, now);
      const policy = s.policy;
      // Through the job service's SCHEDULER queue: it waits while that queue is paused.
      this.#world.jobservice.runScheduled(() => this.start(policy, "SCHEDULE"));
    }
  }

  /** Keeps the newest executions, dropping the oldest finished ones. */
  #sweep(): void {
    const finished = this.runs()
      .filter((r) => r.status !== "Running")
      .sort((a, b) => a.id - b.id);
    let excess = this.#runs.size - KEEP_EXECUTIONS;
    for (const r of finished) {
      if (excess-- <= 0) break;
      this.#runs.delete(r.id);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// API

const ScheduleBody = z.object({
  id: z.number().int().nullish(),
  status: z.string().nullish(),
  creation_time: z.string().nullish(),
  update_time: z.string().nullish(),
  schedule: z
    .object({
      // go-swagger skips the enum check for an empty value.
      type: z.preprocess(
        (v) => (v === "" ? undefined : v),
        z.enum(["Hourly", "Daily", "Weekly", "Custom", "Manual", "None", "Schedule"]).nullish(),
      ),
      cron: z.string().nullish(),
      next_scheduled_time: z.string().nullish(),
    })
    .nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
});
type ScheduleBody = z.output<typeof ScheduleBody>;

/** Reads the policy out of the parameters the way Harbor's handler does. */
function gcPolicy(parameters: Record<string, unknown>): GcPolicy {
  const policy: GcPolicy = {
    deleteUntagged: parameters.delete_untagged === true,
    dryRun: parameters.dry_run === true,
    workers: 0,
  };
  const workers = parameters.workers;
  if (typeof workers === "number") {
    if (!Number.isInteger(workers)) throw badRequest("bad request: workers should be integer format");
    if (workers <= 0 || workers > 5) {
      throw badRequest(
        `Error: Invalid number of workers:${workers}. Workers must be greater than 0 and less than or equal to 5.`,
      );
    }
    policy.workers = workers;
  }
  return policy;
}

/** Applies a schedule request; returns the execution id for Manual, else 0. */
function kick(world: World, body: ScheduleBody): number {
  // Harbor dereferences `schedule` without a nil check.
  if (!body.schedule) throw internal("nil schedule");
  const { type, cron } = body.schedule;
  const parameters = body.parameters ?? {};
  switch (type) {
    case "Manual":
      return world.gc.start(gcPolicy(parameters), "MANUAL").id;
    case "None":
      world.gc.deleteSchedule();
      return 0;
    case "Hourly":
    case "Daily":
    case "Weekly":
    case "Custom": {
      const policy = gcPolicy(parameters);
      let spec: CronSpec;
      try {
        spec = parseCron(cron ?? "");
      } catch (e) {
        throw badRequest(
          `invalid cron string for scheduled gc: ${cron ?? ""}, error: ${(e as Error).message}`,
        );
      }
      // The scheduled runs get the policy without dry_run (Harbor reads dry_run for Manual only):
      // a schedule never dry-runs.
      world.gc.setSchedule(type, cron ?? "", spec, { ...policy, dryRun: false });
      return 0;
    }
    default:
      // "Schedule" (and no type) is accepted and does nothing.
      return 0;
  }
}

const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();

function renderRun(r: GcRunRecord) {
  return {
    id: r.id,
    job_name: "GARBAGE_COLLECTION",
    job_kind: r.trigger,
    job_parameters: goJson(r.parameters),
    schedule: { type: title(r.trigger), next_scheduled_time: ZERO_TIME },
    job_status: r.status,
    creation_time: harborTime(r.startTime),
    update_time: harborTime(r.updateTime),
  };
}

function renderSchedule(s: GcScheduleRecord) {
  const next = s.nextRun;
  return {
    id: s.id,
    job_kind: s.cron,
    job_parameters: goJson({ delete_untagged: s.policy.deleteUntagged, workers: s.policy.workers }),
    // The schedule's own execution runs as long as the schedule exists.
    job_status: "Running",
    schedule: {
      type: s.cronType,
      cron: s.cron,
      next_scheduled_time: next === undefined ? ZERO_TIME : harborTime(next),
    },
    creation_time: harborTime(s.creationTime),
    update_time: harborTime(s.updateTime),
  };
}

const fields: Fields<GcRunRecord> = {
  id: (r) => r.id,
  status: (r) => r.status,
  trigger: (r) => r.trigger,
  start_time: (r) => harborTime(r.startTime),
  update_time: (r) => harborTime(r.updateTime),
};

function gcRun(world: World, id: number): GcRunRecord {
  const run = world.gc.get(id);
  if (!run) throw notFound(`garbage collection execution ${id} not found`);
  return run;
}

function auditGc(ctx: Ctx, operation: "create" | "update"): void {
  auditWrite(ctx, { project_id: 0, resource: "garbage collection", resource_type: "gc", operation });
}

const routes: RouteSpec[] = [
  {
    op: "getGCHistory",
    method: "GET",
    path: "/system/gc",
    paged: true,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "garbage-collection", "list");
      return listReply(ctx, ctx.world.gc.runs(), fields, {
        render: renderRun,
        defaultOrder: (a, b) => b.startTime - a.startTime || b.id - a.id,
      });
    },
  },
  {
    op: "getGCSchedule",
    method: "GET",
    path: "/system/gc/schedule",
    handle(ctx): Reply {
      requireSystem(ctx, "garbage-collection", "read");
      const s = ctx.world.gc.schedule;
      // No schedule: 200 with an empty body.
      return s ? ok(renderSchedule(s)) : ok();
    },
  },
  {
    op: "createGCSchedule",
    method: "POST",
    path: "/system/gc/schedule",
    body: { name: "schedule", schema: ScheduleBody },
    handle(ctx): Reply {
      requireSystem(ctx, "garbage-collection", "create");
      const id = kick(ctx.world, ctx.body as ScheduleBody);
      auditGc(ctx, "create");
      // The request path with its last segment replaced by the id (…/schedule → …/<id>).
      const path = ctx.url.pathname;
      return { status: 201, headers: { location: `${path.slice(0, path.lastIndexOf("/"))}/${id}` } };
    },
  },
  {
    op: "updateGCSchedule",
    method: "PUT",
    path: "/system/gc/schedule",
    body: { name: "schedule", schema: ScheduleBody },
    handle(ctx) {
      requireSystem(ctx, "garbage-collection", "update");
      kick(ctx.world, ctx.body as ScheduleBody);
      auditGc(ctx, "update");
      return ok();
    },
  },
  {
    op: "getGC",
    method: "GET",
    path: "/system/gc/{gc_id}",
    params: { gc_id: "int" },
    handle(ctx) {
      requireSystem(ctx, "garbage-collection", "read");
      return ok(renderRun(gcRun(ctx.world, ctx.params.gc_id as number)));
    },
  },
  {
    op: "stopGC",
    method: "PUT",
    path: "/system/gc/{gc_id}",
    params: { gc_id: "int" },
    handle(ctx) {
      requireSystem(ctx, "garbage-collection", "stop");
      const id = ctx.params.gc_id as number;
      const run = ctx.world.gc.get(id);
      if (!run) throw notFound(`execution ${id} not found`);
      ctx.world.gc.stop(run);
      auditGc(ctx, "update");
      return ok();
    },
  },
  {
    op: "getGCLog",
    method: "GET",
    path: "/system/gc/{gc_id}/log",
    params: { gc_id: "int" },
    handle(ctx) {
      requireSystem(ctx, "garbage-collection", "read");
      const id = ctx.params.gc_id as number;
      const run = ctx.world.gc.get(id);
      if (!run) throw notFound(`garbage collection ${id} log is not found`);
      // The job service has no log until the job has run.
      if (!ctx.world.gc.hasLog(run)) throw notFound("object is not found");
      // Harbor relays the job service's text without a charset.
      return { status: 200, text: `${run.log.join("\n")}\n`, headers: { "content-type": "text/plain" } };
    },
  },
];

function existingRun(world: World, id: number): GcRunRecord {
  const run = world.gc.get(id);
  if (!run) throw new Error(`no gc execution ${id}`);
  return run;
}

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /**
     * Plans the next GC run to start: how its job ends (Success or Error), how much world time the
     * job takes, and what a successful one reports removed (freedSpace bytes, purgedBlobs,
     * purgedManifests). Plans queue up, one per run; runs without a plan use the default.
     */
    plan(p: GcPlan): void {
      world.gc.plan(p);
    },
    /** The outcome of runs without a plan. Initially Success after 2000 ms, nothing removed. */
    setDefaultPlan(p: GcPlan): void {
      world.gc.setDefaultPlan(p);
    },
    /**
     * Ends a running GC's job now, with the given status or its planned one; the run shows it
     * GC_STATUS_LAG_MS later, as in Harbor.
     */
    complete(id: number, status?: "Success" | "Error"): void {
      world.gc.complete(existingRun(world, id), status);
    },
    /** Starts a run of the current schedule now (trigger SCHEDULE); returns its execution id. */
    fireSchedule(): number {
      return world.gc.fireSchedule().id;
    },
    /** Every GC execution: id, trigger, status, parameters and times (ms). */
    runs: () =>
      world.gc.runs().map((r) => ({
        id: r.id,
        trigger: r.trigger,
        status: r.status,
        jobStatus: r.job,
        parameters: r.parameters,
        startTime: r.startTime,
        updateTime: r.updateTime,
        jobId: r.jobId,
      })),
  }),
});
