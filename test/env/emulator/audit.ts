// An audit log entry for every write, as Harbor keeps them (readable per project through
// GET /projects/{name}/logs, and in full through the control API).
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

  forProject(projectId: number): AuditEntry[] {
    return this.#entries.filter((e) => e.project_id === projectId);
  }
}

/** Records a write made by the request's caller. */
export function auditWrite(ctx: Ctx, e: Omit<AuditEntry, "id" | "op_time" | "username">): void {
  ctx.world.audit.record({ ...e, username: callerName(ctx.caller) });
}
