// An audit log entry for every write (in full through the control API, for tests that check who
// wrote what), and the parts of it Harbor shows:
// - up to 2.12, the project audit log (GET /projects/{name}/logs): project and robot creation and
//   deletion, and artifact, tag and repository events — not project updates, labels, webhook
//   policies or scanner settings;
// - from 2.13, the extended audit log (GET /auditlog-exts, /projects/{name}/auditlog-exts): the
//   writes of the event types GET /auditlog-exts/events lists (`<operation>_<resource type>`),
//   unless the configuration's disabled_audit_log_event_types names the type when it happens.
//   2.13 no longer writes the old log: /projects/{name}/logs only shows what an older release
//   wrote (in the emulator, nothing).
import { callerName } from "./auth.ts";
import type { Ctx } from "./router.ts";
import type { World } from "./world.ts";

export interface AuditEntry {
  id: number;
  /** 0 for system-level resources. */
  project_id: number;
  username: string;
  /** The resource as Harbor names it, e.g. "library/nginx:latest", a robot name, a policy name. */
  resource: string;
  resource_type: string;
  operation: "create" | "update" | "delete" | "pull" | "push";
  op_time: string;
  /** Written to the old audit log (up to 2.12). */
  legacy: boolean;
  /** Written to the extended audit log (2.13 on: a listed event type, not disabled then). */
  ext: boolean;
}

/** The event types of the extended audit log (2.13 on), in GET /auditlog-exts/events order. */
export const AUDIT_EVENT_TYPES = [
  "create_artifact",
  "delete_artifact",
  "pull_artifact",
  "create_project",
  "delete_project",
  "delete_repository",
  "login_user",
  "logout_user",
  "create_user",
  "delete_user",
  "update_user",
  "create_robot",
  "delete_robot",
  "update_configuration",
] as const;

/** An entry's event type, `<operation>_<resource type>` (a push creates an artifact). */
export function eventType(e: Pick<AuditEntry, "operation" | "resource_type">): string {
  const operation = e.operation === "push" ? "create" : e.operation;
  return `${operation}_${e.resource_type}`;
}

export class AuditLog {
  readonly #world: World;
  readonly #entries: AuditEntry[] = [];

  constructor(world: World) {
    this.#world = world;
  }

  record(e: Omit<AuditEntry, "id" | "op_time" | "legacy" | "ext">): void {
    const world = this.#world;
    const extended = world.version.has("auditLogExt");
    const type = eventType(e);
    const disabled = extended
      ? String(world.config.get("disabled_audit_log_event_types"))
          .split(",")
          .map((t) => t.trim().toLowerCase())
      : [];
    this.#entries.push({
      ...e,
      id: world.ids.next("audit"),
      op_time: world.nowText(),
      legacy: !extended,
      ext: extended && (AUDIT_EVENT_TYPES as readonly string[]).includes(type) && !disabled.includes(type),
    });
  }

  all(): AuditEntry[] {
    return [...this.#entries];
  }

  /** Removes the entries that match (an audit-log purge); returns how many went. */
  purge(matches: (e: AuditEntry) => boolean): number {
    const before = this.#entries.length;
    const kept = this.#entries.filter((e) => !matches(e));
    this.#entries.splice(0, this.#entries.length, ...kept);
    return before - kept.length;
  }

  /** The project's (old) audit log as Harbor shows it. */
  forProject(projectId: number): AuditEntry[] {
    return this.#entries.filter((e) => e.legacy && e.project_id === projectId && inProjectLog(e));
  }

  /** The old audit log across projects (GET /audit-logs). */
  legacy(): AuditEntry[] {
    return this.#entries.filter((e) => e.legacy && inProjectLog(e));
  }

  /** The extended audit log (2.13 on), of one project or (undefined) of all. */
  extended(projectId?: number): AuditEntry[] {
    return this.#entries.filter((e) => e.ext && (projectId === undefined || e.project_id === projectId));
  }
}

/** Whether Harbor 2.12.4 records the event in a project's audit log. */
export function inProjectLog(e: Pick<AuditEntry, "resource_type" | "operation">): boolean {
  if (e.resource_type === "project" || e.resource_type === "robot") {
    return e.operation === "create" || e.operation === "delete";
  }
  return e.resource_type === "artifact" || e.resource_type === "tag" || e.resource_type === "repository";
}

/** Records a write made by the request's caller. */
export function auditWrite(
  ctx: Ctx,
  e: Omit<AuditEntry, "id" | "op_time" | "username" | "legacy" | "ext">,
): void {
  ctx.world.audit.record({ ...e, username: callerName(ctx.caller) });
}
