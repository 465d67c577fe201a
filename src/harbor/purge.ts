// Audit-log purge (/system/purgeaudit): the schedule, manual runs, history, logs, stop. Every call
// needs the system permission purge-audit. The schedule and the runs share GC's shapes: a request
// is a Schedule ({schedule: {type, cron}, parameters}), a run or the schedule comes back as an
// ExecHistory whose job_parameters are a JSON string.
//
// Parameters (Harbor 2.7–2.12): `audit_retention_hour` (a JSON number; 0 or -1 make the job end
// without purging), `include_operations` (a comma-separated list of create, delete, pull: the
// operations whose records are purged; empty purges nothing) and `dry_run`. Harbor refuses a
// request (any type, None included) without the first two keys: 400 "audit_retention_hour should
// provide" / "include_operations should provide". Harbor 2.13 renamed include_operations to
// include_event_types, with event types in place of operations (see the README of HarborAuditLogPurge
// for what the operator does against 2.13).
import { z } from "zod";
import { nullAsAbsent } from "./common.ts";
import { ScheduleObj } from "./gc.ts";

export { PurgeOperation } from "./model/enums.ts";

import { type HistoryListFilter, listQuery } from "./query.ts";
import { type CallOptions, type HarborTransport, LOG_RESPONSE_LIMIT, path } from "./transport.ts";

/** Schedule types, as for GC: Manual starts a run, None deletes the schedule, "Schedule" does nothing. */
export const PurgeScheduleType = z.enum([
  "Hourly",
  "Daily",
  "Weekly",
  "Custom",
  "Manual",
  "None",
  "Schedule",
]);
export type PurgeScheduleType = z.infer<typeof PurgeScheduleType>;

/**
 * A purge run, or (from getSchedule) the schedule in the same shape: job_kind is then the cron
 * string and schedule.type the schedule type.
 */
export const ExecHistory = z.object({
  id: z.number().int().optional(),
  /** PURGE_AUDIT for runs; empty for the schedule. */
  job_name: z.string().optional(),
  /** MANUAL or SCHEDULE for runs; the cron string for the schedule. */
  job_kind: z.string().optional(),
  /** The parameters as a JSON string, e.g. {"audit_retention_hour":168,"dry_run":false,"include_operations":"create,delete,pull"}. */
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

export const PurgeParameters = z.looseObject({
  /** Hours of audit records to keep. */
  audit_retention_hour: z.number().int(),
  /** Comma-separated operations, e.g. "create,delete,pull". */
  include_operations: z.string(),
  dry_run: z.boolean().optional(),
});

export const PurgeSchedule = z.object({
  schedule: z.object({
    type: PurgeScheduleType,
    /** Six fields, seconds first and 0; needed by Hourly/Daily/Weekly/Custom. */
    cron: z.string().optional(),
  }),
  parameters: PurgeParameters,
});
export type PurgeSchedule = z.input<typeof PurgeSchedule>;

export class PurgeApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** getPurgeHistory: every page (or the first `limit` runs), newest first unless sorted otherwise. */
  listHistory(filter?: HistoryListFilter, opts?: CallOptions): Promise<PersistedExecHistory[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "getPurgeHistory",
        method: "GET",
        path: "/system/purgeaudit",
        query: listQuery(filter),
      },
      PersistedExecHistory,
      filter?.limit,
    );
  }

  /** getPurgeJob. Harbor 2.12 answers an unknown id with a masked 500, not a 404. */
  get(id: number, opts?: CallOptions): Promise<PersistedExecHistory> {
    return this.#t.json(
      { ...opts, operation: "getPurgeJob", method: "GET", path: path`/system/purgeaudit/${id}` },
      PersistedExecHistory,
    );
  }

  /** getPurgeJobLog: the run's log as text; 404 until the job has run. */
  getLog(id: number, opts?: CallOptions): Promise<string> {
    return this.#t.text({
      ...opts,
      operation: "getPurgeJobLog",
      method: "GET",
      path: path`/system/purgeaudit/${id}/log`,
      maxResponseBytes: LOG_RESPONSE_LIMIT,
    });
  }

  /** getPurgeSchedule: undefined when there is no schedule (Harbor answers 200 with no body). */
  getSchedule(opts?: CallOptions): Promise<ExecHistory | undefined> {
    return this.#t.jsonOrEmpty(
      { ...opts, operation: "getPurgeSchedule", method: "GET", path: "/system/purgeaudit/schedule" },
      ExecHistory,
    );
  }

  /**
   * createPurgeSchedule: Manual starts a run and returns its id; None deletes the schedule; a cron
   * type replaces the schedule. Every type but Manual returns 0.
   */
  async createSchedule(schedule: PurgeSchedule, opts?: CallOptions): Promise<number> {
    const body = PurgeSchedule.parse(schedule);
    return Number(
      await this.#t.created({
        ...opts,
        operation: "createPurgeSchedule",
        method: "POST",
        path: "/system/purgeaudit/schedule",
        body,
      }),
    );
  }

  /** updatePurgeSchedule: the same effects as createSchedule (Manual starts a run here too). */
  updateSchedule(schedule: PurgeSchedule, opts?: CallOptions): Promise<void> {
    const body = PurgeSchedule.parse(schedule);
    return this.#t.noContent({
      ...opts,
      operation: "updatePurgeSchedule",
      method: "PUT",
      path: "/system/purgeaudit/schedule",
      body,
      // A Manual schedule starts a purge each time it is sent.
      idempotent: body.schedule.type !== "Manual",
    });
  }

  /** stopPurge: stops a running purge; a finished one is left as it is. */
  stop(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "stopPurge",
      method: "PUT",
      path: path`/system/purgeaudit/${id}`,
    });
  }
}
