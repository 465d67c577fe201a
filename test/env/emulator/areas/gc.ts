// Garbage collection: the schedule, and runs that progress on the world clock. A run starts as
// Running (on a job service worker when one is free), writes a text log, and ends as planned
// through the control API (Success after 2 s of world time unless told otherwise), or Stopped.
// A cron schedule starts a run whenever its next time passes on the world clock.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireSystem } from "../auth.ts";
import { badRequest, internal, notFound } from "../errors.ts";
import { type Fields, listReply } from "../listing.ts";
import { type Ctx, ok, type Reply, type RouteSpec, textReply } from "../router.ts";
import { harborTime, type World, ZERO_TIME } from "../world.ts";
import { defineArea } from "./area.ts";

// ---------------------------------------------------------------------------------------------
// cron: robfig/cron's parser with a mandatory seconds field, as Harbor's scheduler uses it (UTC)

interface CronSpec {
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
  /** How the run ends. Default Success. */
  status?: "Success" | "Error";
  /** World time the run takes. Default 2000 ms. */
  durationMs?: number;
}

interface GcPolicy {
  deleteUntagged: boolean;
  dryRun: boolean;
  workers: number;
}

export interface GcRunRecord {
  id: number;
  trigger: Trigger;
  status: GcStatus;
  /** Harbor's execution extra attributes, printed as job_parameters. */
  parameters: Record<string, unknown>;
  startTime: number;
  updateTime: number;
  finishAt: number;
  outcome: "Success" | "Error";
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

/** Go's json.Marshal of a map: keys in sorted order. */
function goJson(map: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : 1))));
}

export class GcStore {
  readonly #world: World;
  readonly #runs = new Map<number, GcRunRecord>();
  #schedule: GcScheduleRecord | undefined;
  readonly #plans: GcPlan[] = [];
  #defaultPlan: Required<GcPlan> = { status: "Success", durationMs: 2000 };

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
    const plan = { ...this.#defaultPlan, ...this.#plans.shift() };
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
      finishAt: now + plan.durationMs,
      outcome: plan.status,
      log: [],
    };
    this.#runs.set(run.id, run);
    run.jobId = this.#world.jobservice.startJob("GARBAGE_COLLECTION", () => this.#finish(run, "Stopped"));
    this.#log(run, "start to run gc in job.");
    this.#log(
      run,
      `delete untagged: ${policy.deleteUntagged}, dry run: ${policy.dryRun}, workers: ${policy.workers || 1}`,
    );
    this.#sweep();
    return run;
  }

  /** Stops a running GC; a finished one stays as it is. */
  stop(run: GcRunRecord): void {
    if (run.status !== "Running") return;
    if (run.jobId) this.#world.jobservice.finishJob(run.jobId);
    this.#finish(run, "Stopped");
  }

  /** Ends a running GC now with the given status (or its planned one). */
  complete(run: GcRunRecord, status?: "Success" | "Error"): void {
    if (run.status !== "Running") return;
    if (run.jobId) this.#world.jobservice.finishJob(run.jobId);
    this.#finish(run, status ?? run.outcome);
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

  #finish(run: GcRunRecord, status: GcStatus): void {
    if (run.status !== "Running") return;
    run.status = status;
    run.updateTime = this.#world.now();
    if (status === "Success") this.#log(run, "success to run gc in job.");
    else if (status === "Error") this.#log(run, "failed to run gc in job.");
    else this.#log(run, "the job is stopped.");
  }

  #log(run: GcRunRecord, line: string): void {
    run.log.push(
      `${new Date(this.#world.now()).toISOString().slice(0, 19)}Z [INFO] [/jobservice/job/impl/gc/garbage_collection.go]: ${line}`,
    );
  }

  #tick(): void {
    const now = this.#world.now();
    for (const run of this.#runs.values()) {
      if (run.status === "Running" && now >= run.finishAt) this.complete(run);
    }
    const s = this.#schedule;
    if (s?.nextRun !== undefined && now >= s.nextRun) {
      s.nextRun = nextCronTime(s.spec, now);
      this.start(s.policy, "SCHEDULE");
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
      world.gc.setSchedule(type, cron ?? "", spec, policy);
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
      return textReply(`${run.log.join("\n")}\n`);
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
     * Plans the outcome of the next GC run to start: its final status (Success or Error) and how
     * much world time it takes. Plans queue up, one per run; runs without a plan use the default.
     */
    plan(p: GcPlan): void {
      world.gc.plan(p);
    },
    /** The outcome of runs without a plan. Initially Success after 2000 ms. */
    setDefaultPlan(p: GcPlan): void {
      world.gc.setDefaultPlan(p);
    },
    /** Ends a running GC now, with the given status or its planned one. */
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
        parameters: r.parameters,
        startTime: r.startTime,
        updateTime: r.updateTime,
        jobId: r.jobId,
      })),
  }),
});
