// Labels: global (scope "g", system access) and project labels (scope "p", project access).
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { projectAccess, requireSystem } from "../auth.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { type Fields, listReply } from "../listing.ts";
import { type Ctx, createdAt, ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export interface LabelRecord {
  id: number;
  name: string;
  description: string;
  color: string;
  scope: string;
  project_id: number;
  creation_time: string;
  update_time: string;
}

export class LabelStore {
  readonly #world: World;
  readonly #labels = new Map<number, LabelRecord>();

  constructor(world: World) {
    this.#world = world;
  }

  get(id: number): LabelRecord | undefined {
    return this.#labels.get(id);
  }

  all(): LabelRecord[] {
    return [...this.#labels.values()];
  }

  insert(l: Omit<LabelRecord, "id" | "creation_time" | "update_time">): LabelRecord {
    this.#checkUnique(l.name, l.scope, l.project_id);
    const now = this.#world.nowText();
    const rec = { ...l, id: this.#world.ids.next("label"), creation_time: now, update_time: now };
    this.#labels.set(rec.id, rec);
    return rec;
  }

  update(rec: LabelRecord, change: { name: string; description: string; color: string }): void {
    if (change.name !== rec.name) this.#checkUnique(change.name, rec.scope, rec.project_id);
    Object.assign(rec, change, { update_time: this.#world.nowText() });
  }

  delete(id: number): void {
    this.#labels.delete(id);
  }

  deleteByProject(projectId: number): void {
    for (const l of this.#labels.values()) if (l.project_id === projectId) this.#labels.delete(l.id);
  }

  #checkUnique(name: string, scope: string, projectId: number): void {
    for (const l of this.#labels.values()) {
      if (l.name === name && l.scope === scope && l.project_id === projectId) {
        throw conflict(`label ${name} already exists`);
      }
    }
  }
}

const LabelBody = z
  .object({
    id: z.number().int().nullish(),
    name: z.string().nullish(),
    description: z.string().nullish(),
    color: z.string().nullish(),
    scope: z.string().nullish(),
    project_id: z.number().int().nullish(),
  })
  .meta({ goType: "Label" });

const render = (l: LabelRecord) => omitEmpty(l);

const fields: Fields<LabelRecord> = {
  id: (l) => l.id,
  name: (l) => l.name,
  description: (l) => l.description,
  color: (l) => l.color,
  scope: (l) => l.scope,
  project_id: (l) => l.project_id,
  creation_time: (l) => l.creation_time,
  update_time: (l) => l.update_time,
};

/** Global labels need system access; project labels the project permission. */
function requireLabelAccess(ctx: Ctx, label: { scope: string; project_id: number }, action: string): void {
  if (label.scope === "g") requireSystem(ctx, "label", action);
  else projectAccess(ctx, label.project_id, "label", action);
}

function existing(ctx: Ctx): LabelRecord {
  const id = ctx.params.label_id as number;
  const label = ctx.world.labels.get(id);
  if (!label) throw notFound(`label ${id} not found`);
  return label;
}

const routes: RouteSpec[] = [
  {
    op: "CreateLabel",
    method: "POST",
    path: "/labels",
    body: { name: "label", schema: LabelBody },
    handle(ctx) {
      const b = ctx.body as z.output<typeof LabelBody>;
      const scope = b.scope ?? "";
      if (scope !== "g" && scope !== "p") throw badRequest("unsupported label scope");
      const projectId = scope === "g" ? 0 : (b.project_id ?? 0);
      requireLabelAccess(ctx, { scope, project_id: projectId }, "create");
      // Harbor does not validate the name on create.
      const label = ctx.world.labels.insert({
        name: b.name ?? "",
        description: b.description ?? "",
        color: b.color ?? "",
        scope,
        project_id: projectId,
      });
      auditWrite(ctx, {
        project_id: projectId,
        resource: label.name,
        resource_type: "label",
        operation: "create",
      });
      return createdAt(ctx, label.id);
    },
  },
  {
    op: "ListLabels",
    method: "GET",
    path: "/labels",
    paged: true,
    query: {
      q: { type: "string" },
      sort: { type: "string" },
      name: { type: "string" },
      scope: { type: "string" },
      project_id: { type: "int" },
    },
    handle(ctx) {
      const scope = (ctx.query.scope as string | undefined) ?? "";
      if (scope !== "g" && scope !== "p") throw badRequest(`invalid scope: ${scope}`);
      let items = ctx.world.labels.all().filter((l) => l.scope === scope);
      if (scope === "p") {
        const projectId = ctx.query.project_id as number | undefined;
        if (!projectId) throw badRequest("must with project ID when to query project labels");
        projectAccess(ctx, projectId, "label", "list");
        items = items.filter((l) => l.project_id === projectId);
      }
      const name = ctx.query.name as string | undefined;
      if (name) items = items.filter((l) => l.name.toUpperCase().includes(name.toUpperCase()));
      return listReply(ctx, items, fields, { render, defaultOrder: (a, b) => a.id - b.id });
    },
  },
  {
    op: "GetLabelByID",
    method: "GET",
    path: "/labels/{label_id}",
    params: { label_id: "int" },
    handle(ctx) {
      const label = existing(ctx);
      requireLabelAccess(ctx, label, "read");
      return ok(render(label));
    },
  },
  {
    op: "UpdateLabel",
    method: "PUT",
    path: "/labels/{label_id}",
    params: { label_id: "int" },
    body: { name: "label", schema: LabelBody },
    handle(ctx) {
      const label = existing(ctx);
      requireLabelAccess(ctx, label, "update");
      const b = ctx.body as z.output<typeof LabelBody>;
      const name = b.name ?? "";
      if (name === "") throw badRequest("label name cannot be empty");
      if (name.length > 128) throw badRequest("label name max length is 128");
      ctx.world.labels.update(label, { name, description: b.description ?? "", color: b.color ?? "" });
      auditWrite(ctx, {
        project_id: label.project_id,
        resource: label.name,
        resource_type: "label",
        operation: "update",
      });
      return ok();
    },
  },
  {
    op: "DeleteLabel",
    method: "DELETE",
    path: "/labels/{label_id}",
    params: { label_id: "int" },
    handle(ctx) {
      const label = existing(ctx);
      requireLabelAccess(ctx, label, "delete");
      ctx.world.labels.delete(label.id);
      auditWrite(ctx, {
        project_id: label.project_id,
        resource: label.name,
        resource_type: "label",
        operation: "delete",
      });
      return ok();
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    list: () => world.labels.all(),
  }),
});
