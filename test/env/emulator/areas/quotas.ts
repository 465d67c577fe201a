// Quotas (/quotas) of Harbor v2.12: one per project, kept on the project's record (its hard storage
// limit is the project's storage_limit, its usage the repositories' sizes, as the summary shows).
// As in Harbor:
// - every operation needs system access (quota list/read/update): admins and system robots with
//   those permissions; anyone else gets 403 with their name as the message;
// - the list filters by `reference` and `reference_id` (compared as strings), orders newest first
//   by default, and takes one `sort` key: creation_time or update_time (optionally "+"/"-"), or
//   hard.storage / used.storage ("-" for descending; -1 counts as the largest);
// - an update needs a non-empty `hard` (400 "hard required in body"), a quota that exists (404),
//   then `storage` and nothing else, -1 or positive (400, Harbor's messages). A limit below the
//   usage is accepted.
import { z } from "zod";
import { requireSystem } from "../auth.ts";
import { badRequest, notFound } from "../errors.ts";
import { page } from "../listing.ts";
import { type Ctx, ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import type { ProjectRecord } from "./projects.ts";

const REFERENCE = "project";
const RESOURCES = ["storage"];

function renderQuota(world: World, p: ProjectRecord) {
  return {
    id: p.quota.id,
    ref: { id: p.project_id, name: p.name, owner_name: p.owner_name },
    hard: { storage: p.storage_limit },
    used: { storage: world.projects.storageUsed(p) },
    creation_time: p.quota.creation_time,
    update_time: p.quota.update_time,
  };
}

type Order = (a: ProjectRecord, b: ProjectRecord) => number;

/** Harbor's listOrderBy: one key; anything else is the default, newest first. */
function quotaOrder(world: World, sort: string | undefined): Order {
  const byTime =
    (key: "creation_time" | "update_time", desc: boolean): Order =>
    (a, b) =>
      (a.quota[key] < b.quota[key] ? -1 : a.quota[key] > b.quota[key] ? 1 : a.quota.id - b.quota.id) *
      (desc ? -1 : 1);
  const times: Record<string, Order> = {
    creation_time: byTime("creation_time", false),
    "+creation_time": byTime("creation_time", false),
    "-creation_time": byTime("creation_time", true),
    update_time: byTime("update_time", false),
    "+update_time": byTime("update_time", false),
    "-update_time": byTime("update_time", true),
  };
  const fallback = byTime("creation_time", true);
  if (!sort) return fallback;
  const timed = times[sort];
  if (timed) return timed;
  const desc = sort.startsWith("-");
  const key = desc ? sort.slice(1) : sort;
  // -1 (unlimited) sorts as the largest amount.
  const amount = (n: number) => (n === -1 ? Number.MAX_SAFE_INTEGER : n);
  const value =
    key === "hard.storage"
      ? (p: ProjectRecord) => amount(p.storage_limit)
      : key === "used.storage"
        ? (p: ProjectRecord) => amount(world.projects.storageUsed(p))
        : undefined;
  if (!value) return fallback;
  return (a, b) => (value(a) - value(b) || a.quota.id - b.quota.id) * (desc ? -1 : 1);
}

function quotaOf(ctx: Ctx): ProjectRecord {
  const id = ctx.params.id as number;
  const project = ctx.world.projects.byQuotaId(id);
  if (!project) throw notFound(`quota ${id} not found`);
  return project;
}

const QuotaUpdateBody = z.object({ hard: z.record(z.string(), z.number().int()).nullish() });

const routes: RouteSpec[] = [
  {
    op: "listQuotas",
    method: "GET",
    path: "/quotas",
    paged: true,
    query: { reference: { type: "string" }, reference_id: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "quota", "list");
      const reference = ctx.query.reference as string | undefined;
      const referenceId = ctx.query.reference_id as string | undefined;
      // Project quotas are the only ones there are.
      if (reference && reference !== REFERENCE) return page(ctx, []);
      const items = ctx.world.projects
        .all()
        .filter((p) => !referenceId || referenceId === String(p.project_id))
        .sort(quotaOrder(ctx.world, ctx.query.sort as string | undefined));
      return page(
        ctx,
        items.map((p) => renderQuota(ctx.world, p)),
      );
    },
  },
  {
    op: "getQuota",
    method: "GET",
    path: "/quotas/{id}",
    params: { id: "int" },
    handle(ctx) {
      requireSystem(ctx, "quota", "read");
      return ok(renderQuota(ctx.world, quotaOf(ctx)));
    },
  },
  {
    op: "updateQuota",
    method: "PUT",
    path: "/quotas/{id}",
    params: { id: "int" },
    body: { name: "hard", schema: QuotaUpdateBody },
    handle(ctx) {
      requireSystem(ctx, "quota", "update");
      const hard = (ctx.body as z.output<typeof QuotaUpdateBody>).hard ?? {};
      if (Object.keys(hard).length === 0) throw badRequest("hard required in body");
      const project = quotaOf(ctx);
      for (const [resource, value] of Object.entries(hard)) {
        if (!RESOURCES.includes(resource)) throw badRequest(`resource ${resource} not support`);
        if (value <= 0 && value !== -1) throw badRequest(`invalid value for resource ${resource}`);
      }
      for (const resource of RESOURCES) {
        if (!(resource in hard)) throw badRequest(`resource ${resource} not found`);
      }
      ctx.world.projects.setStorageLimit(project, hard.storage as number);
      return ok();
    },
  },
];

export const area = defineArea({
  routes,
  control: () => ({}),
});
