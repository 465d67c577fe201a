// Tag retention (/retentions): one policy per project, named by the project's metadata
// retention_id; executions (run now, dry run), their tasks (one per repository) and task logs.
// Harbor's quirks kept: a policy it does not have is a 500 on GET and a 400 on the other calls;
// DELETE leaves the project's retention_id behind (a later create for the project is refused);
// the template and its parameters are not checked on create or update: a run's job fails on them.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { isSysAdmin, requireProject } from "../auth.ts";
import { badRequest, conflict, forbidden, internal, notFound, unauthorized } from "../errors.ts";
import { page } from "../listing.ts";
import { type Ctx, createdAt, ok, type RouteSpec, textReply } from "../router.ts";
import { harborTime, type World, ZERO_TIME } from "../world.ts";
import { defineArea } from "./area.ts";
import type { ProjectRecord } from "./projects.ts";
import { matchPattern } from "./replication-filters.ts";
import { tagRuleModels } from "./tag-rule.ts";

/** Harbor's limit on the rules of one policy. */
export const MAX_RETENTION_RULES = 15;

/** The parameter each template requires, and the largest value Harbor's validator takes. */
const TEMPLATES: Record<string, { param?: string; max?: number }> = {
  latestPushedK: { param: "latestPushedK", max: 32766 },
  latestPulledN: { param: "latestPulledN", max: 32766 },
  nDaysSinceLastPush: { param: "nDaysSinceLastPush", max: 20190904 },
  nDaysSinceLastPull: { param: "nDaysSinceLastPull", max: 20190904 },
  latestActiveK: { param: "latestActiveK" },
  lastXDays: { param: "lastXDays" },
  always: {},
};

/** GET /retentions/metadatas: fixed, as Harbor serves it. */
const METADATA = {
  templates: [
    ["latestPushedK", "the most recently pushed # artifacts", "COUNT"],
    ["latestPulledN", "the most recently pulled # artifacts", "COUNT"],
    ["nDaysSinceLastPush", "pushed within the last # days", "DAYS"],
    ["nDaysSinceLastPull", "pulled within the last # days", "DAYS"],
  ]
    .map(([rule_template, display_text, unit]) => ({
      rule_template,
      display_text,
      action: "retain",
      params: [{ type: "int", unit, required: true }],
    }))
    .concat([{ rule_template: "always", display_text: "always", action: "retain", params: [] }]),
  scope_selectors: [
    { display_text: "Repositories", kind: "doublestar", decorations: ["repoMatches", "repoExcludes"] },
  ],
  tag_selectors: [{ display_text: "Tags", kind: "doublestar", decorations: ["matches", "excludes"] }],
};

export type RetentionStatus = "Running" | "Success" | "Error" | "Stopped";

export interface RetentionPolicyRecord {
  id: number;
  /** The policy as Harbor stores it: the request's JSON (rules, trigger, scope, algorithm). */
  data: Record<string, unknown>;
  projectId: number;
}

export interface RetentionExecutionRecord {
  id: number;
  policy_id: number;
  start_time: string;
  end_time: string;
  status: RetentionStatus;
  trigger: string;
  dry_run: boolean;
  /** When the execution ends by itself (ms). */
  endsAt: number;
  /** A rule's template or parameter is one Harbor's job cannot evaluate: the run ends in Error. */
  failing: boolean;
  tasks: RetentionTaskRecord[];
}

export interface RetentionTaskRecord {
  id: number;
  execution_id: number;
  repository: string;
  job_id: string;
  status: RetentionStatus;
  start_time: string;
  end_time: string;
  total: number;
  retained: number;
}

const STATUS_CODE: Record<RetentionStatus, number> = { Running: 2, Success: 3, Error: 3, Stopped: 3 };

export class RetentionStore {
  readonly #world: World;
  readonly #policies = new Map<number, RetentionPolicyRecord>();
  readonly #executions = new Map<number, RetentionExecutionRecord>();
  /** How long a run with repositories takes; tests change it. */
  durationMs = 1000;
  /** How the next runs end. */
  outcome: "Success" | "Error" = "Success";

  constructor(world: World) {
    this.#world = world;
    world.clock.onTick(() => this.#tick());
  }

  get(id: number): RetentionPolicyRecord | undefined {
    return this.#policies.get(id);
  }

  all(): RetentionPolicyRecord[] {
    return [...this.#policies.values()];
  }

  /** The policy the project's retention_id names, if Harbor still has it. */
  ofProject(project: ProjectRecord): RetentionPolicyRecord | undefined {
    const id = Number(project.metadata.retention_id ?? "");
    return Number.isInteger(id) && id > 0 ? this.#policies.get(id) : undefined;
  }

  insert(projectId: number, data: Record<string, unknown>): RetentionPolicyRecord {
    const rec = { id: this.#world.ids.next("retention"), data, projectId };
    this.#policies.set(rec.id, rec);
    return rec;
  }

  /** The policy Harbor gives a new proxy-cache project: keep what was pulled in the last 7 days. */
  createForProxy(project: ProjectRecord): void {
    const rec = this.insert(project.project_id, {
      algorithm: "or",
      rules: [
        {
          id: 1,
          priority: 1,
          disabled: false,
          action: "retain",
          template: "nDaysSinceLastPull",
          params: { nDaysSinceLastPull: 7 },
          tag_selectors: [{ kind: "doublestar", decoration: "matches", pattern: "**" }],
          scope_selectors: { repository: [{ kind: "doublestar", decoration: "repoMatches", pattern: "**" }] },
        },
      ],
      trigger: { kind: "Schedule", settings: { cron: "0 0 0 * * *" } },
      scope: { level: "project", ref: project.project_id },
    });
    project.metadata.retention_id = String(rec.id);
  }

  delete(id: number): void {
    this.#policies.delete(id);
    for (const e of this.#executions.values()) if (e.policy_id === id) this.#executions.delete(e.id);
  }

  /** With its project: Harbor deletes the project's policy. */
  deleteByProject(projectId: number): void {
    for (const p of this.#policies.values()) if (p.projectId === projectId) this.delete(p.id);
  }

  executions(policyId: number): RetentionExecutionRecord[] {
    return [...this.#executions.values()].filter((e) => e.policy_id === policyId).sort((a, b) => b.id - a.id);
  }

  execution(id: number): RetentionExecutionRecord | undefined {
    return this.#executions.get(id);
  }

  allExecutions(): RetentionExecutionRecord[] {
    return [...this.#executions.values()];
  }

  /**
   * Starts one execution, as Harbor's launcher: a task per repository an enabled rule selects (by
   * its repository selectors; repository names without the project); with none, the execution is
   * done at once (Success). A rule whose template Harbor does not know fails in the job: Error.
   */
  start(policy: RetentionPolicyRecord, trigger: string, dryRun: boolean): RetentionExecutionRecord {
    const now = this.#world.now();
    const project = this.#world.projects.byId(policy.projectId);
    const rules = (policy.data.rules as StoredRule[]).filter((r) => !r.disabled);
    const repos = project
      ? [...project.repositories.keys()].filter((full) => {
          const name = full.startsWith(`${project.name}/`) ? full.slice(project.name.length + 1) : full;
          return rules.some((r) => selects(r, name));
        })
      : [];
    const broken = rules.some((r) => {
      const t = TEMPLATES[r.template];
      return !t || (t.param !== undefined && r.params?.[t.param] === undefined);
    });
    const id = this.#world.ids.next("retention-execution");
    const rec: RetentionExecutionRecord = {
      id,
      policy_id: policy.id,
      start_time: harborTime(now),
      end_time: repos.length ? ZERO_TIME : harborTime(now),
      status: repos.length ? "Running" : "Success",
      trigger,
      dry_run: dryRun,
      endsAt: now + this.durationMs,
      failing: broken,
      tasks: repos.map((repository) => ({
        id: this.#world.ids.next("retention-task"),
        execution_id: id,
        repository,
        job_id: `job-${id}-${repository}`.replace(/[^a-z0-9-]/gi, "-"),
        status: "Running",
        start_time: harborTime(now),
        end_time: ZERO_TIME,
        total: project?.repositories.get(repository)?.artifact_count ?? 0,
        retained: 0,
      })),
    };
    this.#executions.set(id, rec);
    return rec;
  }

  stop(e: RetentionExecutionRecord): void {
    if (e.status !== "Running") return;
    this.#end(e, "Stopped");
  }

  #end(e: RetentionExecutionRecord, status: RetentionStatus): void {
    const at = harborTime(this.#world.now());
    e.status = status;
    e.end_time = at;
    for (const t of e.tasks) {
      t.status = status;
      t.end_time = at;
      t.retained = status === "Success" ? t.total : 0;
    }
  }

  #tick(): void {
    const now = this.#world.now();
    for (const e of this.#executions.values())
      if (e.status === "Running" && now >= e.endsAt) this.#end(e, e.failing ? "Error" : this.outcome);
  }
}

interface StoredSelector {
  kind: string;
  decoration: string;
  pattern: string;
}
interface StoredRule {
  disabled: boolean;
  template: string;
  params: Record<string, unknown> | null;
  scope_selectors: Record<string, StoredSelector[]> | null;
}

/** Whether a rule's repository selectors keep the repository (no selector: every repository). */
function selects(r: StoredRule, name: string): boolean {
  return (r.scope_selectors?.repository ?? []).every((s) => {
    let m: boolean;
    try {
      m = matchPattern(s.pattern, name);
    } catch {
      m = false;
    }
    return s.decoration === "repoExcludes" ? !m : m;
  });
}

/** Harbor's launcher builds each selector before it starts anything: one it has not is a 500. */
function checkSelectors(data: Record<string, unknown>): void {
  for (const r of data.rules as StoredRule[]) {
    if (r.disabled) continue;
    for (const s of r.scope_selectors?.repository ?? []) {
      if (s.kind !== "doublestar") throw internal(`launcher: selector ${s.kind} is not registered`);
      if (s.decoration !== "repoMatches" && s.decoration !== "repoExcludes") {
        throw internal(`launcher: decoration ${s.decoration} of selector ${s.kind} is not supported`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Wire models

const { Selector, Rule } = tagRuleModels({ selector: "RetentionSelector", rule: "RetentionRule" });
const PolicyBody = z
  .object({
    id: z.number().int().nullish(),
    algorithm: z.string().nullish(),
    rules: z.array(Rule.nullable()).nullish(),
    trigger: z
      .object({
        kind: z.string().nullish(),
        settings: z.record(z.string(), z.unknown()).nullish(),
        references: z.record(z.string(), z.unknown()).nullish(),
      })
      .meta({ goType: "RetentionRuleTrigger" })
      .nullish(),
    scope: z
      .object({ level: z.string().nullish(), ref: z.number().int().nullish() })
      .meta({ goType: "RetentionPolicyScope" })
      .nullish(),
  })
  .meta({ goType: "RetentionPolicy" });
type PolicyBody = z.output<typeof PolicyBody>;

/** The policy as Harbor's Go structs keep it: every field present, in their order. */
function normalise(b: PolicyBody): Record<string, unknown> {
  const selector = (s: z.output<typeof Selector> | null) => ({
    kind: s?.kind ?? "",
    decoration: s?.decoration ?? "",
    pattern: s?.pattern ?? "",
    extras: s?.extras ?? "",
  });
  return {
    algorithm: b.algorithm ?? "",
    rules: (b.rules ?? []).map((r) => ({
      id: r?.id ?? 0,
      priority: r?.priority ?? 0,
      disabled: r?.disabled ?? false,
      action: r?.action ?? "",
      template: r?.template ?? "",
      params: r?.params ?? null,
      tag_selectors: r?.tag_selectors ? r.tag_selectors.map(selector) : null,
      scope_selectors: r?.scope_selectors
        ? Object.fromEntries(Object.entries(r.scope_selectors).map(([k, v]) => [k, v.map(selector)]))
        : null,
    })),
    trigger: b.trigger
      ? {
          kind: b.trigger.kind ?? "",
          settings: b.trigger.settings ?? null,
          references: b.trigger.references ?? null,
        }
      : null,
    scope: b.scope ? { level: b.scope.level ?? "", ref: b.scope.ref ?? 0 } : null,
  };
}

/** 400 over 15 rules; 409 for two rules alike (ids aside), as Harbor's checkRuleConflict. */
function checkRules(data: Record<string, unknown>): void {
  const rules = data.rules as Array<Record<string, unknown>>;
  if (rules.length > MAX_RETENTION_RULES) throw badRequest("only 15 rules are allowed at most");
  const seen = new Map<string, number>();
  rules.forEach((r, n) => {
    const key = JSON.stringify({ ...r, id: 0 });
    const old = seen.get(key);
    if (old !== undefined) throw conflict(`rule ${n} is conflict with rule ${old}`);
    seen.set(key, n);
  });
}

/** Harbor's scheduler refuses a cron it cannot parse (six fields, seconds first). */
function checkCron(data: Record<string, unknown>): void {
  const trigger = data.trigger as { kind: string; settings: Record<string, unknown> | null } | null;
  if (trigger?.kind !== "Schedule") return;
  const cron = trigger.settings?.cron;
  if (typeof cron !== "string" || cron === "") return;
  if (cron.trim().split(/\s+/).length !== 6)
    throw badRequest(`invalid cron ${cron}: expected exactly 6 fields`);
}

const cronOf = (data: Record<string, unknown>): string => {
  const t = data.trigger as { kind?: string; settings?: Record<string, unknown> | null } | null;
  return t?.kind === "Schedule" && typeof t.settings?.cron === "string" ? t.settings.cron : "";
};

/** RequireProjectAccess on the policy's project (its scope ref). */
function requirePolicyProject(ctx: Ctx, projectId: number, action: string): ProjectRecord | undefined {
  const project = ctx.world.projects.byId(projectId);
  if (!project) {
    if (ctx.caller.kind === "anonymous") throw unauthorized();
    if (!isSysAdmin(ctx.caller)) throw forbidden();
    return undefined;
  }
  requireProject(ctx, project, "tag-retention", action);
  return project;
}

/** GetRetention's failure for an id Harbor does not have: a plain error, hence 500. */
function policyOr500(ctx: Ctx): RetentionPolicyRecord {
  const id = ctx.params.id as number;
  const p = ctx.world.retention.get(id);
  if (!p) throw internal(`no such Retention policy with id ${id}`);
  return p;
}

/** The other calls wrap that error in a 400. */
function policyOr400(ctx: Ctx): RetentionPolicyRecord {
  const id = ctx.params.id as number;
  const p = ctx.world.retention.get(id);
  if (!p) throw badRequest(`no such Retention policy with id ${id}`);
  return p;
}

const render = (p: RetentionPolicyRecord) => ({ id: p.id, ...p.data });

const renderExecution = (e: RetentionExecutionRecord) => ({
  id: e.id,
  policy_id: e.policy_id,
  start_time: e.start_time,
  end_time: e.end_time,
  status: e.status,
  trigger: e.trigger,
  dry_run: e.dry_run,
});

const renderTask = (t: RetentionTaskRecord) => ({
  id: t.id,
  execution_id: t.execution_id,
  repository: t.repository,
  job_id: t.job_id,
  status: t.status,
  status_code: STATUS_CODE[t.status],
  status_revision: 0,
  start_time: t.start_time,
  end_time: t.end_time,
  total: t.total,
  retained: t.retained,
});

const idParams = { id: "int" } as const;

const routes: RouteSpec[] = [
  {
    op: "getRentenitionMetadata",
    method: "GET",
    path: "/retentions/metadatas",
    handle: () => ok(METADATA),
  },
  {
    op: "createRetention",
    method: "POST",
    path: "/retentions",
    body: { name: "policy", schema: PolicyBody },
    handle(ctx) {
      const data = normalise(ctx.body as PolicyBody);
      checkRules(data);
      const scope = data.scope as { level: string; ref: number } | null;
      const level = scope?.level ?? "";
      const ref = scope?.ref ?? 0;
      if (level !== "project") throw badRequest(`scope ${level} is not support`);
      if (ref <= 0) throw badRequest(`invalid Project id ${ref}`);
      const project = requirePolicyProject(ctx, ref, "create");
      if (!project) throw badRequest(`invalid Project id ${ref}`);
      if (project.metadata.retention_id) {
        throw badRequest(`project ${ref} already has retention policy ${project.metadata.retention_id}`);
      }
      // Stored before the schedule is made: a cron the scheduler refuses leaves a policy no project names.
      const rec = ctx.world.retention.insert(ref, data);
      checkCron(data);
      project.metadata.retention_id = String(rec.id);
      auditWrite(ctx, {
        project_id: ref,
        resource: String(rec.id),
        resource_type: "retention",
        operation: "create",
      });
      return createdAt(ctx, rec.id);
    },
  },
  {
    op: "getRetention",
    method: "GET",
    path: "/retentions/{id}",
    params: idParams,
    handle(ctx) {
      const p = policyOr500(ctx);
      requirePolicyProject(ctx, p.projectId, "read");
      return ok(render(p));
    },
  },
  {
    op: "updateRetention",
    method: "PUT",
    path: "/retentions/{id}",
    params: idParams,
    body: { name: "policy", schema: PolicyBody },
    handle(ctx) {
      const id = ctx.params.id as number;
      const data = normalise(ctx.body as PolicyBody);
      checkRules(data);
      const scope = data.scope as { level: string; ref: number } | null;
      const ref = scope?.ref ?? 0;
      const project = requirePolicyProject(ctx, ref, "update");
      // The id must be the one the project's metadata names.
      if (!project || project.metadata.retention_id !== String(id)) {
        throw notFound(`the retention policy id ${id} does not match`);
      }
      const p = policyOr500(ctx);
      const kind = (data.trigger as { kind?: string } | null)?.kind ?? "";
      const oldKind = (p.data.trigger as { kind?: string } | null)?.kind ?? "";
      if (kind === oldKind && kind !== "Schedule" && kind !== "")
        throw internal(`not support Trigger ${kind}`);
      p.data = data;
      if (cronOf(data) !== "") checkCron(data);
      auditWrite(ctx, {
        project_id: ref,
        resource: String(id),
        resource_type: "retention",
        operation: "update",
      });
      return ok();
    },
  },
  {
    op: "deleteRetention",
    method: "DELETE",
    path: "/retentions/{id}",
    params: idParams,
    handle(ctx) {
      const p = policyOr400(ctx);
      requirePolicyProject(ctx, p.projectId, "delete");
      // The project's retention_id is left as it is.
      ctx.world.retention.delete(p.id);
      return ok();
    },
  },
  {
    op: "triggerRetentionExecution",
    method: "POST",
    path: "/retentions/{id}/executions",
    params: idParams,
    body: {
      name: "body",
      schema: z.object({ dry_run: z.boolean().nullish() }).meta({ goType: "TriggerRetentionExecutionBody" }),
    },
    handle(ctx) {
      const p = policyOr400(ctx);
      requirePolicyProject(ctx, p.projectId, "update");
      checkSelectors(p.data);
      const e = ctx.world.retention.start(p, "MANUAL", ctx.body?.dry_run === true);
      return createdAt(ctx, e.id);
    },
  },
  {
    op: "listRetentionExecutions",
    method: "GET",
    path: "/retentions/{id}/executions",
    params: idParams,
    paged: true,
    handle(ctx) {
      const p = policyOr400(ctx);
      requirePolicyProject(ctx, p.projectId, "list");
      return page(ctx, ctx.world.retention.executions(p.id).map(renderExecution));
    },
  },
  {
    op: "operateRetentionExecution",
    method: "PATCH",
    path: "/retentions/{id}/executions/{eid}",
    params: { id: "int", eid: "int" },
    body: {
      name: "body",
      schema: z.object({ action: z.string().nullish() }).meta({ goType: "OperateRetentionExecutionBody" }),
    },
    handle(ctx) {
      if (ctx.body?.action !== "stop") throw badRequest("action should be 'stop'");
      const p = policyOr400(ctx);
      requirePolicyProject(ctx, p.projectId, "update");
      const e = ctx.world.retention.execution(ctx.params.eid as number);
      if (!e) throw notFound(`execution ${ctx.params.eid} not found`);
      ctx.world.retention.stop(e);
      return ok();
    },
  },
  {
    op: "listRetentionTasks",
    method: "GET",
    path: "/retentions/{id}/executions/{eid}/tasks",
    params: { id: "int", eid: "int" },
    paged: true,
    handle(ctx) {
      const p = policyOr400(ctx);
      requirePolicyProject(ctx, p.projectId, "list");
      const e = ctx.world.retention.execution(ctx.params.eid as number);
      return page(ctx, (e?.tasks ?? []).map(renderTask));
    },
  },
  {
    op: "getRetentionTaskLog",
    method: "GET",
    path: "/retentions/{id}/executions/{eid}/tasks/{tid}",
    params: { id: "int", eid: "int", tid: "int" },
    handle(ctx) {
      const p = policyOr400(ctx);
      requirePolicyProject(ctx, p.projectId, "read");
      const e = ctx.world.retention.execution(ctx.params.eid as number);
      const t = e?.tasks.find((x) => x.id === ctx.params.tid);
      if (!e || !t) throw notFound(`task ${ctx.params.tid} not found`);
      const header = "Digest | Tag | Kind | Labels | PushedTime | PulledTime | CreatedTime | Retention";
      return textReply(
        `${header}\n${e.dry_run ? "(dry run) " : ""}${t.repository}: ${t.retained}/${t.total} retained\n`,
      );
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    policies: () => world.retention.all(),
    executions: () => world.retention.allExecutions(),
    /** How long runs with repositories take, and how they end. */
    setRunPlan(durationMs: number, outcome: "Success" | "Error" = "Success"): void {
      world.retention.durationMs = durationMs;
      world.retention.outcome = outcome;
    },
  }),
});
