// An audit log entry for every write (in full through the control API, for tests that check who
// wrote what), and the part of it Harbor 2.12.4's project audit log shows through
// GET /projects/{name}/logs: project and robot creation and deletion, and artifact, tag and
// repository events — not project updates, labels, webhook policies or scanner settings.
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
}

export class AuditLog {
  readonly #world: World;
  readonly #entries: AuditEntry[] = [];

  constructor(world: World) {
    this.#world = world;
  }

  record(e: Omit<AuditEntry, "id" | "op_time">): void {
    this.#entries.push({ ...e, id: this.#world.ids.next("audit"), op_time: this.#world.nowText() });
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

  /** The project's audit log as Harbor shows it. */
  forProject(projectId: number): AuditEntry[] {
    return this.#entries.filter((e) => e.project_id === projectId && inProjectLog(e));
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
export function auditWrite(ctx: Ctx, e: Omit<AuditEntry, "id" | "op_time" | "username">): void {
  ctx.world.audit.record({ ...e, username: callerName(ctx.caller) });
}
