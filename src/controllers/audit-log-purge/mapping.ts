// HarborAuditLogPurge's pure mappings: spec → Harbor's purge schedule request, Harbor's schedule and
// newest run → what is compared and what status shows.
//
// Harbor 2.12 stores a purge schedule's parameters as they were sent (GET shows them in
// job_parameters): audit_retention_hour, include_operations (a comma-separated list) and dry_run,
// all three compared. Every request, None included, must carry audit_retention_hour and
// include_operations (Harbor answers 400 otherwise), so the spec's values always go along.
//
// Harbor 2.13 renamed include_operations to include_event_types and reads event types there
// instead of operations; this operator speaks the 2.7–2.12 form and refuses, by name, to manage
// the purge of a Harbor that reports 2.13 or newer (see `unsupportedRelease`).
import { HarborAuditLogPurgeSpec, type PurgeRunStatus } from "../../api/audit-log-purge.ts";
import type { ExecHistory, PurgeSchedule } from "../../harbor/purge.ts";
import { has, releaseOf } from "../../harbor/release.ts";
import {
  describeSchedule,
  isRunning,
  jobRunStatus,
  type ObservedJob,
  requestSchedule,
  scheduleDiff,
  scheduleFromHistory,
  scheduleStatus,
  specSchedule,
} from "../shared/executions.ts";
import type { UnnamedSpecFields } from "../shared/export.ts";

export { isRunning };

export interface ObservedPurgeSchedule {
  type: string;
  cron?: string;
  retentionHours?: number;
  /** Sorted, lower case, without blanks. */
  includeOperations?: string[];
  dryRun?: boolean;
  nextScheduledTime?: string;
}

export type ObservedPurge = ObservedJob<ObservedPurgeSchedule, ExecHistory>;

/**
 * Why the operator does not manage this Harbor's purge, or undefined: a Harbor that reports 2.13
 * or newer wants include_event_types, which this operator does not send. A version that names no
 * release is taken as the newest known (harbor/release.ts).
 */
export function unsupportedRelease(harborVersion: string | undefined): string | undefined {
  if (!has(releaseOf(harborVersion), "purgeEventTypes")) return undefined;
  return `this Harbor is ${harborVersion ?? "of a release it does not name"}: from 2.13 on Harbor takes the audit-log purge's event types as include_event_types, in another vocabulary than the include_operations (create, delete, pull) of 2.7–2.12 that this operator sends; it would refuse the request or purge other records than spec.includeOperations says. Manage the purge in Harbor's UI, or use a release of the operator that supports 2.13`;
}

const operations = (text: string) =>
  text
    .split(",")
    .map((o) => o.trim().toLowerCase())
    .filter((o) => o !== "")
    .sort();

export function scheduleFrom(h: ExecHistory | undefined): ObservedPurgeSchedule | undefined {
  return scheduleFromHistory(h, (p) => ({
    ...(typeof p.audit_retention_hour === "number" ? { retentionHours: p.audit_retention_hour } : {}),
    ...(typeof p.include_operations === "string"
      ? { includeOperations: operations(p.include_operations) }
      : {}),
    ...(typeof p.dry_run === "boolean" ? { dryRun: p.dry_run } : {}),
  }));
}

function parameters(spec: HarborAuditLogPurgeSpec) {
  return {
    audit_retention_hour: spec.retentionHours,
    include_operations: [...spec.includeOperations].sort().join(","),
    dry_run: spec.dryRun,
  };
}

/** The request that makes Harbor's schedule the spec's (None removes it). */
export function scheduleRequest(spec: HarborAuditLogPurgeSpec): PurgeSchedule {
  return {
    schedule: requestSchedule(spec.schedule),
    parameters: parameters(spec),
  };
}

/** The request that removes the schedule: Harbor wants the parameters even then. */
export function noScheduleRequest(spec: HarborAuditLogPurgeSpec): PurgeSchedule {
  return { schedule: { type: "None" }, parameters: parameters(spec) };
}

/** The request of a run now. */
export function runRequest(spec: HarborAuditLogPurgeSpec): PurgeSchedule {
  return { schedule: { type: "Manual" }, parameters: parameters(spec) };
}

export function diff(spec: HarborAuditLogPurgeSpec, observed: ObservedPurge): string[] {
  return scheduleDiff(spec.schedule, observed.schedule, (s) => [
    ...(s.retentionHours !== spec.retentionHours ? ["retentionHours"] : []),
    ...((s.includeOperations ?? []).join(",") !== [...spec.includeOperations].sort().join(",")
      ? ["includeOperations"]
      : []),
    ...((s.dryRun ?? false) !== spec.dryRun ? ["dryRun"] : []),
  ]);
}

export const runStatus: (h: ExecHistory & { id: number }) => PurgeRunStatus = jobRunStatus;

export function status(observed: ObservedPurge): { nextScheduledTime?: string; lastRun?: PurgeRunStatus } {
  return scheduleStatus(observed, runStatus);
}

export const describe: (observed: ObservedPurge) => string = describeSchedule;

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of scheduleRequest; see shared/export.ts)

/**
 * The spec that reproduces Harbor's purge schedule: type and cron, the retention, and the
 * operations and dry run where they differ from the spec's defaults. No schedule (Harbor's
 * default) is no resource: undefined.
 */
export function specFromPurge(
  s: ObservedPurgeSchedule | undefined,
): { spec: UnnamedSpecFields<typeof HarborAuditLogPurgeSpec> } | { skip: string } | undefined {
  if (!s) return undefined;
  const schedule = specSchedule(s);
  if ("skip" in schedule) return schedule;
  if (s.retentionHours === undefined)
    return { skip: "Harbor's purge schedule holds no audit_retention_hour, which the spec requires" };
  const operations = s.includeOperations ?? [];
  const all = HarborAuditLogPurgeSpec.shape.includeOperations.parse(undefined);
  return {
    spec: {
      ...schedule,
      retentionHours: s.retentionHours,
      ...(operations.join(",") === [...all].sort().join(",")
        ? {}
        : { includeOperations: operations as typeof all }),
      ...(s.dryRun ? { dryRun: true } : {}),
    },
  };
}
