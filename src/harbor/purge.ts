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
import {
  ExecHistory,
  PersistedExecHistory,
  SystemJobApi,
  SystemJobScheduleType,
  scheduleRequest,
} from "./system-job.ts";
import type { HarborTransport } from "./transport.ts";

export { PurgeOperation } from "./model/enums.ts";
export { ExecHistory, PersistedExecHistory };

/** Schedule types, as for GC: Manual starts a run, None deletes the schedule, "Schedule" does nothing. */
export const PurgeScheduleType = SystemJobScheduleType;
export type PurgeScheduleType = SystemJobScheduleType;

// A purge run's job_name is PURGE_AUDIT; its job_parameters are e.g.
// {"audit_retention_hour":168,"dry_run":false,"include_operations":"create,delete,pull"}.

export const PurgeParameters = z.looseObject({
  /** Hours of audit records to keep. */
  audit_retention_hour: z.number().int(),
  /** Comma-separated operations, e.g. "create,delete,pull". */
  include_operations: z.string(),
  dry_run: z.boolean().optional(),
});

export const PurgeSchedule = scheduleRequest(PurgeParameters);
export type PurgeSchedule = z.input<typeof PurgeSchedule>;

/** The audit-log purge's history, runs, logs, schedule and stop (the system permission purge-audit). */
export class PurgeApi extends SystemJobApi<typeof PersistedExecHistory, typeof PurgeSchedule> {
  constructor(transport: HarborTransport) {
    super(transport, {
      base: "/system/purgeaudit",
      operations: {
        list: { operation: "getPurgeHistory" },
        get: { operation: "getPurgeJob" },
        log: { operation: "getPurgeJobLog" },
        getSchedule: { operation: "getPurgeSchedule" },
        createSchedule: { operation: "createPurgeSchedule" },
        updateSchedule: { operation: "updatePurgeSchedule" },
        stop: { operation: "stopPurge" },
      },
      run: PersistedExecHistory,
      schedule: PurgeSchedule,
    });
  }
}
