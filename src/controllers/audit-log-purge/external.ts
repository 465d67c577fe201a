// HarborAuditLogPurge's ExternalClient: a Harbor's audit-log purge schedule, one per Harbor. The
// same choices as HarborGarbageCollection's (see garbage-collection/external.ts): no id (0), the
// constant claim "audit-log-purge", "exists" when Harbor has a schedule, PUT for create and update,
// type None for deletion, the newest run in status and followed while it runs, and "run now" by
// the harborconfig.io/runRequestedAt annotation. Besides: every request carries the spec's
// parameters (Harbor 2.12 refuses any without them, None included), and a Harbor of 2.13 or newer
// is refused by name before any call (UnsupportedByHarbor; see mapping.ts).
//
// Harbor requests: as for GC — two reads to observe (schedule, newest run), four to converge on a
// Harbor without a schedule, two per Harbor and drift interval. The client is the one every
// per-Harbor schedule kind shares (shared/schedule-external.ts).
import type { HarborAuditLogPurgeSpec, HarborAuditLogPurgeStatus } from "../../api/audit-log-purge.ts";
import { type ExternalClient, Stalled } from "../../runtime/managed.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { type ScheduleExternalDeps, scheduleExternal } from "../shared/schedule-external.ts";
import {
  describe,
  diff,
  noScheduleRequest,
  type ObservedPurge,
  runRequest,
  runStatus,
  scheduleFrom,
  scheduleRequest,
  status,
  unsupportedRelease,
} from "./mapping.ts";

/** Ready=False (Stalled) reason: the spec asks for what this Harbor release cannot take. */
export const UNSUPPORTED_BY_HARBOR = "UnsupportedByHarbor";

export type PurgeExternalDeps = ScheduleExternalDeps;

type Client = ExternalClient<
  HarborAuditLogPurgeSpec,
  ObservedPurge,
  HarborConnectionHandle,
  Record<string, never>,
  HarborAuditLogPurgeStatus
>;

export function auditLogPurgeExternal(deps: PurgeExternalDeps): Client {
  return scheduleExternal<
    HarborAuditLogPurgeSpec,
    NonNullable<ObservedPurge["schedule"]>,
    NonNullable<ObservedPurge["lastRun"]>,
    ReturnType<typeof scheduleRequest>,
    ReturnType<typeof runStatus>,
    HarborAuditLogPurgeStatus
  >(deps, {
    api: (client) => client.purge,
    setting: "the audit-log purge",
    what: "an audit-log purge",
    claim: "audit-log-purge",
    prepare(conn) {
      const why = unsupportedRelease(conn.harborVersion);
      if (why !== undefined) throw new Stalled(UNSUPPORTED_BY_HARBOR, why);
    },
    scheduleFrom,
    scheduleRequest,
    noScheduleRequest,
    runRequest,
    runStatus,
    diff,
    describe,
    status,
  });
}
