// Harbor's scheduled system jobs (/system/gc, /system/purgeaudit, and scan-all in the same shape):
// a schedule at /system/<job>/schedule, a history of runs, one run, its log and stop. A request is a
// Schedule ({schedule: {type, cron}, parameters}); a run or the schedule comes back as an ExecHistory
// whose job_parameters are a JSON string. Each job gives its paths, operation names and models.
import { z } from "zod";
import { nullAsAbsent } from "./common.ts";
import { type HistoryListFilter, listQuery } from "./query.ts";
import { path } from "./request-url.ts";
import { type CallOptions, type HarborTransport, LOG_RESPONSE_LIMIT } from "./transport.ts";

/** Schedule types: Manual starts a run, None deletes the schedule, "Schedule" is accepted and does nothing. */
export const SystemJobScheduleType = z.enum([
  "Hourly",
  "Daily",
  "Weekly",
  "Custom",
  "Manual",
  "None",
  "Schedule",
]);
export type SystemJobScheduleType = z.infer<typeof SystemJobScheduleType>;

export const ScheduleObj = z.object({
  type: z.string().optional(),
  cron: z.string().optional(),
  next_scheduled_time: z.string().optional(),
});
export type ScheduleObj = z.output<typeof ScheduleObj>;

/**
 * A run, or (from getSchedule) the schedule in the same shape: job_kind is then the cron string
 * and schedule.type the schedule type.
 */
export const ExecHistory = z.object({
  id: z.number().int().optional(),
  /** The job's name for runs (e.g. GARBAGE_COLLECTION, PURGE_AUDIT); empty for the schedule. */
  job_name: z.string().optional(),
  /** MANUAL or SCHEDULE for runs; the cron string for the schedule. */
  job_kind: z.string().optional(),
  /** The run's parameters as a JSON string. */
  job_parameters: z.string().optional(),
  schedule: nullAsAbsent(ScheduleObj),
  /** The raw status: Running, Success, Error or Stopped. */
  job_status: z.string().optional(),
  deleted: z.boolean().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type ExecHistory = z.output<typeof ExecHistory>;

/** A run Harbor has stored, as history and get return it: its id is always there. */
export const PersistedExecHistory = ExecHistory.extend({ id: z.number().int() });
export type PersistedExecHistory = z.output<typeof PersistedExecHistory>;

/** A schedule request for a job whose parameters follow `parameters`. */
export function scheduleRequest<P extends z.ZodType>(parameters: P) {
  return z.object({
    schedule: z.object({
      type: SystemJobScheduleType,
      /** Six fields, seconds first and 0, e.g. "0 0 3 * * *"; needed by Hourly/Daily/Weekly/Custom. */
      cron: z.string().optional(),
    }),
    parameters,
  });
}

/** What tells one scheduled system job from another. */
export interface SystemJobSpec<Run extends z.ZodType<ExecHistory>, Req extends z.ZodType> {
  /** The history path, e.g. "/system/gc"; the schedule is at `${base}/schedule`. */
  base: string;
  /** Harbor's operation name of each call, for logs and metrics. */
  operations: Record<
    "list" | "get" | "log" | "getSchedule" | "createSchedule" | "updateSchedule" | "stop",
    { operation: string }
  >;
  /** The model of a stored run (history and get). */
  run: Run;
  /** The model of a schedule request. */
  schedule: Req;
}

export class SystemJobApi<
  Run extends z.ZodType<ExecHistory>,
  Req extends z.ZodType<{ schedule: { type: SystemJobScheduleType } }>,
> {
  readonly #t: HarborTransport;
  readonly #job: SystemJobSpec<Run, Req>;

  constructor(transport: HarborTransport, job: SystemJobSpec<Run, Req>) {
    this.#t = transport;
    this.#job = job;
  }

  /** Every page of the history (or the first `limit` runs), newest first unless sorted otherwise. */
  listHistory(filter?: HistoryListFilter, opts?: CallOptions): Promise<z.output<Run>[]> {
    const { base, operations, run } = this.#job;
    return this.#t.listAll(
      { ...opts, ...operations.list, method: "GET", path: base, query: listQuery(filter) },
      run,
      filter?.limit,
    );
  }

  /** One run. Harbor 2.12 answers an unknown id with a masked 500, not a 404. */
  get(id: number, opts?: CallOptions): Promise<z.output<Run>> {
    const { base, operations, run } = this.#job;
    return this.#t.json({ ...opts, ...operations.get, method: "GET", path: base + path`/${id}` }, run);
  }

  /** The run's log as text; 404 (notFound, "object is not found") until the job has run. */
  getLog(id: number, opts?: CallOptions): Promise<string> {
    const { base, operations } = this.#job;
    return this.#t.text({
      ...opts,
      ...operations.log,
      method: "GET",
      path: base + path`/${id}/log`,
      maxResponseBytes: LOG_RESPONSE_LIMIT,
    });
  }

  /** The schedule; undefined when there is none (Harbor answers 200 with no body). */
  getSchedule(opts?: CallOptions): Promise<ExecHistory | undefined> {
    const { base, operations } = this.#job;
    return this.#t.jsonOrEmpty(
      { ...opts, ...operations.getSchedule, method: "GET", path: `${base}/schedule` },
      ExecHistory,
    );
  }

  /**
   * POST of the schedule: Manual starts a run and returns its id; None deletes the schedule; a
   * cron type replaces the schedule. Every type but Manual returns 0.
   */
  async createSchedule(schedule: z.input<Req>, opts?: CallOptions): Promise<number> {
    const { base, operations } = this.#job;
    const body = this.#job.schedule.parse(schedule);
    return Number(
      await this.#t.created({
        ...opts,
        ...operations.createSchedule,
        method: "POST",
        path: `${base}/schedule`,
        body,
      }),
    );
  }

  /** PUT of the schedule: the same effects as createSchedule (Manual starts a run here too). */
  updateSchedule(schedule: z.input<Req>, opts?: CallOptions): Promise<void> {
    const { base, operations } = this.#job;
    const body = this.#job.schedule.parse(schedule);
    return this.#t.noContent({
      ...opts,
      ...operations.updateSchedule,
      method: "PUT",
      path: `${base}/schedule`,
      body,
      // A Manual schedule starts a run each time it is sent.
      idempotent: body.schedule.type !== "Manual",
    });
  }

  /** Stops a running job; a finished one is left as it is. */
  stop(id: number, opts?: CallOptions): Promise<void> {
    const { base, operations } = this.#job;
    return this.#t.noContent({
      ...opts,
      ...operations.stop,
      method: "PUT",
      path: base + path`/${id}`,
    });
  }
}
