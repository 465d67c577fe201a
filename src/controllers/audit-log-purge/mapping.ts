// HarborAuditLogPurge's pure mappings: spec → Harbor's purge schedule request, Harbor's schedule and
// newest run → what is compared and what status shows.
//
// Harbor stores a purge schedule's parameters as they were sent (GET shows them in job_parameters):
// audit_retention_hour, what to purge (a comma-separated list) and dry_run, all three compared. Every
// request, None included, must carry the retention and what to purge (Harbor answers 400
// otherwise), so the spec's values always go along.
//
// What to purge depends on the release (`purgeTarget`): up to 2.12 `include_operations`, operations
// (spec.includeOperations: create, delete, pull; unset: all three); from 2.13 `include_event_types`,
// event types as GET /auditlog-exts/events lists them (spec.includeEventTypes; unset: every one
// listed). Harbor 2.13 stores any word there without a check, and a word that is no event type
// purges nothing: so the names are checked against Harbor's list first, and the operation words of
// 2.12 are never sent under the new key. A spec written for the other release is refused by name
// (UnsupportedByHarbor), saying what to write instead.
import { HarborAuditLogPurgeSpec, type PurgeRunStatus } from "../../api/audit-log-purge.ts";
import type { ExecHistory, PurgeSchedule } from "../../harbor/audit-log-purge.ts";
import { CHANGES } from "../../harbor/release.ts";
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
import { type HarborRelease, UNSUPPORTED_BY_HARBOR } from "../shared/harbor-release.ts";

export { isRunning };

export interface ObservedPurgeSchedule {
  type: string;
  cron?: string;
  retentionHours?: number;
  /** include_operations (2.12): sorted, lower case, without blanks. */
  includeOperations?: string[];
  /** include_event_types (2.13 on): sorted, without blanks. */
  includeEventTypes?: string[];
  dryRun?: boolean;
  nextScheduledTime?: string;
}

export type ObservedPurge = ObservedJob<ObservedPurgeSchedule, ExecHistory>;

/** The release from which Harbor purges by event type (include_event_types) instead of operation. */
export const EVENT_TYPES_SINCE = CHANGES.purgeEventTypes;

/** Ready=False (Stalled) reason: a listed event type is not one Harbor lists. */
export const UNKNOWN_EVENT_TYPE = "UnknownEventType";

/** The operations Harbor 2.12 purges: what an unset spec.includeOperations means there. */
const ALL_OPERATIONS = ["create", "delete", "pull"] as const;

/** What a purge removes, in the release's parameter: the spec's field it comes from, names sorted. */
export interface PurgeTarget {
  key: "include_operations" | "include_event_types";
  field: "includeOperations" | "includeEventTypes";
  names: string[];
}

/** Every operation, as Harbor 2.12 takes it: what a Harbor without event types purges by default. */
export const ALL_OPERATIONS_TARGET: PurgeTarget = {
  key: "include_operations",
  field: "includeOperations",
  names: [...ALL_OPERATIONS],
};

/** Why the spec cannot be applied to this Harbor: a Stalled condition's reason and message. */
export interface PurgeRefusal {
  reason: string;
  message: string;
}

/** Whether Harbor purges by event type (2.13 and later). */
export function purgesByEventType(release: HarborRelease): boolean {
  return release.atLeast(EVENT_TYPES_SINCE);
}

const sorted = (names: readonly string[]) => [...new Set(names)].sort();

/**
 * What the spec purges on this Harbor, or why it cannot. `eventTypes` is Harbor's list
 * (GET /auditlog-exts/events), read when Harbor purges by event type. A resource being deleted only
 * needs the key its None request must carry: a spec Harbor would refuse gets the release's default.
 */
export function purgeTarget(
  spec: HarborAuditLogPurgeSpec,
  release: HarborRelease,
  eventTypes: readonly string[] | undefined,
  o: { deleting?: boolean } = {},
): { target: PurgeTarget } | { refused: PurgeRefusal } {
  const byEventType = purgesByEventType(release);
  const named = `; this Harbor is ${release.version}`;
  if (!byEventType) {
    if (spec.includeEventTypes && !o.deleting)
      return {
        refused: {
          reason: UNSUPPORTED_BY_HARBOR,
          message: `spec.includeEventTypes needs Harbor ${EVENT_TYPES_SINCE} or later${named}, which purges by operation: write includeOperations (create, delete, pull) instead, or leave both out for all three`,
        },
      };
    const operations = (o.deleting ? undefined : spec.includeOperations) ?? ALL_OPERATIONS;
    return { target: { key: "include_operations", field: "includeOperations", names: sorted(operations) } };
  }
  const listed = eventTypes ?? [];
  const all = { key: "include_event_types", field: "includeEventTypes", names: sorted(listed) } as const;
  if (o.deleting) return { target: all };
  if (spec.includeOperations) {
    const instead = sorted(
      listed.filter((t) => spec.includeOperations?.some((op) => t.startsWith(`${op}_`))),
    );
    return {
      refused: {
        reason: UNSUPPORTED_BY_HARBOR,
        message: `spec.includeOperations (${spec.includeOperations.join(", ")}) is what Harbor 2.12 purges by; Harbor ${EVENT_TYPES_SINCE} and later purge by event type${named}: write includeEventTypes instead${instead.length ? ` (these operations' event types are ${instead.join(", ")})` : ""}, or leave both out for every event type Harbor lists`,
      },
    };
  }
  if (!spec.includeEventTypes) return { target: all };
  const unknown = spec.includeEventTypes.filter((t) => !listed.includes(t));
  if (unknown.length)
    return {
      refused: {
        reason: UNKNOWN_EVENT_TYPE,
        message: `spec.includeEventTypes: ${unknown.map((t) => `"${t}"`).join(", ")} ${unknown.length > 1 ? "are not event types" : "is not an event type"} of this Harbor; it lists ${listed.join(", ")}`,
      },
    };
  return {
    target: { key: "include_event_types", field: "includeEventTypes", names: sorted(spec.includeEventTypes) },
  };
}

const names = (text: string, lower: boolean) =>
  sorted(
    text
      .split(",")
      .map((o) => (lower ? o.trim().toLowerCase() : o.trim()))
      .filter((o) => o !== ""),
  );

export function scheduleFrom(h: ExecHistory | undefined): ObservedPurgeSchedule | undefined {
  return scheduleFromHistory(h, (p) => ({
    ...(typeof p.audit_retention_hour === "number" ? { retentionHours: p.audit_retention_hour } : {}),
    ...(typeof p.include_operations === "string"
      ? { includeOperations: names(p.include_operations, true) }
      : {}),
    ...(typeof p.include_event_types === "string"
      ? { includeEventTypes: names(p.include_event_types, false) }
      : {}),
    ...(typeof p.dry_run === "boolean" ? { dryRun: p.dry_run } : {}),
  }));
}

function parameters(spec: HarborAuditLogPurgeSpec, target: PurgeTarget) {
  return {
    audit_retention_hour: spec.retentionHours,
    [target.key]: target.names.join(","),
    dry_run: spec.dryRun,
  } as PurgeSchedule["parameters"];
}

/** The request that makes Harbor's schedule the spec's (None removes it). */
export function scheduleRequest(spec: HarborAuditLogPurgeSpec, target: PurgeTarget): PurgeSchedule {
  return {
    schedule: requestSchedule(spec.schedule),
    parameters: parameters(spec, target),
  };
}

/** The request that removes the schedule: Harbor wants the parameters even then. */
export function noScheduleRequest(spec: HarborAuditLogPurgeSpec, target: PurgeTarget): PurgeSchedule {
  return { schedule: { type: "None" }, parameters: parameters(spec, target) };
}

/** The request of a run now. */
export function runRequest(spec: HarborAuditLogPurgeSpec, target: PurgeTarget): PurgeSchedule {
  return { schedule: { type: "Manual" }, parameters: parameters(spec, target) };
}

export function diff(spec: HarborAuditLogPurgeSpec, observed: ObservedPurge, target: PurgeTarget): string[] {
  return scheduleDiff(spec.schedule, observed.schedule, (s) => [
    ...(s.retentionHours !== spec.retentionHours ? ["retentionHours"] : []),
    ...((s[target.field] ?? []).join(",") !== target.names.join(",") ? [target.field] : []),
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
 * The spec that reproduces Harbor's purge schedule: type and cron, the retention, what it purges
 * (the operations where they differ from 2.12's default of all three; the event types as listed,
 * since "unset" means whatever the Harbor lists) and dry run when set. No schedule (Harbor's
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
  const spec = { ...schedule, retentionHours: s.retentionHours, ...(s.dryRun ? { dryRun: true } : {}) };
  if (s.includeEventTypes !== undefined) {
    const types = HarborAuditLogPurgeSpec.shape.includeEventTypes.safeParse(s.includeEventTypes);
    if (!types.success)
      return {
        skip: `Harbor's include_event_types "${s.includeEventTypes.join(",")}" is not a list a spec can hold`,
      };
    return { spec: { ...spec, includeEventTypes: types.data } };
  }
  if (s.includeOperations === undefined) return { spec };
  const operations = HarborAuditLogPurgeSpec.shape.includeOperations.safeParse(s.includeOperations);
  if (!operations.success)
    return {
      skip: `Harbor's include_operations "${s.includeOperations.join(",")}" is not a list a spec can hold`,
    };
  const all = operations.data?.join(",") === ALL_OPERATIONS.join(",");
  return { spec: { ...spec, ...(all ? {} : { includeOperations: operations.data }) } };
}
