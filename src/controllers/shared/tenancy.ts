// The tenancy checks kinds make in `prepare`, against what their connection handle allows (see
// connection/tenancy.ts). A refusal stalls the resource: only a change of its spec, or of the
// connection's tenancy (which queues every resource of the connection again), can lift it.
import { Stalled } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { projectsRefused } from "../connection/tenancy.ts";

/** The reason of a refusal by a ClusterHarborConnection's tenancy. */
export const NOT_ALLOWED = "NotAllowed";

/** These Harbor projects (or "all" for a use that can reach any project) must be the tenant's. */
export function requireProjects(conn: HarborConnectionHandle, projects: readonly string[] | "all"): void {
  if (!conn.tenancy) return;
  const why = projectsRefused(conn.tenancy, projects);
  if (why) throw new Stalled(NOT_ALLOWED, `not allowed: ${why}`);
}

/** Harbor-wide settings (GC schedule, audit-log purge, job queues) need the tenancy's allowSystemSettings. */
export function requireSystemSettings(conn: HarborConnectionHandle, what: string): void {
  const t = conn.tenancy;
  if (t && !t.allowSystemSettings)
    throw new Stalled(
      NOT_ALLOWED,
      `not allowed: ${t.connection} does not let namespace ${t.namespace} manage ${what}, which every tenant of this Harbor shares (spec.tenancy.allowSystemSettings)`,
    );
}

export function requireSystemRobots(conn: HarborConnectionHandle): void {
  const t = conn.tenancy;
  if (t && !t.allowSystemRobots)
    throw new Stalled(
      NOT_ALLOWED,
      `not allowed: ${t.connection} does not let namespace ${t.namespace} have system-level robots (spec.tenancy.allowSystemRobots)`,
    );
}
