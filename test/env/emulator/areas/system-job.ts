// What Harbor 2.12.4's scheduled system jobs (GC, audit-log purge, and scan-all in the same shape)
// share: the API of a schedule at /system/<job>/schedule, a history, one execution, its log and
// stop; the schedule record that fires through the job service's SCHEDULER queue; the execution
// sweeper; and how executions and the schedule are printed. Each job's area gives its store (how a
// run progresses), its request handling (kick) and its messages.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireSystem } from "../auth.ts";
import { notFound } from "../errors.ts";
import { type Fields, listReply } from "../listing.ts";
import { type Ctx, ok, type Reply, type RouteSpec } from "../router.ts";
import { harborTime, ZERO_TIME } from "../time.ts";
import type { World } from "../world.ts";
import { type CronSpec, nextCronTime } from "./cron.ts";

export type Trigger = "MANUAL" | "SCHEDULE";

/** Harbor's execution sweeper keeps this many executions per vendor type. */
export const KEEP_EXECUTIONS = 50;

/** Go's json.Marshal of a map: keys in sorted order. */
export function goJson(map: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/** What every job's execution record holds. */
export interface JobRun {
  id: number;
  trigger: Trigger;
  /** The execution's status, as the API shows it. */
  status: string;
  /** Harbor's execution extra attributes, printed as job_parameters. */
  parameters: Record<string, unknown>;
  startTime: number;
  updateTime: number;
  log: string[];
}

/** A job's schedule; `policy` is what its scheduled runs start with. */
export interface JobScheduleRecord<P> {
  id: number;
  cronType: string;
  cron: string;
  spec: CronSpec;
  policy: P;
  creationTime: number;
  updateTime: number;
  nextRun?: number;
}

/**
 * A job's schedule: replaced (Harbor deletes the old one, then creates the new one), deleted, fired
 * by hand, and fired on the world clock through the job service's SCHEDULER queue (it waits while
 * that queue is paused).
 */
export class JobSchedule<P, S extends JobScheduleRecord<P> = JobScheduleRecord<P>> {
  readonly #world: World;
  readonly #start: (policy: P) => void;
  #record: S | undefined;

  constructor(world: World, start: (policy: P) => void) {
    this.#world = world;
    this.#start = start;
  }

  get record(): S | undefined {
    return this.#record;
  }

  set(
    cronType: string,
    cron: string,
    spec: CronSpec,
    policy: P,
    extra?: Omit<S, keyof JobScheduleRecord<P>>,
  ) {
    const now = this.#world.now();
    this.#record = {
      id: this.#world.ids.next("schedule"),
      cronType,
      cron,
      spec,
      policy,
      ...extra,
      creationTime: now,
      updateTime: now,
      nextRun: nextCronTime(spec, now),
    } as S;
  }

  delete(): void {
    this.#record = undefined;
  }

  /** On every world-clock tick: starts a run when the next time has passed. */
  tick(now: number): void {
    const s = this.#record;
    if (s?.nextRun !== undefined && now >= s.nextRun) {
      s.nextRun = nextCronTime(s.spec, now);
      const policy = s.policy;
      this.#world.jobservice.runScheduled(() => this.#start(policy));
    }
  }
}

/** Keeps the newest executions, dropping the oldest finished ones. */
export function sweepExecutions(runs: Map<number, { id: number; status: string }>): void {
  const finished = [...runs.values()].filter((r) => r.status !== "Running").sort((a, b) => a.id - b.id);
  let excess = runs.size - KEEP_EXECUTIONS;
  for (const r of finished) {
    if (excess-- <= 0) break;
    runs.delete(r.id);
  }
}

/** A line of a job's log as the job service writes it. */
export function jobLogLine(world: World, source: string, line: string, level = "INFO"): string {
  return `${new Date(world.now()).toISOString().slice(0, 19)}Z [${level}] [${source}]: ${line}`;
}

export const ScheduleBody = z.object({
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
export type ScheduleBody = z.output<typeof ScheduleBody>;

const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();

/** An execution as history and get print it. */
export function renderRun(jobName: string, r: JobRun) {
  return {
    id: r.id,
    job_name: jobName,
    job_kind: r.trigger,
    job_parameters: goJson(r.parameters),
    schedule: { type: title(r.trigger), next_scheduled_time: ZERO_TIME },
    job_status: r.status,
    creation_time: harborTime(r.startTime),
    update_time: harborTime(r.updateTime),
  };
}

/** The schedule as GET prints it, with its parameters as the job stores them. */
export function renderSchedule(s: JobScheduleRecord<unknown>, parameters: Record<string, unknown>) {
  const next = s.nextRun;
  return {
    id: s.id,
    job_kind: s.cron,
    job_parameters: goJson(parameters),
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

const fields: Fields<JobRun> = {
  id: (r) => r.id,
  status: (r) => r.status,
  trigger: (r) => r.trigger,
  start_time: (r) => harborTime(r.startTime),
  update_time: (r) => harborTime(r.updateTime),
};

/** What the routes use of a job's store. */
export interface JobStore<R extends JobRun, S> {
  runs(): R[];
  get(id: number): R | undefined;
  readonly schedule: S | undefined;
  stop(run: R): void;
  hasLog(run: R): boolean;
}

/** What tells one job's API from another's. */
export interface JobApi<R extends JobRun, S> {
  /** The history path, e.g. "/system/gc". */
  base: string;
  /** The path parameter of an execution id, e.g. "gc_id". */
  idParam: string;
  /** The system permission, e.g. "garbage-collection". */
  permission: string;
  /** Harbor's operation names. */
  ops: Record<"list" | "getSchedule" | "create" | "update" | "get" | "stop" | "log", string>;
  /** The audit log's resource and resource_type of a write. */
  audit: { resource: string; resource_type: string };
  /** job_name of an execution. */
  jobName: string;
  store(world: World): JobStore<R, S>;
  renderSchedule(s: S, world: World): unknown;
  /** The handler's checks before anything happens. */
  verify?(body: ScheduleBody, world: World): void;
  /** Applies a schedule request; the execution id for Manual, else 0. */
  kick(world: World, body: ScheduleBody): number;
  /** Location of a created run (default: path.Join(<request path>, "../<id>")). */
  location?(ctx: Ctx, id: number): string;
  /** What GET of an unknown execution throws. */
  unknownRun(id: number): Error;
  /** The 404 message of the log of an unknown execution. */
  unknownLog(id: number): string;
}

/** The routes of a scheduled system job. */
export function jobRoutes<R extends JobRun, S>(job: JobApi<R, S>): RouteSpec[] {
  const { base, idParam, permission, ops } = job;
  const audit = (ctx: Ctx, operation: "create" | "update") =>
    auditWrite(ctx, { project_id: 0, ...job.audit, operation });
  const location =
    job.location ??
    ((ctx: Ctx, id: number) => {
      const path = ctx.url.pathname.replace(/\/+$/, "");
      return `${path.slice(0, path.lastIndexOf("/"))}/${id}`;
    });
  const request = (ctx: Ctx): ScheduleBody => {
    const body = ctx.body as ScheduleBody;
    job.verify?.(body, ctx.world);
    return body;
  };
  return [
    {
      op: ops.list,
      method: "GET",
      path: base,
      paged: true,
      query: { q: { type: "string" }, sort: { type: "string" } },
      handle(ctx) {
        requireSystem(ctx, permission, "list");
        return listReply(ctx, job.store(ctx.world).runs(), fields as Fields<R>, {
          render: (r) => renderRun(job.jobName, r),
          defaultOrder: (a, b) => b.startTime - a.startTime || b.id - a.id,
        });
      },
    },
    {
      op: ops.getSchedule,
      method: "GET",
      path: `${base}/schedule`,
      handle(ctx): Reply {
        requireSystem(ctx, permission, "read");
        const s = job.store(ctx.world).schedule;
        // No schedule: 200 with an empty body.
        return s ? ok(job.renderSchedule(s, ctx.world)) : ok();
      },
    },
    {
      op: ops.create,
      method: "POST",
      path: `${base}/schedule`,
      body: { name: "schedule", schema: ScheduleBody },
      handle(ctx): Reply {
        requireSystem(ctx, permission, "create");
        const id = job.kick(ctx.world, request(ctx));
        audit(ctx, "create");
        return { status: 201, headers: { location: location(ctx, id) } };
      },
    },
    {
      op: ops.update,
      method: "PUT",
      path: `${base}/schedule`,
      body: { name: "schedule", schema: ScheduleBody },
      handle(ctx) {
        requireSystem(ctx, permission, "update");
        job.kick(ctx.world, request(ctx));
        audit(ctx, "update");
        return ok();
      },
    },
    {
      op: ops.get,
      method: "GET",
      path: `${base}/{${idParam}}`,
      params: { [idParam]: "int" },
      handle(ctx) {
        requireSystem(ctx, permission, "read");
        const id = ctx.params[idParam] as number;
        const run = job.store(ctx.world).get(id);
        if (!run) throw job.unknownRun(id);
        return ok(renderRun(job.jobName, run));
      },
    },
    {
      op: ops.stop,
      method: "PUT",
      path: `${base}/{${idParam}}`,
      params: { [idParam]: "int" },
      handle(ctx) {
        requireSystem(ctx, permission, "stop");
        const id = ctx.params[idParam] as number;
        const store = job.store(ctx.world);
        const run = store.get(id);
        if (!run) throw notFound(`execution ${id} not found`);
        store.stop(run);
        audit(ctx, "update");
        return ok();
      },
    },
    {
      op: ops.log,
      method: "GET",
      path: `${base}/{${idParam}}/log`,
      params: { [idParam]: "int" },
      handle(ctx) {
        requireSystem(ctx, permission, "read");
        const id = ctx.params[idParam] as number;
        const store = job.store(ctx.world);
        const run = store.get(id);
        if (!run) throw notFound(job.unknownLog(id));
        // The job service has no log until the job has run.
        if (!store.hasLog(run)) throw notFound("object is not found");
        // Harbor relays the job service's text without a charset.
        return { status: 200, text: `${run.log.join("\n")}\n`, headers: { "content-type": "text/plain" } };
      },
    },
  ];
}

/**
 * What every job's store keeps alike: its executions (swept to the newest KEEP_EXECUTIONS), its
 * schedule, the plans of the next runs and the default plan, and its log lines. A job's store says
 * how a run starts, progresses, stops and ends.
 */
export abstract class JobStoreBase<
  R extends JobRun,
  Plan extends object,
  P,
  S extends JobScheduleRecord<P> = JobScheduleRecord<P>,
> {
  readonly world: World;
  protected readonly runsById = new Map<number, R>();
  protected readonly jobSchedule: JobSchedule<P, S>;
  readonly #plans: Plan[] = [];
  #defaultPlan: Required<Plan>;
  readonly #logSource: string;
  readonly #what: string;

  /** `what` names the job in errors ("gc"); `logSource` is the job's source file in its log lines. */
  constructor(world: World, o: { what: string; logSource: string; defaultPlan: Required<Plan> }) {
    this.world = world;
    this.#what = o.what;
    this.#logSource = o.logSource;
    this.#defaultPlan = o.defaultPlan;
    this.jobSchedule = new JobSchedule(world, (policy) => this.start(policy, "SCHEDULE"));
    world.clock.onTick(() => this.tick(world.now()));
  }

  abstract start(policy: P, trigger: Trigger): R;
  /** Ends a running job now with the given status (or its planned one); the run follows later. */
  abstract complete(run: R, status?: "Success" | "Error"): void;
  protected abstract tick(now: number): void;

  runs(): R[] {
    return [...this.runsById.values()];
  }

  get(id: number): R | undefined {
    return this.runsById.get(id);
  }

  get schedule(): S | undefined {
    return this.jobSchedule.record;
  }

  /** The outcome of the next run that starts (first in, first out). */
  plan(p: Plan): void {
    this.#plans.push(p);
  }

  setDefaultPlan(p: Plan): void {
    this.#defaultPlan = { ...this.#defaultPlan, ...p };
  }

  deleteSchedule(): void {
    this.jobSchedule.delete();
  }

  /** Starts the scheduled job now, as the scheduler does when the cron time comes. */
  fireSchedule(): R {
    const s = this.jobSchedule.record;
    if (!s) throw new Error(`no ${this.#what} schedule is found`);
    return this.start(s.policy, "SCHEDULE");
  }

  /** The plan of a run that starts now: the next planned one, else the default. */
  protected nextPlan(): Required<Plan> {
    return { ...this.#defaultPlan, ...this.#plans.shift() };
  }

  /** Keeps the newest executions, dropping the oldest finished ones. */
  protected sweep(): void {
    sweepExecutions(this.runsById);
  }

  protected log(run: R, line: string, level = "INFO"): void {
    run.log.push(jobLogLine(this.world, this.#logSource, line, level));
  }
}

/**
 * The control API every job's area offers tests: plan the next runs (plans queue up, one per run;
 * runs without a plan use the default), set the default, end a running job now (its execution
 * shows it after Harbor's lag), and fire the schedule now (trigger SCHEDULE; the execution id).
 */
export function jobControl<R extends JobRun, Plan extends object>(
  store: Pick<
    JobStoreBase<R, Plan, unknown>,
    "plan" | "setDefaultPlan" | "get" | "complete" | "fireSchedule"
  >,
  what: string,
) {
  return {
    plan(p: Plan): void {
      store.plan(p);
    },
    setDefaultPlan(p: Plan): void {
      store.setDefaultPlan(p);
    },
    complete(id: number, status?: "Success" | "Error"): void {
      const run = store.get(id);
      if (!run) throw new Error(`no ${what} execution ${id}`);
      store.complete(run, status);
    },
    fireSchedule(): number {
      return store.fireSchedule().id;
    },
  };
}
