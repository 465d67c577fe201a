// Immutable tag rules (/projects/{project_name_or_id}/immutabletagrules). As in Harbor: the rule is
// stored as the JSON text of the request, unique per project (an identical create is a 409); a new
// rule is always stored enabled; an update whose `disabled` differs from the stored flag changes only
// the flag; the body's id must be the path's.
import type { z } from "zod";
import { auditWrite } from "../audit.ts";
import { projectAccess } from "../auth.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { page } from "../listing.ts";
import { type Ctx, createdAt, ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import { tagRuleModels } from "./tag-rule.ts";

export interface ImmutableRuleRecord {
  id: number;
  project_id: number;
  /** The rule as Harbor stores it: the JSON text of what was sent (with project_id). */
  tagFilter: string;
  disabled: boolean;
}

export class ImmutableStore {
  readonly #world: World;
  readonly #rules = new Map<number, ImmutableRuleRecord>();

  constructor(world: World) {
    this.#world = world;
  }

  get(id: number): ImmutableRuleRecord | undefined {
    return this.#rules.get(id);
  }

  all(): ImmutableRuleRecord[] {
    return [...this.#rules.values()].sort((a, b) => a.id - b.id);
  }

  ofProject(projectId: number): ImmutableRuleRecord[] {
    return this.all().filter((r) => r.project_id === projectId);
  }

  insert(projectId: number, tagFilter: string): ImmutableRuleRecord {
    if (this.ofProject(projectId).some((r) => r.tagFilter === tagFilter)) {
      throw conflict("immutable rule already exists");
    }
    const rec = {
      id: this.#world.ids.next("immutable-rule"),
      project_id: projectId,
      tagFilter,
      disabled: false,
    };
    this.#rules.set(rec.id, rec);
    return rec;
  }

  delete(id: number): void {
    this.#rules.delete(id);
  }

  deleteByProject(projectId: number): void {
    for (const r of this.ofProject(projectId)) this.#rules.delete(r.id);
  }
}

const { Selector, Rule: RuleBody } = tagRuleModels({ selector: "ImmutableSelector", rule: "ImmutableRule" });
type RuleBody = z.output<typeof RuleBody>;

/** The JSON text Harbor's model marshals to: its fields in order, extras dropped (the model has none). */
function tagFilter(b: RuleBody, id: number, projectId: number): string {
  const selector = (s: z.output<typeof Selector> | null) => ({
    kind: s?.kind ?? "",
    decoration: s?.decoration ?? "",
    pattern: s?.pattern ?? "",
  });
  return JSON.stringify({
    id,
    project_id: projectId,
    disabled: b.disabled ?? false,
    priority: b.priority ?? 0,
    action: b.action ?? "",
    template: b.template ?? "",
    tag_selectors: b.tag_selectors ? b.tag_selectors.map(selector) : null,
    scope_selectors: b.scope_selectors
      ? Object.fromEntries(Object.entries(b.scope_selectors).map(([k, v]) => [k, v.map(selector)]))
      : null,
  });
}

function render(r: ImmutableRuleRecord) {
  const stored = JSON.parse(r.tagFilter) as Record<string, unknown>;
  return {
    id: r.id,
    priority: stored.priority,
    disabled: r.disabled,
    action: stored.action,
    template: stored.template,
    params: null,
    tag_selectors: stored.tag_selectors,
    scope_selectors: stored.scope_selectors,
  };
}

/** requireRuleAccess: the rule must exist and be the project's. */
function ruleOf(ctx: Ctx, projectId: number, id: number): ImmutableRuleRecord {
  const rule = ctx.world.immutable.get(id);
  if (!rule) throw notFound(`immutable rule ${id} not found`);
  if (rule.project_id !== projectId) throw notFound(`project id ${projectId} does not match`);
  return rule;
}

const routes: RouteSpec[] = [
  {
    op: "ListImmuRules",
    method: "GET",
    path: "/projects/{project_name_or_id}/immutabletagrules",
    paged: true,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "immutable-tag", "list");
      return page(ctx, ctx.world.immutable.ofProject(project.project_id).map(render));
    },
  },
  {
    op: "CreateImmuRule",
    method: "POST",
    path: "/projects/{project_name_or_id}/immutabletagrules",
    body: { name: "ImmutableRule", schema: RuleBody },
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "immutable-tag", "create");
      const b = ctx.body as RuleBody;
      const rec = ctx.world.immutable.insert(project.project_id, tagFilter(b, b.id ?? 0, project.project_id));
      auditWrite(ctx, {
        project_id: project.project_id,
        resource: String(rec.id),
        resource_type: "immutable_rule",
        operation: "create",
      });
      return createdAt(ctx, rec.id);
    },
  },
  {
    op: "UpdateImmuRule",
    method: "PUT",
    path: "/projects/{project_name_or_id}/immutabletagrules/{immutable_rule_id}",
    params: { immutable_rule_id: "int" },
    body: { name: "ImmutableRule", schema: RuleBody },
    handle(ctx) {
      const id = ctx.params.immutable_rule_id as number;
      const b = ctx.body as RuleBody;
      if ((b.id ?? 0) !== id) {
        throw badRequest("the immutable_rule_id doesn't match the id in the payload body of ImmutableRule");
      }
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "immutable-tag", "update");
      const rule = ruleOf(ctx, project.project_id, id);
      const disabled = b.disabled ?? false;
      if (disabled !== rule.disabled) rule.disabled = disabled;
      else rule.tagFilter = tagFilter(b, id, project.project_id);
      return ok();
    },
  },
  {
    op: "DeleteImmuRule",
    method: "DELETE",
    path: "/projects/{project_name_or_id}/immutabletagrules/{immutable_rule_id}",
    params: { immutable_rule_id: "int" },
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "immutable-tag", "delete");
      const id = ctx.params.immutable_rule_id as number;
      ruleOf(ctx, project.project_id, id);
      ctx.world.immutable.delete(id);
      return ok();
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    list: () => world.immutable.all(),
  }),
});
