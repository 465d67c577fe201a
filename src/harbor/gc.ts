// Garbage collection (/system/gc): the schedule, manual runs, history, logs, stop. Every call needs
// the system permission garbage-collection.
import { z } from "zod";
import { nullAsAbsent } from "./common.ts";
import { type HistoryListFilter, listQuery } from "./query.ts";
import { type CallOptions, type HarborTransport, LOG_RESPONSE_LIMIT, path } from "./transport.ts";

/** Schedule types; "Schedule" is accepted by Harbor and does nothing. */
export const GcScheduleType = z.enum(["Hourly", "Daily", "Weekly", "Custom", "Manual", "None", "Schedule"]);
export type GcScheduleType = z.infer<typeof GcScheduleType>;

export const ScheduleObj = z.object({
  type: z.string().optional(),
  cron: z.string().optional(),
  next_scheduled_time: z.string().optional(),
});
export type ScheduleObj = z.output<typeof ScheduleObj>;

/**
 * A GC run (or, from getSchedule, the schedule in the same shape: job_kind is then the cron
 * string and schedule.type the schedule type).
 */
export const GcHistory = z.object({
  id: z.number().int().optional(),
  job_name: z.string().optional(),
  /** MANUAL or SCHEDULE for runs. */
  job_kind: z.string().optional(),
  /**
   * The run's parameters as a JSON string, e.g. {"delete_untagged":true,"dry_run":false,…}; a
   * successful run gains freed_space, purged_blobs and purged_manifests once it shows Success.
   */
  job_parameters: z.string().optional(),
  schedule: nullAsAbsent(ScheduleObj),
  /**
   * The raw status: Running, Success, Error or Stopped. Harbor 2.12 keeps a run Running for about
   * 25 s after its job has ended.
   */
  job_status: z.string().optional(),
  deleted: z.boolean().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type GcHistory = z.output<typeof GcHistory>;

export const GcParameters = z.looseObject({
  delete_untagged: z.boolean().optional(),
  dry_run: z.boolean().optional(),
  /** 1 to 5. */
  workers: z.number().int().min(1).max(5).optional(),
});

export const GcSchedule = z.object({
  schedule: z.object({
    type: GcScheduleType,
    /** Six fields, seconds first and 0, e.g. "0 0 3 * * *"; needed by Hourly/Daily/Weekly/Custom. */
    cron: z.string().optional(),
  }),
  parameters: GcParameters.optional(),
});
export type GcSchedule = z.input<typeof GcSchedule>;

/** What a GC run's job_parameters say it removed: set once the run shows Success. */
export interface GcResult {
  /** Bytes freed (for a dry run: that would be freed). */
  freedSpace?: number;
  purgedBlobs?: number;
  purgedManifests?: number;
}

/**
 * A GC run's job_parameters, which Harbor sends as a JSON string: the parameters it ran with and,
 * once it succeeded, what it removed. Undefined fields when the string is missing or not JSON.
 */
export function gcRunParameters(run: GcHistory): {
  deleteUntagged?: boolean;
  dryRun?: boolean;
  workers?: number;
} & GcResult {
  let p: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(run.job_parameters ?? "");
    p = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
  } catch {
    p = {};
  }
  const bool = (v: unknown) => (typeof v === "boolean" ? v : undefined);
  const int = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : undefined);
  const out = {
    deleteUntagged: bool(p.delete_untagged),
    dryRun: bool(p.dry_run),
    workers: int(p.workers),
    freedSpace: int(p.freed_space),
    purgedBlobs: int(p.purged_blobs),
    purgedManifests: int(p.purged_manifests),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

export class GcApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** getGCHistory: every page (or the first `limit` runs), newest first unless sorted otherwise. */
  listHistory(filter?: HistoryListFilter, opts?: CallOptions): Promise<GcHistory[]> {
    return this.#t.listAll(
      { ...opts, operation: "getGCHistory", method: "GET", path: "/system/gc", query: listQuery(filter) },
      GcHistory,
      filter?.limit,
    );
  }

  /** getGC */
  get(id: number, opts?: CallOptions): Promise<GcHistory> {
    return this.#t.json(
      { ...opts, operation: "getGC", method: "GET", path: path`/system/gc/${id}` },
      GcHistory,
    );
  }

  /** getGCLog: the run's log as text; 404 (notFound, "object is not found") until the job has run. */
  getLog(id: number, opts?: CallOptions): Promise<string> {
    return this.#t.text({
      ...opts,
      operation: "getGCLog",
      method: "GET",
      path: path`/system/gc/${id}/log`,
      maxResponseBytes: LOG_RESPONSE_LIMIT,
    });
  }

  /** getGCSchedule: undefined when there is no schedule (Harbor answers 200 with no body). */
  getSchedule(opts?: CallOptions): Promise<GcHistory | undefined> {
    return this.#t.jsonOrEmpty(
      { ...opts, operation: "getGCSchedule", method: "GET", path: "/system/gc/schedule" },
      GcHistory,
    );
  }

  /**
   * createGCSchedule: Manual starts a run and returns its id; None deletes the schedule; a cron
   * type replaces the schedule. Every type but Manual returns 0.
   */
  async createSchedule(schedule: GcSchedule, opts?: CallOptions): Promise<number> {
    const body = GcSchedule.parse(schedule);
    return Number(
      await this.#t.created({
        ...opts,
        operation: "createGCSchedule",
        method: "POST",
        path: "/system/gc/schedule",
        body,
      }),
    );
  }

  /** updateGCSchedule: the same effects as createSchedule (Manual starts a run here too). */
  updateSchedule(schedule: GcSchedule, opts?: CallOptions): Promise<void> {
    const body = GcSchedule.parse(schedule);
    return this.#t.noContent({
      ...opts,
      operation: "updateGCSchedule",
      method: "PUT",
      path: "/system/gc/schedule",
      body,
      // A Manual schedule starts a GC each time it is sent.
      idempotent: body.schedule.type !== "Manual",
    });
  }

  /** stopGC: stops a running GC; a finished one is left as it is. */
  stop(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({ ...opts, operation: "stopGC", method: "PUT", path: path`/system/gc/${id}` });
  }
}
