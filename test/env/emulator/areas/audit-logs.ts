// The audit logs a client reads: the old audit log of every release (GET /audit-logs across
// projects, GET /projects/{project_name}/logs of one; deprecated from 2.13, when they only show what
// an older release wrote), and from 2.13 the extended audit log (GET /auditlog-exts, GET
// /projects/{project_name}/auditlog-exts) with its event types (GET /auditlog-exts/events). What
// is recorded where is audit.ts's.
//
// Who reads what: the project logs need the project's log:list permission; from 2.13 the project
// roles other than project admin lose it (the system audit log shows a user the projects they
// administer, and everything to a system administrator or a robot with system audit-log access).
import { AUDIT_EVENT_TYPES, type AuditEntry } from "../audit.ts";
import { canProject, canSystem, isSysAdmin, projectAccess, ROLES, requireAuthenticated } from "../auth.ts";
import { forbidden } from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { type Fields, listReply } from "../listing.ts";
import { type Ctx, ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import type { ProjectRecord } from "./projects.ts";

const fields: Fields<AuditEntry> = {
  id: (e) => e.id,
  username: (e) => e.username,
  resource: (e) => e.resource,
  resource_type: (e) => e.resource_type,
  operation: (e) => e.operation,
  op_time: (e) => e.op_time,
};

const newestFirst = (a: AuditEntry, b: AuditEntry) =>
  a.op_time < b.op_time ? 1 : a.op_time > b.op_time ? -1 : b.id - a.id;

/** An entry of the old log (AuditLog). */
const renderLegacy = (e: AuditEntry) =>
  omitEmpty({
    id: e.id,
    username: e.username,
    resource: e.resource,
    resource_type: e.resource_type,
    operation: e.operation,
    op_time: e.op_time,
  });

/** An entry of the extended log (AuditLogExt): a push is recorded as the artifact's creation. */
const renderExt = (e: AuditEntry) => {
  const operation = e.operation === "push" ? "create" : e.operation;
  return omitEmpty(
    {
      id: e.id,
      username: e.username,
      resource: e.resource,
      resource_type: e.resource_type,
      operation,
      operation_description: `${operation} ${e.resource_type} ${e.resource}`,
      // The emulator records only writes that succeeded.
      operation_result: true,
      op_time: e.op_time,
    },
    ["operation_result"],
  );
};

/** The project of `{project_name}` (a name, also when it looks like a number) and its log access. */
function logProject(ctx: Ctx): ProjectRecord {
  const project = projectAccess(
    { ...ctx, query: { ...ctx.query, "X-Is-Resource-Name": true } },
    ctx.params.project_name as string,
    "log",
    "list",
  );
  if (ctx.world.version.has("projectLogAdminOnly") && !administers(ctx, project)) throw forbidden();
  return project;
}

/** From 2.13 only a project admin (or a system-level caller, or a robot) reads a project's log. */
function administers(ctx: Ctx, project: ProjectRecord): boolean {
  const c = ctx.caller;
  if (c.kind !== "user" || isSysAdmin(c)) return true;
  return project.members.get(c.user.user_id) === ROLES.projectAdmin;
}

/**
 * The entries of the system-wide logs the caller may read: all of them with system audit-log access,
 * else those of the projects whose log the caller may read (a robot by its permissions, a user as a
 * member: from 2.13 as a project admin only).
 */
function readable(ctx: Ctx, entries: AuditEntry[]): AuditEntry[] {
  const c = ctx.caller;
  if (canSystem(c, "audit-log", "list")) return entries;
  const projects = new Set(
    ctx.world.projects
      .all()
      .filter((p) => {
        if (c.kind === "robot") return canProject(c, p, "log", "list");
        if (c.kind !== "user" || !p.members.has(c.user.user_id)) return false;
        const adminOnly = ctx.world.version.has("projectLogAdminOnly");
        return canProject(c, p, "log", "list") && (!adminOnly || administers(ctx, p));
      })
      .map((p) => p.project_id),
  );
  return entries.filter((e) => projects.has(e.project_id));
}

const paging = {
  paged: true,
  query: { q: { type: "string" as const }, sort: { type: "string" as const } },
};

const routes: RouteSpec[] = [
  {
    op: "getLogs",
    method: "GET",
    path: "/projects/{project_name}/logs",
    ...paging,
    handle(ctx) {
      const project = logProject(ctx);
      return listReply(ctx, ctx.world.audit.forProject(project.project_id), fields, {
        defaultOrder: newestFirst,
        render: renderLegacy,
      });
    },
  },
  {
    // The old log across projects; deprecated from 2.13, which no longer writes it.
    op: "listAuditLogs",
    method: "GET",
    path: "/audit-logs",
    ...paging,
    handle(ctx) {
      requireAuthenticated(ctx);
      return listReply(ctx, readable(ctx, ctx.world.audit.legacy()), fields, {
        defaultOrder: newestFirst,
        render: renderLegacy,
      });
    },
  },
  {
    op: "getLogExts",
    method: "GET",
    path: "/projects/{project_name}/auditlog-exts",
    since: "auditLogExt",
    ...paging,
    handle(ctx) {
      const project = logProject(ctx);
      return listReply(ctx, ctx.world.audit.extended(project.project_id), fields, {
        defaultOrder: newestFirst,
        render: renderExt,
      });
    },
  },
  {
    op: "listAuditLogExts",
    method: "GET",
    path: "/auditlog-exts",
    since: "auditLogExt",
    ...paging,
    handle(ctx) {
      requireAuthenticated(ctx);
      return listReply(ctx, readable(ctx, ctx.world.audit.extended()), fields, {
        defaultOrder: newestFirst,
        render: renderExt,
      });
    },
  },
  {
    op: "listAuditLogEventTypes",
    method: "GET",
    path: "/auditlog-exts/events",
    since: "auditLogExt",
    handle(ctx) {
      requireAuthenticated(ctx);
      return ok(AUDIT_EVENT_TYPES.map((event_type) => ({ event_type })));
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** The extended audit log (2.13 on) as GET /auditlog-exts shows it to an administrator. */
    extended: () => world.audit.extended().sort(newestFirst).map(renderExt),
  }),
});
