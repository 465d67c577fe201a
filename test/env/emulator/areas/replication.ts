// Replication policies, executions that progress on the world clock, their tasks and task logs.
//
// A run copies what the policy's filters select from its source (replication-filters.ts): the
// local projects' repositories for a push, the remote content registered through the control API
// (`addRemoteArtifact`) for a pull. Each selected repository becomes one task; tasks run one after
// another, each taking an equal share of the run's duration (1 s unless a plan says otherwise), so a
// test can advance the clock and watch Pending → InProgress → Succeed/Failed. A plan can also make
// the copies of some repositories fail, or the whole flow fail with a text. When nothing matches,
// the execution is InProgress with total 0 and ends Succeed 0.1 s later with "no resources need to
// be replicated" and no tasks, as in Harbor 2.12.4. A run against a remote registry the world marked
// unhealthy fails at once. Schedules are not fired by the clock: the control API's `trigger` fires a
// scheduled or event-based run of a policy that has that trigger. From 2.14 a policy has
// `single_active_replication`: such a scheduled or event-based run starts nothing while another run
// of the policy is in progress (a manual one always starts).
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { callerName, requireSystem } from "../auth.ts";
import { badRequest, conflict, notFound, precondition } from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { applySort, type Fields, listReply, page } from "../listing.ts";
import { type Ctx, createdAt, ok, perRelease, type RouteSpec, textReply } from "../router.ts";
import { harborTime, type World, ZERO_TIME } from "../world.ts";
import { defineArea } from "./area.ts";
import { normalizeUrl, type RegistryRecord, renderRegistry } from "./registries.ts";
import {
  destinationName,
  matchPattern,
  PatternError,
  resourceName,
  type SourceArtifact,
  type SourceRepository,
  selectResources,
} from "./replication-filters.ts";

export interface ReplicationTrigger {
  type: string;
  trigger_settings?: { cron: string };
}

export interface ReplicationFilter {
  type: string;
  value: unknown;
  decoration: string;
}

export interface PolicyRecord {
  id: number;
  name: string;
  description: string;
  /** The caller who created it (Harbor keeps it for webhook payloads; the API does not show it). */
  creator: string;
  /** 0 is the Local registry; exactly one side is Local. */
  src_registry_id: number;
  dest_registry_id: number;
  dest_namespace: string;
  dest_namespace_replace_count: number;
  trigger?: ReplicationTrigger;
  filters: ReplicationFilter[];
  replicate_deletion: boolean;
  override: boolean;
  enabled: boolean;
  speed: number;
  copy_by_chunk: boolean;
  /** 2.14 on: a scheduled or event-based run is skipped while one of the policy's runs is in progress. */
  single_active_replication: boolean;
  creation_time: string;
  update_time: string;
}

export type PolicyInput = Omit<PolicyRecord, "id" | "creator" | "creation_time" | "update_time">;

/** How a replication run goes; what it copies always comes from the policy's filters. */
export interface RunPlan {
  /** From start to the final status when something is copied. Default 1000 ms. */
  durationMs?: number;
  /** Source repositories (doublestar patterns) whose copy task fails. */
  failing?: string[];
  /** The flow fails with this text (no tasks are created): status Failed, status_text = error. */
  error?: string;
}

/** One task of a run: a source repository with the artifacts it copies. */
interface PlannedCopy {
  resource_type: string;
  src_resource: string;
  dst_resource: string;
  fails: boolean;
}

type ExecStatus = "Running" | "Success" | "Error" | "Stopped";
type TaskStatus = "Pending" | "Running" | "Success" | "Error" | "Stopped";
type Trigger = "MANUAL" | "SCHEDULE" | "EVENT";

interface TaskRecord {
  id: number;
  execution_id: number;
  job_id: string;
  operation: string;
  resource_type: string;
  src_resource: string;
  dst_resource: string;
  final: "Success" | "Error";
  status: TaskStatus;
  start?: number;
  end?: number;
}

interface ExecutionRecord {
  id: number;
  policy_id: number;
  trigger: Trigger;
  status: ExecStatus;
  status_text: string;
  start: number;
  end?: number;
  durationMs: number;
  error?: string;
  tasks: TaskRecord[];
}

const DEFAULT_DURATION_MS = 1000;
/** How long Harbor takes to find there is nothing to copy. */
const EMPTY_RUN_MS = 100;
const REPOSITORY_PATH = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/;

// The API's words for the internal statuses and triggers, both ways.
const EXEC_WORD: Record<ExecStatus, string> = {
  Running: "InProgress",
  Success: "Succeed",
  Error: "Failed",
  Stopped: "Stopped",
};
const TASK_WORD: Record<TaskStatus, string> = {
  Pending: "Pending",
  Running: "InProgress",
  Success: "Succeed",
  Error: "Failed",
  Stopped: "Stopped",
};
const TRIGGER_WORD: Record<Trigger, string> = {
  MANUAL: "manual",
  SCHEDULE: "scheduled",
  EVENT: "event_based",
};
const EXEC_FROM_WORD: Record<string, string> = {
  InProgress: "Running",
  Succeed: "Success",
  Failed: "Error",
  Stopped: "Stopped",
};
const TRIGGER_FROM_WORD: Record<string, string> = {
  manual: "MANUAL",
  scheduled: "SCHEDULE",
  event_based: "EVENT",
};
const TASK_FROM_WORD: Record<string, string[]> = {
  InProgress: ["Scheduled", "Running"],
  Succeed: ["Success"],
  Failed: ["Error"],
};

export class ReplicationStore {
  readonly #world: World;
  readonly #policies = new Map<number, PolicyRecord>();
  readonly #executions = new Map<number, ExecutionRecord>();
  readonly #plans = new Map<number, RunPlan>();
  #defaultPlan: RunPlan = {};
  /** Remote registries' content, by normalised URL, then repository name. */
  readonly #remote = new Map<string, Map<string, SourceArtifact[]>>();

  constructor(world: World) {
    this.#world = world;
    world.clock.onTick(() => this.#advance());
  }

  get world(): World {
    return this.#world;
  }

  /** True when a replication policy uses the registry on either side. */
  referencesRegistry(registryId: number): boolean {
    for (const p of this.#policies.values()) {
      if (p.src_registry_id === registryId || p.dest_registry_id === registryId) return true;
    }
    return false;
  }

  // ---- policies

  allPolicies(): PolicyRecord[] {
    return [...this.#policies.values()];
  }

  policy(id: number): PolicyRecord {
    const p = this.#policies.get(id);
    if (!p) throw notFound(`replication policy ${id} not found`);
    return p;
  }

  createPolicy(input: PolicyInput, creator: string): PolicyRecord {
    this.#validate(input);
    this.#checkUnique(input.name, 0);
    const now = this.#world.nowText();
    const rec: PolicyRecord = {
      ...input,
      id: this.#world.ids.next("replication_policy"),
      creator,
      creation_time: now,
      update_time: now,
    };
    this.#policies.set(rec.id, rec);
    return rec;
  }

  /** A full replacement of the policy's settings. */
  updatePolicy(id: number, input: PolicyInput): PolicyRecord {
    this.#validate(input);
    const rec = this.policy(id);
    this.#checkUnique(input.name, id);
    // Clear optional fields the new settings leave out.
    Object.assign(rec, { trigger: undefined }, input, { update_time: this.#world.nowText() });
    return rec;
  }

  /** Refused while an execution is not final; otherwise removes the policy's executions too. */
  deletePolicy(id: number): PolicyRecord {
    this.#advance();
    const runs = [...this.#executions.values()].filter((e) => e.policy_id === id);
    if (runs.some((e) => e.status === "Running")) {
      throw precondition("contains executions that aren't in final status, stop the execution first");
    }
    const rec = this.policy(id);
    for (const e of runs) this.#executions.delete(e.id);
    this.#policies.delete(id);
    this.#plans.delete(id);
    return rec;
  }

  /** Policies that hold a schedule: only enabled ones with a scheduled trigger. */
  schedules(): Array<{ policy_id: number; cron: string }> {
    return this.allPolicies()
      .filter((p) => p.enabled && p.trigger?.type === "scheduled")
      .map((p) => ({ policy_id: p.id, cron: p.trigger?.trigger_settings?.cron ?? "" }));
  }

  // ---- executions

  setPlan(policyId: number | undefined, plan: RunPlan | null): void {
    if (policyId === undefined) this.#defaultPlan = plan ?? {};
    else if (plan === null) this.#plans.delete(policyId);
    else this.#plans.set(policyId, plan);
  }

  /** Adds an artifact to a remote registry's content (what a pull from it copies). */
  addRemoteArtifact(
    registryUrl: string,
    repository: string,
    artifact: { digest?: string; tags?: string[]; labels?: string[] } = {},
  ): void {
    const url = normalizeUrl(registryUrl);
    const repos = this.#remote.get(url) ?? new Map<string, SourceArtifact[]>();
    this.#remote.set(url, repos);
    const tags = artifact.tags ?? [];
    const artifacts = (repos.get(repository) ?? []).map((a) => ({
      ...a,
      tags: a.tags.filter((t) => !tags.includes(t)),
    }));
    artifacts.push({
      digest: artifact.digest ?? `sha256:${randomBytes(32).toString("hex")}`,
      tags,
      labels: artifact.labels ?? [],
    });
    repos.set(repository, artifacts);
  }

  /** Forgets a remote registry's content. */
  clearRemote(registryUrl: string): void {
    this.#remote.delete(normalizeUrl(registryUrl));
  }

  /** A run of the policy; undefined when single active replication skips it. */
  start(policyId: number, trigger: Trigger): ExecutionRecord | undefined {
    const p = this.policy(policyId);
    if (!p.enabled) throw precondition(`the policy ${p.id} is disabled`);
    if (p.single_active_replication && trigger !== "MANUAL") {
      this.#advance();
      const active = [...this.#executions.values()].some(
        (e) => e.policy_id === p.id && e.status === "Running",
      );
      if (active) return undefined;
    }
    const remote = this.#world.registries.resolve(p.src_registry_id || p.dest_registry_id);
    const plan = this.#plans.get(p.id) ?? this.#defaultPlan;
    const id = this.#world.ids.next("replication_execution");
    const healthy = this.#world.registries.isHealthy(remote.url);
    let error = healthy
      ? plan.error
      : `failed to ping the registry ${remote.name} (${remote.url}): the registry is unhealthy`;
    let copies: PlannedCopy[] = [];
    if (!error) {
      try {
        copies = this.#copies(p, plan);
      } catch (e) {
        error = (e as Error).message;
      }
    }
    // A flow that cannot reach the remote fails straight away; one with nothing to copy is done soon.
    const planned = Math.max(0, plan.durationMs ?? DEFAULT_DURATION_MS);
    const durationMs = !healthy ? 0 : plan.error ? planned : copies.length === 0 ? EMPTY_RUN_MS : planned;
    const exec: ExecutionRecord = {
      id,
      policy_id: p.id,
      trigger,
      status: "Running",
      status_text: "",
      start: this.#world.now(),
      durationMs,
      ...(error ? { error } : {}),
      tasks: copies.map((t) => ({
        id: this.#world.ids.next("replication_task"),
        execution_id: id,
        job_id: randomBytes(12).toString("hex"),
        operation: "copy",
        resource_type: t.resource_type,
        src_resource: t.src_resource,
        dst_resource: t.dst_resource,
        final: t.fails ? "Error" : "Success",
        status: "Pending",
      })),
    };
    this.#executions.set(id, exec);
    this.#step(exec, exec.start);
    return exec;
  }

  /** One task per source repository the filters keep, named as Harbor names resources. */
  #copies(p: PolicyRecord, plan: RunPlan): PlannedCopy[] {
    const source = this.#world.registries.resolve(p.src_registry_id);
    const repositories: SourceRepository[] =
      p.src_registry_id === 0
        ? this.#world.projects
            .all()
            .flatMap((project) =>
              [...project.repositories.values()].map((r) => ({ name: r.name, artifacts: r.artifacts ?? [] })),
            )
        : [...(this.#remote.get(normalizeUrl(source.url)) ?? new Map<string, SourceArtifact[]>())].map(
            ([name, artifacts]) => ({ name, artifacts }),
          );
    let selected: SourceRepository[];
    try {
      selected = selectResources(repositories, p.filters);
    } catch (e) {
      if (e instanceof PatternError) throw new Error(`failed to fetch artifacts: ${e.message}`);
      throw e;
    }
    // Harbor's own adapter lists artifacts; the others (docker-registry, …) list images.
    const resourceType = source.type === "harbor" ? "artifact" : "image";
    return selected.map((r) => ({
      resource_type: resourceType,
      src_resource: resourceName(r.name, r.artifacts),
      dst_resource: resourceName(
        destinationName(r.name, p.dest_namespace, p.dest_namespace_replace_count),
        r.artifacts,
      ),
      fails: (plan.failing ?? []).some((pattern) => matchPattern(pattern, r.name)),
    }));
  }

  execution(id: number): ExecutionRecord {
    this.#advance();
    const e = this.#executions.get(id);
    if (!e) throw notFound(`replication execution ${id} not found`);
    return e;
  }

  executions(): ExecutionRecord[] {
    this.#advance();
    return [...this.#executions.values()];
  }

  /** Stops a running execution and its unfinished tasks; a final one stays as it is. */
  stop(id: number): void {
    const e = this.execution(id);
    if (e.status !== "Running") return;
    const now = this.#world.now();
    for (const t of e.tasks) {
      if (t.status === "Pending" || t.status === "Running") {
        t.status = "Stopped";
        t.end = now;
      }
    }
    this.#finish(e, "Stopped", "", now);
  }

  /** Lets every running execution catch up with the clock. */
  #advance(): void {
    const now = this.#world.now();
    for (const e of this.#executions.values()) this.#step(e, now);
  }

  /** Task i runs during the i-th equal share of the duration; the execution ends with the last. */
  #step(e: ExecutionRecord, now: number): void {
    if (e.status !== "Running") return;
    const n = e.tasks.length;
    e.tasks.forEach((t, i) => {
      const from = Math.floor(e.start + (e.durationMs * i) / n);
      const to = Math.floor(e.start + (e.durationMs * (i + 1)) / n);
      if (now >= to) Object.assign(t, { status: t.final, start: from, end: to });
      else if (now >= from) Object.assign(t, { status: "Running", start: from });
    });
    const end = e.start + e.durationMs;
    if (now < end) return;
    if (e.error) this.#finish(e, "Error", e.error, end);
    else if (n === 0) this.#finish(e, "Success", "no resources need to be replicated", end);
    else this.#finish(e, e.tasks.some((t) => t.status === "Error") ? "Error" : "Success", "", end);
  }

  #finish(e: ExecutionRecord, status: ExecStatus, text: string, end: number): void {
    Object.assign(e, { status, status_text: text, end });
    this.#notify(e);
  }

  /** A REPLICATION webhook event for the local project involved, when one can be identified. */
  #notify(e: ExecutionRecord): void {
    const p = this.#policies.get(e.policy_id);
    if (!p) return;
    const push = p.src_registry_id === 0;
    const first = e.tasks[0];
    const nameFilter = p.filters.find((f) => f.type === "name")?.value;
    const localPath = first
      ? push
        ? first.src_resource
        : first.dst_resource
      : push
        ? String(nameFilter ?? "")
        : p.dest_namespace;
    const namespace = localPath.split("/")[0] ?? "";
    const project = this.#world.projects.byName(namespace);
    if (!project) return;
    const side = (r: RegistryRecord) => ({
      registry_name: r.name,
      registry_type: r.type,
      endpoint: r.url,
      namespace,
    });
    this.#world.webhooks.notify({
      projectId: project.project_id,
      eventType: "REPLICATION",
      data: {
        replication: {
          job_status: e.status,
          trigger_type: e.trigger,
          policy_creator: p.creator,
          execution_timestamp: Math.floor(e.start / 1000),
          override_mode: p.override,
          src_resource: side(this.#world.registries.resolve(p.src_registry_id)),
          dest_resource: side(this.#world.registries.resolve(p.dest_registry_id)),
        },
      },
    });
  }

  #validate(p: PolicyInput): void {
    if (p.name === "") throw badRequest("empty name");
    if ((p.src_registry_id === 0) === (p.dest_registry_id === 0)) {
      throw badRequest(
        "either src_registry or dest_registry should be empty and the other one shouldn't be empty",
      );
    }
    for (const f of p.filters) validateFilter(f);
    if (p.dest_namespace !== "" && !REPOSITORY_PATH.test(p.dest_namespace)) {
      throw badRequest(`invalid destination namespace: ${p.dest_namespace}`);
    }
    if (p.trigger) validateTrigger(p.trigger);
    // Both registries must exist (id 0 is Local).
    this.#world.registries.resolve(p.src_registry_id);
    this.#world.registries.resolve(p.dest_registry_id);
  }

  #checkUnique(name: string, exceptId: number): void {
    for (const p of this.#policies.values()) {
      if (p.name === name && p.id !== exceptId) throw conflict(`replication policy ${name} already exists`);
    }
  }
}

function validateFilter(f: ReplicationFilter): void {
  switch (f.type) {
    case "name":
    case "tag":
    case "resource":
      if (typeof f.value !== "string") throw badRequest("the type of filter value isn't string");
      if (f.type === "resource" && f.value !== "image" && f.value !== "artifact") {
        throw badRequest(`invalid resource filter: ${f.value}`);
      }
      if (f.type !== "tag" && f.decoration !== "")
        throw badRequest("only tag and label filter support decoration");
      break;
    case "label":
      if (!Array.isArray(f.value) || f.value.some((v) => typeof v !== "string")) {
        throw badRequest("the type of label filter value isn't string slice");
      }
      break;
    default:
      throw badRequest("invalid filter type");
  }
  if (f.decoration !== "" && f.decoration !== "matches" && f.decoration !== "excludes") {
    throw badRequest(`invalid filter decoration, :${f.decoration}`);
  }
}

function validateTrigger(t: ReplicationTrigger): void {
  if (t.type === "manual" || t.type === "event_based") return;
  if (t.type !== "scheduled") throw badRequest("invalid trigger type");
  const cron = t.trigger_settings?.cron ?? "";
  if (cron === "") throw badRequest("the cron string cannot be empty when the trigger type is scheduled");
  const parts = cron.split(" ");
  if (!validCron(cron) || parts[0] !== "0")
    throw badRequest(`invalid cron string for scheduled trigger: ${cron}`);
  // A schedule that fires every minute (or more often) is refused.
  if (parts[1] === "*") {
    throw badRequest("* is not allowed for the Minutes field of the cron setting of replication policy");
  }
}

/** The 6-field cron syntax (seconds first) of robfig/cron, with its field ranges. */
function validCron(cron: string): boolean {
  const fields = cron.trim().split(/\s+/);
  const ranges: Array<[number, number, string[]?]> = [
    [0, 59],
    [0, 59],
    [0, 23],
    [1, 31],
    [1, 12, ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]],
    [0, 6, ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]],
  ];
  if (fields.length !== 6) return false;
  return fields.every((field, i) => {
    const [min, max, names] = ranges[i] as [number, number, string[]?];
    const value = (v: string): number | undefined => {
      const byName = names?.indexOf(v.toUpperCase()) ?? -1;
      if (byName >= 0) return byName + min;
      if (!/^\d+$/.test(v)) return undefined;
      const n = Number(v);
      return n >= min && n <= max ? n : undefined;
    };
    return field.split(",").every((part) => {
      const [range, step] = part.split("/");
      if (step !== undefined && !(/^\d+$/.test(step) && Number(step) > 0)) return false;
      if (range === "*" || range === "?") return true;
      const [lo, hi] = (range ?? "").split("-");
      const a = value(lo ?? "");
      if (a === undefined) return false;
      if (hi === undefined) return true;
      const b = value(hi);
      return b !== undefined && a <= b;
    });
  });
}

// ---- rendering

function renderPolicy(world: World, p: PolicyRecord): Record<string, unknown> {
  return omitEmpty(
    {
      id: p.id,
      name: p.name,
      description: p.description,
      // Both sides in full; the local side is the Local registry with id 0.
      src_registry: renderRegistry(world.registries.resolve(p.src_registry_id), world),
      dest_registry: renderRegistry(world.registries.resolve(p.dest_registry_id), world),
      dest_namespace: p.dest_namespace,
      dest_namespace_replace_count: p.dest_namespace_replace_count,
      trigger: p.trigger
        ? omitEmpty({
            type: p.trigger.type,
            trigger_settings: p.trigger.trigger_settings ? omitEmpty(p.trigger.trigger_settings) : undefined,
          })
        : undefined,
      filters: p.filters.map((f) => omitEmpty(f, ["value"])),
      replicate_deletion: p.replicate_deletion,
      deletion: p.replicate_deletion,
      override: p.override,
      enabled: p.enabled,
      creation_time: p.creation_time,
      update_time: p.update_time,
      speed: p.speed,
      copy_by_chunk: p.copy_by_chunk,
      single_active_replication: world.version.has("singleActiveReplication")
        ? p.single_active_replication
        : undefined,
    },
    [
      "dest_namespace_replace_count",
      "speed",
      "copy_by_chunk",
      "creation_time",
      "update_time",
      "single_active_replication",
    ],
  );
}

const time = (ms: number | undefined) => (ms === undefined ? ZERO_TIME : harborTime(ms));

function renderExecution(e: ExecutionRecord): Record<string, unknown> {
  const count = (...s: TaskStatus[]) => e.tasks.filter((t) => s.includes(t.status)).length;
  return omitEmpty(
    {
      id: e.id,
      policy_id: e.policy_id,
      status: EXEC_WORD[e.status],
      trigger: TRIGGER_WORD[e.trigger],
      start_time: time(e.start),
      end_time: time(e.end),
      status_text: e.status_text,
      total: e.tasks.length,
      failed: count("Error"),
      succeed: count("Success"),
      in_progress: count("Pending", "Running"),
      stopped: count("Stopped"),
    },
    ["start_time", "end_time", "status_text", "total", "failed", "succeed", "in_progress", "stopped"],
  );
}

function renderTask(t: TaskRecord): Record<string, unknown> {
  return omitEmpty(
    {
      id: t.id,
      execution_id: t.execution_id,
      status: TASK_WORD[t.status],
      job_id: t.job_id,
      operation: t.operation,
      resource_type: t.resource_type,
      src_resource: t.src_resource,
      dst_resource: t.dst_resource,
      start_time: time(t.start),
      end_time: time(t.end),
    },
    ["start_time", "end_time"],
  );
}

/** The job log a task would have written so far. */
function taskLog(t: TaskRecord): string {
  if (t.start === undefined) return "";
  const lines = [`${harborTime(t.start)} [INFO] copying ${t.src_resource} to ${t.dst_resource}...`];
  if (t.end !== undefined) {
    const outcome: Partial<Record<TaskStatus, string>> = {
      Success: "[INFO] copy completed",
      Error: `[ERROR] failed to copy ${t.src_resource}`,
      Stopped: "[INFO] the job is stopped",
    };
    lines.push(`${harborTime(t.end)} ${outcome[t.status] ?? ""}`);
  }
  return `${lines.join("\n")}\n`;
}

// ---- routes

const RegistryRef = z.object({ id: z.number().int().nullish() });
const policyBodyFields = {
  id: z.number().int().nullish(),
  name: z.string().nullish(),
  description: z.string().nullish(),
  src_registry: RegistryRef.nullish(),
  dest_registry: RegistryRef.nullish(),
  dest_namespace: z.string().nullish(),
  dest_namespace_replace_count: z.number().int().min(-128).max(127).nullish(),
  trigger: z
    .object({
      type: z.string().nullish(),
      trigger_settings: z.object({ cron: z.string().nullish() }).nullish(),
    })
    .nullish(),
  filters: z
    .array(z.object({ type: z.string().nullish(), value: z.unknown(), decoration: z.string().nullish() }))
    .nullish(),
  replicate_deletion: z.boolean().nullish(),
  deletion: z.boolean().nullish(),
  override: z.boolean().nullish(),
  enabled: z.boolean().nullish(),
  creation_time: z.string().nullish(),
  update_time: z.string().nullish(),
  speed: z.number().int().nullish(),
  copy_by_chunk: z.boolean().nullish(),
};
/** ReplicationPolicy: 2.14 adds single_active_replication (go-swagger drops it before). */
const PolicyBody = perRelease((version) =>
  z
    .object({
      ...policyBodyFields,
      ...(version.has("singleActiveReplication") ? { single_active_replication: z.boolean().nullish() } : {}),
    })
    .meta({ goType: "ReplicationPolicy" }),
);
type PolicyBody = { [K in keyof typeof policyBodyFields]?: z.output<(typeof policyBodyFields)[K]> } & {
  single_active_replication?: boolean | null;
};
const StartBody = z.object({ policy_id: z.number().int().nullish() });

/** The handler's mapping: replicate-deletion comes from `deletion`; speed is clamped at 0. */
function policyInput(b: PolicyBody): PolicyInput {
  return {
    name: b.name ?? "",
    description: b.description ?? "",
    src_registry_id: b.src_registry?.id ?? 0,
    dest_registry_id: b.dest_registry?.id ?? 0,
    dest_namespace: b.dest_namespace ?? "",
    dest_namespace_replace_count: b.dest_namespace_replace_count ?? -1,
    ...(b.trigger
      ? {
          trigger: {
            type: b.trigger.type ?? "",
            ...(b.trigger.trigger_settings
              ? { trigger_settings: { cron: b.trigger.trigger_settings.cron ?? "" } }
              : {}),
          },
        }
      : {}),
    filters: (b.filters ?? []).map((f) => ({
      type: f.type ?? "",
      value: f.value,
      decoration: f.decoration ?? "",
    })),
    replicate_deletion: b.deletion ?? false,
    override: b.override ?? false,
    enabled: b.enabled ?? false,
    speed: Math.max(0, b.speed ?? 0),
    copy_by_chunk: b.copy_by_chunk ?? false,
    single_active_replication: b.single_active_replication ?? false,
  };
}

const policyFields: Fields<PolicyRecord> = {
  id: (p) => p.id,
  name: (p) => p.name,
  description: (p) => p.description,
  creator: (p) => p.creator,
  src_registry_id: (p) => p.src_registry_id,
  dest_registry_id: (p) => p.dest_registry_id,
  dest_namespace: (p) => p.dest_namespace,
  enabled: (p) => p.enabled,
  override: (p) => p.override,
  replicate_deletion: (p) => p.replicate_deletion,
  speed: (p) => p.speed,
  creation_time: (p) => p.creation_time,
  update_time: (p) => p.update_time,
};

const executionFields: Fields<ExecutionRecord> = {
  id: (e) => e.id,
  vendor_id: (e) => e.policy_id,
  status: (e) => e.status,
  trigger: (e) => e.trigger,
  start_time: (e) => e.start,
  end_time: (e) => e.end ?? 0,
};

const taskFields: Fields<TaskRecord> = {
  id: (t) => t.id,
  job_id: (t) => t.job_id,
  status: (t) => t.status,
  start_time: (t) => t.start ?? 0,
  end_time: (t) => t.end ?? 0,
};

/** start_time desc, then id desc (executions and tasks). */
const newestFirst = (a: { id: number; start?: number }, b: { id: number; start?: number }) =>
  (b.start ?? 0) - (a.start ?? 0) || b.id - a.id;

const auditPolicy = (ctx: Ctx, name: string, operation: "create" | "update" | "delete") =>
  auditWrite(ctx, { project_id: 0, resource: name, resource_type: "replication-policy", operation });

const routes: RouteSpec[] = [
  {
    op: "listReplicationPolicies",
    method: "GET",
    path: "/replication/policies",
    paged: true,
    query: { q: { type: "string" }, sort: { type: "string" }, name: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "replication-policy", "list");
      let items = ctx.world.replication.allPolicies();
      const name = ctx.query.name as string | undefined;
      if (name) items = items.filter((p) => p.name.toUpperCase().includes(name.toUpperCase()));
      return listReply(ctx, items, policyFields, {
        render: (p) => renderPolicy(ctx.world, p),
        defaultOrder: (a, b) => b.creation_time.localeCompare(a.creation_time) || b.id - a.id,
      });
    },
  },
  {
    op: "createReplicationPolicy",
    method: "POST",
    path: "/replication/policies",
    body: { name: "policy", schema: PolicyBody },
    handle(ctx) {
      requireSystem(ctx, "replication-policy", "create");
      const input = policyInput(ctx.body as PolicyBody);
      const rec = ctx.world.replication.createPolicy(input, callerName(ctx.caller));
      auditPolicy(ctx, rec.name, "create");
      return createdAt(ctx, rec.id);
    },
  },
  {
    op: "getReplicationPolicy",
    method: "GET",
    path: "/replication/policies/{id}",
    params: { id: "int" },
    handle(ctx) {
      requireSystem(ctx, "replication-policy", "read");
      return ok(renderPolicy(ctx.world, ctx.world.replication.policy(ctx.params.id as number)));
    },
  },
  {
    op: "updateReplicationPolicy",
    method: "PUT",
    path: "/replication/policies/{id}",
    params: { id: "int" },
    body: { name: "policy", schema: PolicyBody },
    handle(ctx) {
      requireSystem(ctx, "replication-policy", "update");
      const input = policyInput(ctx.body as PolicyBody);
      const rec = ctx.world.replication.updatePolicy(ctx.params.id as number, input);
      auditPolicy(ctx, rec.name, "update");
      return ok();
    },
  },
  {
    op: "deleteReplicationPolicy",
    method: "DELETE",
    path: "/replication/policies/{id}",
    params: { id: "int" },
    handle(ctx) {
      requireSystem(ctx, "replication-policy", "delete");
      const rec = ctx.world.replication.deletePolicy(ctx.params.id as number);
      auditPolicy(ctx, rec.name, "delete");
      return ok();
    },
  },
  {
    op: "listReplicationExecutions",
    method: "GET",
    path: "/replication/executions",
    paged: true,
    // No q here: only these filters.
    query: {
      sort: { type: "string" },
      policy_id: { type: "int" },
      status: { type: "string" },
      trigger: { type: "string" },
    },
    handle(ctx) {
      requireSystem(ctx, "replication", "list");
      const { policy_id, status, trigger } = ctx.query as {
        policy_id?: number;
        status?: string;
        trigger?: string;
      };
      // API words map back to the stored ones; anything else is compared as given.
      const wantStatus = status && (EXEC_FROM_WORD[status] ?? status);
      const wantTrigger = trigger && (TRIGGER_FROM_WORD[trigger] ?? trigger);
      const items = ctx.world.replication
        .executions()
        .filter(
          (e) =>
            (policy_id === undefined || e.policy_id === policy_id) &&
            (!wantStatus || e.status === wantStatus) &&
            (!wantTrigger || e.trigger === wantTrigger),
        );
      const sorted = applySort(items, ctx.rawQuery.get("sort") ?? undefined, executionFields, newestFirst);
      return page(ctx, sorted.map(renderExecution));
    },
  },
  {
    op: "startReplication",
    method: "POST",
    path: "/replication/executions",
    query: { trigger: { type: "string" } },
    body: { name: "execution", schema: StartBody },
    handle(ctx) {
      requireSystem(ctx, "replication", "create");
      const b = ctx.body as z.output<typeof StartBody>;
      // Harbor's own scheduler calls this endpoint with ?trigger=scheduled.
      const trigger = ctx.query.trigger === "scheduled" ? "SCHEDULE" : "MANUAL";
      const exec = ctx.world.replication.start(b.policy_id ?? 0, trigger);
      // A scheduled run that single active replication skips starts nothing (the id is 0).
      if (!exec) return createdAt(ctx, 0);
      auditWrite(ctx, {
        project_id: 0,
        resource: String(exec.id),
        resource_type: "replication",
        operation: "create",
      });
      return createdAt(ctx, exec.id);
    },
  },
  {
    op: "getReplicationExecution",
    method: "GET",
    path: "/replication/executions/{id}",
    params: { id: "int" },
    handle(ctx) {
      requireSystem(ctx, "replication", "read");
      return ok(renderExecution(ctx.world.replication.execution(ctx.params.id as number)));
    },
  },
  {
    op: "stopReplication",
    method: "PUT",
    path: "/replication/executions/{id}",
    params: { id: "int" },
    handle(ctx) {
      requireSystem(ctx, "replication", "create");
      const id = ctx.params.id as number;
      ctx.world.replication.stop(id);
      auditWrite(ctx, {
        project_id: 0,
        resource: String(id),
        resource_type: "replication",
        operation: "update",
      });
      // Harbor answers the stop with a JSON null.
      return ok(null);
    },
  },
  {
    op: "listReplicationTasks",
    method: "GET",
    path: "/replication/executions/{id}/tasks",
    params: { id: "int" },
    paged: true,
    query: { sort: { type: "string" }, status: { type: "string" }, resource_type: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "replication", "list");
      const exec = ctx.world.replication.execution(ctx.params.id as number);
      const { status, resource_type } = ctx.query as { status?: string; resource_type?: string };
      // InProgress matches Scheduled and Running; Pending and Stopped are the stored words.
      const wantStatus = status ? (TASK_FROM_WORD[status] ?? [status]) : undefined;
      const items = exec.tasks.filter(
        (t) =>
          (!wantStatus || wantStatus.includes(t.status)) &&
          (!resource_type || t.resource_type === resource_type),
      );
      const sorted = applySort(items, ctx.rawQuery.get("sort") ?? undefined, taskFields, newestFirst);
      return page(ctx, sorted.map(renderTask));
    },
  },
  {
    op: "getReplicationLog",
    method: "GET",
    path: "/replication/executions/{id}/tasks/{task_id}/log",
    params: { id: "int", task_id: "int" },
    handle(ctx) {
      requireSystem(ctx, "replication", "read");
      const id = ctx.params.id as number;
      const taskId = ctx.params.task_id as number;
      ctx.world.replication.execution(id);
      const task = ctx.world.replication
        .executions()
        .flatMap((e) => e.tasks)
        .find((t) => t.id === taskId);
      if (!task) throw notFound(`replication task ${taskId} not found`);
      if (task.execution_id !== id) throw notFound(`execution ${id} contains no task with ID ${taskId}`);
      return textReply(taskLog(task));
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** Sets how runs of every policy without its own plan go (null restores the default). */
    setPlan: (plan: RunPlan | null): void => world.replication.setPlan(undefined, plan),
    /** Sets how runs of one policy go (null removes its plan). */
    setPolicyPlan: (policyId: number, plan: RunPlan | null): void =>
      world.replication.setPlan(policyId, plan),
    /**
     * Adds an artifact (tags, label names, a digest) to the repository of a remote registry, given
     * by its URL: what a pull replication from that registry finds. A tag moves to the new artifact.
     */
    addRemoteArtifact: (
      registryUrl: string,
      repository: string,
      artifact?: { digest?: string; tags?: string[]; labels?: string[] },
    ): void => world.replication.addRemoteArtifact(registryUrl, repository, artifact),
    /** Forgets what a remote registry holds. */
    clearRemote: (registryUrl: string): void => world.replication.clearRemote(registryUrl),
    /** The policies that hold a schedule (enabled, scheduled trigger) and their cron strings. */
    schedules: () => world.replication.schedules(),
    /**
     * Fires a run as Harbor's scheduler or event handler would: the policy must be enabled and have
     * that trigger type. Returns the new execution's id, or 0 when the policy's single active
     * replication (2.14 on) skipped the run because another one is in progress.
     */
    trigger: (policyId: number, trigger: "scheduled" | "event_based"): number => {
      const p = world.replication.allPolicies().find((x) => x.id === policyId);
      if (!p) throw new Error(`no replication policy ${policyId}`);
      if (!p.enabled || p.trigger?.type !== trigger) {
        throw new Error(`replication policy ${policyId} has no enabled ${trigger} trigger`);
      }
      return world.replication.start(policyId, trigger === "scheduled" ? "SCHEDULE" : "EVENT")?.id ?? 0;
    },
  }),
});
