// Audit-log purge (/system/purgeaudit): the schedule, manual runs, history, logs, stop. Every call
// needs the system permission purge-audit. The schedule and the runs share GC's shapes: a request
// is a Schedule ({schedule: {type, cron}, parameters}), a run or the schedule comes back as an
// ExecHistory whose job_parameters are a JSON string.
//
// Parameters: `audit_retention_hour` (a JSON number; 0 or -1 make the job end without purging),
// what to purge, and `dry_run`. What to purge is, up to 2.12, `include_operations` (a comma-separated
// list of create, delete, pull: the operations whose records go) and, from 2.13, `include_event_types`
// (a comma-separated list of the event types GET /auditlog-exts/events lists: create_artifact,
// delete_project, …; Harbor does not check the names, so a word that is no event type purges
// nothing). Harbor refuses a request (any type, None included) without the retention or without its
// release's key: 400 "audit_retention_hour should provide" / "include_operations should provide" /
// "include_event_types should provide"; the other release's key is not read.
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
// {"audit_retention_hour":168,"dry_run":false,"include_operations":"create,delete,pull"} (2.12) or
// {"audit_retention_hour":168,"dry_run":false,"include_event_types":"create_artifact,pull_artifact"}.

export const PurgeParameters = z.looseObject({
  /** Hours of audit records to keep. */
  audit_retention_hour: z.number().int(),
  /** Up to 2.12: comma-separated operations, e.g. "create,delete,pull". */
  include_operations: z.string().optional(),
  /** From 2.13: comma-separated event types, e.g. "create_artifact,pull_artifact". */
  include_event_types: z.string().optional(),
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
