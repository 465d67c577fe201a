// HarborAuditLogPurge's ExternalClient: a Harbor's audit-log purge schedule, one per Harbor. The
// same choices as HarborGarbageCollection's (see garbage-collection/external.ts): no id (0), the
// constant claim "audit-log-purge", "exists" when Harbor has a schedule, PUT for create and update,
// type None for deletion, the newest run in status and followed while it runs, and "run now" by
// the harborconfig.io/runRequestedAt annotation. Besides: every request carries the spec's
// parameters (Harbor refuses any without them, None included), in the connected release's form
// (see mapping.ts): operations up to 2.12, event types from 2.13, whose names are first checked
// against Harbor's list (GET /auditlog-exts/events). A spec written for the other release, or
// naming an event type Harbor does not list, is Stalled before any write (UnsupportedByHarbor,
// UnknownEventType), saying what to write instead; a resource being deleted goes all the same.
//
// Harbor requests: as for GC — two reads to observe (schedule, newest run), four to converge on a
// Harbor without a schedule, two per Harbor and drift interval — and from 2.13 one more read of the
// event types each time. The client is the one every per-Harbor schedule kind shares
// (shared/schedule-external.ts).
import type { HarborAuditLogPurgeSpec, HarborAuditLogPurgeStatus } from "../../api/audit-log-purge.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { type ExternalClient, Stalled } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { harborRelease, UNSUPPORTED_BY_HARBOR } from "../shared/harbor-release.ts";
import {
  type ResolveInput,
  type ScheduleExternalDeps,
  scheduleExternal,
} from "../shared/schedule-external.ts";
import {
  ALL_OPERATIONS_TARGET,
  describe,
  diff,
  EVENT_TYPES_SINCE,
  noScheduleRequest,
  type ObservedPurge,
  type PurgeTarget,
  purgesByEventType,
  purgeTarget,
  runRequest,
  runStatus,
  scheduleFrom,
  scheduleRequest,
  status,
} from "./mapping.ts";

export { UNSUPPORTED_BY_HARBOR } from "../shared/harbor-release.ts";
export { UNKNOWN_EVENT_TYPE } from "./mapping.ts";

export type PurgeExternalDeps = ScheduleExternalDeps;

type Client = ExternalClient<
  HarborAuditLogPurgeSpec,
  ObservedPurge,
  HarborConnectionHandle,
  PurgeTarget,
  HarborAuditLogPurgeStatus
>;

/**
 * The event types Harbor lists, or undefined when it has no such list (a release before 2.13 whose
 * version the connection does not know: Harbor answers that the path does not exist).
 */
async function eventTypes(conn: HarborConnectionHandle, signal: AbortSignal): Promise<string[] | undefined> {
  try {
    return await conn.client.auditLogs.eventTypes({ signal });
  } catch (e) {
    if (isHarborError(e, "notFound")) return undefined;
    throw e;
  }
}

/** What the spec purges on the connection's Harbor; Stalled when Harbor cannot take it. */
async function resolve({
  conn,
  spec,
  resource,
  signal,
}: ResolveInput<HarborAuditLogPurgeSpec>): Promise<PurgeTarget> {
  const release = harborRelease(conn);
  const deleting = resource.metadata.deletionTimestamp !== undefined;
  let listed: string[] | undefined;
  if (purgesByEventType(release)) {
    listed = await eventTypes(conn, signal);
    if (listed === undefined) {
      // Its None request, then, carries what such a Harbor wants.
      if (deleting) return ALL_OPERATIONS_TARGET;
      throw new Stalled(
        UNSUPPORTED_BY_HARBOR,
        `spec.includeEventTypes needs Harbor ${EVENT_TYPES_SINCE} or later: this Harbor lists no audit-log event types (GET /auditlog-exts/events: not found), so it purges by operation; write includeOperations (create, delete, pull) instead`,
      );
    }
  }
  const r = purgeTarget(spec, release, listed, { deleting });
  if ("refused" in r) throw new Stalled(r.refused.reason, r.refused.message);
  return r.target;
}

export function auditLogPurgeExternal(deps: PurgeExternalDeps): Client {
  return scheduleExternal<
    HarborAuditLogPurgeSpec,
    NonNullable<ObservedPurge["schedule"]>,
    NonNullable<ObservedPurge["lastRun"]>,
    ReturnType<typeof scheduleRequest>,
    ReturnType<typeof runStatus>,
    HarborAuditLogPurgeStatus,
    PurgeTarget
  >(deps, {
    api: (client) => client.purge,
    setting: "the audit-log purge",
    what: "an audit-log purge",
    claim: "audit-log-purge",
    resolve,
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
