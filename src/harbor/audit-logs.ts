// The extended audit log (Harbor 2.13 on): GET /auditlog-exts (what the caller may read across
// projects: everything for a system administrator or a robot with system audit-log access, else
// the projects the caller administers), GET /projects/{project_name}/auditlog-exts (one project,
// its project admins) and GET /auditlog-exts/events (the event types Harbor records, the names the
// audit-log purge's include_event_types and the configuration's disabled_audit_log_event_types
// take, e.g. create_artifact, delete_project, update_configuration).
//
// From 2.13 Harbor records writes here only: the old log (`listLegacy`, GET /audit-logs, and
// `projects.logs`, GET /projects/{p}/logs; deprecated) shows only what a release before 2.13
// wrote. Harbor 2.12 and older have none of the three new operations: each is a 404 whose message
// says the path was not found (`isRouteNotFound`), which is how a caller tells "no such release
// feature" from "no such project".
import { z } from "zod";
import { Timestamp } from "./common.ts";
import type { HarborError } from "./errors.ts";
import { AuditLog } from "./projects.ts";
import { type ListFilter, listQuery } from "./query.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

export const AuditLogExt = z.object({
  id: z.number().int().optional(),
  username: z.string().optional(),
  resource: z.string().optional(),
  /** e.g. artifact, project, repository, robot, user, configuration. */
  resource_type: z.string().optional(),
  /** e.g. create, delete, pull, update (a push is recorded as the artifact's create). */
  operation: z.string().optional(),
  operation_description: z.string().optional(),
  /** Whether the operation succeeded. */
  operation_result: z.boolean().optional(),
  op_time: Timestamp.optional(),
});
export type AuditLogExt = z.output<typeof AuditLogExt>;

const AuditLogEventType = z.object({ event_type: z.string() });

/** A list of the first `limit` entries (every page when absent), filtered and sorted as Harbor does. */
export type AuditLogFilter = ListFilter & { limit?: number };

export class AuditLogsApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** listAuditLogExts: the audit log across the projects the caller may read (2.13 on). */
  list(filter: AuditLogFilter = {}, opts?: CallOptions): Promise<AuditLogExt[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listAuditLogExts",
        method: "GET",
        path: "/auditlog-exts",
        query: listQuery(filter),
      },
      AuditLogExt,
      filter.limit,
    );
  }

  /**
   * listAuditLogs: the old audit log across the projects the caller may read (every release; from
   * 2.13 deprecated and no longer written). Its entries are those of `projects.logs`.
   */
  listLegacy(filter: AuditLogFilter = {}, opts?: CallOptions): Promise<AuditLog[]> {
    return this.#t.listAll(
      { ...opts, operation: "listAuditLogs", method: "GET", path: "/audit-logs", query: listQuery(filter) },
      AuditLog,
      filter.limit,
    );
  }

  /** getLogExts: one project's audit log (2.13 on). Name only, as the path says. */
  ofProject(projectName: string, filter: AuditLogFilter = {}, opts?: CallOptions): Promise<AuditLogExt[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "getLogExts",
        method: "GET",
        path: path`/projects/${projectName}/auditlog-exts`,
        query: listQuery(filter),
      },
      AuditLogExt,
      filter.limit,
    );
  }

  /** listAuditLogEventTypes: the event type names Harbor records (2.13 on), in Harbor's order. */
  async eventTypes(opts?: CallOptions): Promise<string[]> {
    const types = await this.#t.json(
      { ...opts, operation: "listAuditLogEventTypes", method: "GET", path: "/auditlog-exts/events" },
      AuditLogEventType.array(),
    );
    return types.map((t) => t.event_type);
  }
}

/**
 * Whether Harbor answered that it has no such operation at all (404 `path /api/v2.0/… was not
 * found`), as a release without the operation does, rather than that the object addressed is
 * missing (404 too, with a message naming the object). Harbor gives both the code NOT_FOUND, so
 * its message is the only difference.
 */
export function isRouteNotFound(e: HarborError): boolean {
  return e.kind === "notFound" && /^path \/\S* was not found$/.test(e.harborMessage ?? "");
}
