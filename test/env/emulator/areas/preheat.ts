// P2P preheat: provider instances (per Harbor) and preheat policies (per project), as Harbor 2.12.4
// serves them:
// - Providers: the drivers Harbor has, dragonfly and kraken.
// - Instances are addressed by name. Create: the name must match Harbor's name rule (else a plain
//   error: 500 "name … is invalid"); an instance of the same endpoint is a plain 500 "resource
//   conflict", one of the same name 409. Harbor does not check the provider's health on create
//   (its UI pings first). A new instance marked default does not unmark the others; an update that
//   marks one default does. Update finds the instance by the body's id (not the path), refuses a
//   vendor change (500) and disabling one a policy uses (412). Delete is 412 while a policy uses it.
//   Reads return status "Unknown" and, up to 2.14.3, auth_info as stored — the credential included;
//   from 2.14.4 (2.15.1 on the 2.15 line) reads leave auth_info out, and an update whose auth_info
//   is empty or absent keeps the stored one unless its auth_mode is NONE.
// - Ping (by id, or by endpoint and credential) asks the provider's health endpoint. The emulator
//   never dials out, whatever the address: it answers for the providers the world holds
//   (`addProvider`, with an optional required credential, as scanner adapters are), and a 500 as
//   Harbor's HTTP client error ("connection refused") for any other endpoint.
// - Policies: name rule as for instances; filters and trigger are JSON text that Harbor decodes and
//   validates (filter types repository, tag, label, signature, vulnerability; trigger manual,
//   scheduled with a cron, event_based), refusing what does not decode with a plain 500 and what
//   does not validate with 400. The provider must exist (404). The name is unique in the project
//   (409). Update replaces the policy the body's id names. Deleting a project deletes its policies.
//   The scope (Dragonfly's single_seed_peer, all_seed_peers, all_peers; not checked) is the policy's
//   `scope` up to 2.12; from 2.13 it lives in `extra_attrs`, a JSON object in a string
//   (`{"scope":"all_peers"}`) that Harbor decodes (a plain 500 when it does not) and encodes again,
//   and `scope` is no field any more (dropped from requests, absent from answers).
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { projectAccess, requireSystem } from "../auth.ts";
import { badRequest, conflict, internal, notFound, precondition } from "../errors.ts";
import { type Fields, listReply } from "../listing.ts";
import { type Ctx, createdAt, ok, perRelease, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import { parseCron } from "./cron.ts";
import { goJson } from "./system-job.ts";

const NAME = /^[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*$/;

export const PREHEAT_PROVIDERS = [
  {
    id: "dragonfly",
    name: "Dragonfly",
    icon: "https://raw.githubusercontent.com/dragonflyoss/Dragonfly2/master/docs/images/logo/dragonfly-linear.png",
    version: "2.1.57",
    source: "https://github.com/dragonflyoss/Dragonfly2",
    maintainers: ["chlins"],
  },
  {
    id: "kraken",
    name: "Kraken",
    icon: "https://github.com/uber/kraken/blob/master/assets/kraken-logo-color.svg",
    version: "0.1.3",
    source: "https://github.com/uber/kraken",
    maintainers: ["mmpei/peimingming@corp.netease.com"],
  },
];

export interface PreheatInstanceRecord {
  id: number;
  name: string;
  description: string;
  vendor: string;
  endpoint: string;
  auth_mode: string;
  auth_info: Record<string, string>;
  enabled: boolean;
  default: boolean;
  insecure: boolean;
  setup_timestamp: number;
}

export interface PreheatPolicyRecord {
  id: number;
  name: string;
  description: string;
  project_id: number;
  provider_id: number;
  filters: string;
  trigger: string;
  enabled: boolean;
  /** Up to 2.12: the scope. */
  scope: string;
  /** 2.13 on: the extra attributes as Harbor encodes them again ("" when none). */
  extra_attrs: string;
  creation_time: string;
  update_time: string;
}

/** A provider service the world holds: what its health endpoint answers. */
interface ProviderService {
  healthy: boolean;
  /** When set, the only auth mode and auth_info it accepts. */
  credential?: { mode: string; info: Record<string, string> };
}

const endpointKey = (endpoint: string) => endpoint.trim().replace(/\/+$/, "").toLowerCase();

export class PreheatStore {
  readonly #world: World;
  readonly #instances = new Map<number, PreheatInstanceRecord>();
  readonly #policies = new Map<number, PreheatPolicyRecord>();
  readonly #services = new Map<string, ProviderService>();

  constructor(world: World) {
    this.#world = world;
  }

  instances(): PreheatInstanceRecord[] {
    return [...this.#instances.values()];
  }

  instanceByName(name: string): PreheatInstanceRecord | undefined {
    return this.instances().find((i) => i.name === name);
  }

  instance(id: number): PreheatInstanceRecord | undefined {
    return this.#instances.get(id);
  }

  policies(projectId?: number): PreheatPolicyRecord[] {
    const all = [...this.#policies.values()];
    return projectId === undefined ? all : all.filter((p) => p.project_id === projectId);
  }

  /** Puts a provider at `endpoint` in the world: nothing is dialed, the world answers for it. */
  setService(endpoint: string, service: ProviderService): void {
    this.#services.set(endpointKey(endpoint), service);
  }

  /** Harbor's CheckHealth: the driver's GET of the health endpoint, with the instance's credential. */
  checkHealth(
    i: Pick<PreheatInstanceRecord, "vendor" | "name" | "endpoint" | "auth_mode" | "auth_info">,
  ): void {
    if (!PREHEAT_PROVIDERS.some((p) => p.id === i.vendor))
      throw internal(`no driver registered for provider ${i.vendor}`);
    const path = i.vendor === "dragonfly" ? "/_ping" : "/health";
    const url = `${i.endpoint.replace(/\/+$/, "")}${path}`;
    const service = this.#services.get(endpointKey(i.endpoint));
    if (!service) throw internal(`Get "${url}": dial tcp: connect: connection refused`);
    const c = service.credential;
    if (c && (c.mode !== i.auth_mode || JSON.stringify(c.info) !== JSON.stringify(i.auth_info)))
      throw internal(`http error: code 401, message: unauthorized`);
    if (!service.healthy) throw internal(`http error: code 503, message: unhealthy`);
  }

  createInstance(input: Omit<PreheatInstanceRecord, "id" | "setup_timestamp">): PreheatInstanceRecord {
    if (!NAME.test(input.name)) throw internal(`name ${input.name} is invalid`);
    if (this.instances().some((i) => i.endpoint === input.endpoint)) throw internal("resource conflict");
    if (this.instanceByName(input.name)) throw conflict(`instance ${input.name} already exists`);
    const rec: PreheatInstanceRecord = {
      ...input,
      id: this.#world.ids.next("preheat-instance"),
      setup_timestamp: Math.floor(this.#world.now() / 1000),
    };
    this.#instances.set(rec.id, rec);
    return rec;
  }

  updateInstance(input: Omit<PreheatInstanceRecord, "setup_timestamp">): void {
    if (!NAME.test(input.name)) throw internal(`name ${input.name} is invalid`);
    const old = this.#instances.get(input.id);
    if (!old) throw notFound(`instance ${input.id} not found`);
    if (!input.enabled && this.policies().some((p) => p.provider_id === old.id))
      throw precondition(`Provider [${old.name}] cannot be disabled as some preheat policies are using it`);
    if (old.vendor !== input.vendor) throw internal(`provider [${old.name}] vendor cannot be changed`);
    const other = this.instanceByName(input.name);
    if (other && other.id !== old.id) throw conflict(`instance ${input.name} already exists`);
    if (input.default) for (const i of this.#instances.values()) if (i.id !== old.id) i.default = false;
    Object.assign(old, input);
  }

  deleteInstance(rec: PreheatInstanceRecord): void {
    if (this.policies().some((p) => p.provider_id === rec.id))
      throw precondition(`Provider [${rec.name}] cannot be deleted as some preheat policies are using it`);
    this.#instances.delete(rec.id);
  }

  policyByName(projectId: number, name: string): PreheatPolicyRecord | undefined {
    return this.policies(projectId).find((p) => p.name === name);
  }

  createPolicy(
    input: Omit<PreheatPolicyRecord, "id" | "creation_time" | "update_time">,
  ): PreheatPolicyRecord {
    validatePolicy(input);
    if (!this.#instances.has(input.provider_id)) throw notFound(`instance ${input.provider_id} not found`);
    if (this.policyByName(input.project_id, input.name))
      throw conflict(`policy ${input.name} already exists`);
    const now = this.#world.nowText();
    const rec: PreheatPolicyRecord = {
      ...input,
      id: this.#world.ids.next("preheat-policy"),
      creation_time: now,
      update_time: now,
    };
    this.#policies.set(rec.id, rec);
    return rec;
  }

  updatePolicy(input: Omit<PreheatPolicyRecord, "creation_time" | "update_time">): void {
    const old = this.#policies.get(input.id);
    if (!old || old.project_id !== input.project_id) throw notFound(`policy ${input.id} not found`);
    if (!this.#instances.has(input.provider_id)) throw notFound(`instance ${input.provider_id} not found`);
    validatePolicy(input);
    const other = this.policyByName(input.project_id, input.name);
    if (other && other.id !== old.id) throw conflict(`policy ${input.name} already exists`);
    Object.assign(old, input, { update_time: this.#world.nowText() });
  }

  deletePolicy(rec: PreheatPolicyRecord): void {
    this.#policies.delete(rec.id);
  }

  deleteByProject(projectId: number): void {
    for (const p of this.policies(projectId)) this.#policies.delete(p.id);
  }
}

/** Harbor's Decode (plain errors: 500) then its validation (400). */
function validatePolicy(p: { name: string; filters: string; trigger: string }): void {
  if (!NAME.test(p.name)) throw internal(`name ${p.name} is invalid`);
  if (p.filters === "") throw internal("missing filters in preheat policy schema");
  if (p.trigger === "") throw internal("missing trigger settings in preheat policy schema");
  let filters: unknown;
  let trigger: unknown;
  try {
    filters = JSON.parse(p.filters);
    trigger = JSON.parse(p.trigger);
  } catch (e) {
    throw internal((e as Error).message);
  }
  if (filters !== null && !Array.isArray(filters)) throw internal("json: cannot unmarshal into filters");
  const problems: string[] = [];
  for (const f of (filters as Array<{ type?: unknown; value?: unknown }> | null) ?? []) {
    switch (f?.type) {
      case "repository":
      case "tag":
        if (typeof f.value !== "string") problems.push("filters the type of filter value isn't string");
        break;
      case "vulnerability":
        if (typeof f.value !== "number" && !(typeof f.value === "string" && /^-?\d+$/.test(f.value)))
          problems.push("filters the type of filter value isn't string");
        break;
      case "signature":
        if (typeof f.value !== "boolean")
          problems.push("filers the type of signature filter value isn't bool");
        break;
      case "label":
        if (!Array.isArray(f.value) || f.value.some((l) => typeof l !== "string"))
          problems.push("filters the type of label filter value isn't string slice");
        break;
      default:
        problems.push("filters invalid filter type");
    }
  }
  const t = (trigger ?? {}) as { type?: unknown; trigger_setting?: { cron?: unknown } };
  const cron = typeof t.trigger_setting?.cron === "string" ? t.trigger_setting.cron : "";
  switch (t.type) {
    case "manual":
    case "event_based":
      break;
    case "scheduled":
      if (cron === "")
        problems.push("trigger the cron string cannot be empty when the trigger type is scheduled");
      else
        try {
          parseCron(cron);
        } catch {
          problems.push(`trigger invalid cron string for scheduled trigger: ${cron}`);
        }
      break;
    default:
      problems.push("trigger invalid trigger type");
  }
  if (problems.length) throw badRequest(problems.join("; "));
}

// ---------------------------------------------------------------------------------------------
// API

const InstanceBody = z
  .object({
    id: z.number().int().nullish(),
    name: z.string().nullish(),
    description: z.string().nullish(),
    vendor: z.string().nullish(),
    endpoint: z.string().nullish(),
    auth_mode: z.string().nullish(),
    auth_info: z.record(z.string(), z.string()).nullish(),
    status: z.string().nullish(),
    enabled: z.boolean().nullish(),
    default: z.boolean().nullish(),
    insecure: z.boolean().nullish(),
    setup_timestamp: z.number().int().nullish(),
  })
  .meta({ goType: "Instance" });
type InstanceBody = z.output<typeof InstanceBody>;

/** PreheatPolicy: `scope` up to 2.12, `extra_attrs` from 2.13. */
const PolicyBody = perRelease((version) =>
  z
    .object({
      id: z.number().int().nullish(),
      name: z.string().nullish(),
      description: z.string().nullish(),
      project_id: z.number().int().nullish(),
      provider_id: z.number().int().nullish(),
      provider_name: z.string().nullish(),
      filters: z.string().nullish(),
      trigger: z.string().nullish(),
      enabled: z.boolean().nullish(),
      ...(version.has("preheatExtraAttrs")
        ? { extra_attrs: z.string().nullish() }
        : { scope: z.string().nullish() }),
      creation_time: z.string().nullish(),
      update_time: z.string().nullish(),
    })
    .meta({ goType: "PreheatPolicy" }),
);
interface PolicyBody {
  id?: number | null;
  name?: string | null;
  description?: string | null;
  provider_id?: number | null;
  filters?: string | null;
  trigger?: string | null;
  enabled?: boolean | null;
  scope?: string | null;
  extra_attrs?: string | null;
}

/**
 * extra_attrs as Harbor's policy schema handles it: decoded into a map (a plain error, so 500,
 * when it is no JSON object) and encoded again with Go's sorted keys; nothing when empty.
 */
function extraAttrs(text: string): string {
  if (text === "") return "";
  let attrs: unknown;
  try {
    attrs = JSON.parse(text);
  } catch (e) {
    throw internal(`decode extra attributes: ${(e as Error).message}`);
  }
  if (attrs === null) return "";
  if (typeof attrs !== "object" || Array.isArray(attrs)) {
    throw internal(
      `decode extra attributes: json: cannot unmarshal ${Array.isArray(attrs) ? "array" : typeof attrs} into Go value of type map[string]interface {}`,
    );
  }
  return goJson(attrs as Record<string, unknown>);
}

function instanceInput(b: InstanceBody) {
  return {
    id: b.id ?? 0,
    name: b.name ?? "",
    description: b.description ?? "",
    vendor: b.vendor ?? "",
    endpoint: b.endpoint ?? "",
    auth_mode: b.auth_mode ?? "",
    auth_info: b.auth_info ?? {},
    enabled: b.enabled ?? false,
    default: b.default ?? false,
    insecure: b.insecure ?? false,
  };
}

/** An instance as reads show it: from 2.14.4 without its credential. */
function renderInstance(world: World, i: PreheatInstanceRecord) {
  if (!world.version.has("credentialsKept")) return { ...i, status: "Unknown" };
  const { auth_info: _hidden, ...shown } = i;
  return { ...shown, status: "Unknown" };
}

/**
 * From 2.14.4 an update keeps what it does not say: the stored auth_mode when it sends none, and
 * the stored auth_info when it sends none (or an empty one) and the mode is not NONE.
 */
function keptCredential(
  world: World,
  input: ReturnType<typeof instanceInput>,
): ReturnType<typeof instanceInput> {
  const old = world.preheat.instance(input.id);
  if (!old || !world.version.has("credentialsKept")) return input;
  const auth_mode = input.auth_mode || old.auth_mode;
  const keep = auth_mode !== "NONE" && Object.keys(input.auth_info).length === 0;
  return { ...input, auth_mode, auth_info: keep ? old.auth_info : input.auth_info };
}

function renderPolicy(world: World, p: PreheatPolicyRecord) {
  const { scope, extra_attrs, ...rest } = p;
  return {
    ...rest,
    provider_name: world.preheat.instance(p.provider_id)?.name ?? "",
    // 2.13 on: extra_attrs, left out when empty (omitempty); before: scope.
    ...(world.version.has("preheatExtraAttrs") ? (extra_attrs ? { extra_attrs } : {}) : { scope }),
  };
}

function existingInstance(ctx: Ctx): PreheatInstanceRecord {
  const name = ctx.params.preheat_instance_name as string;
  const rec = ctx.world.preheat.instanceByName(name);
  if (!rec) throw notFound(`instance ${name} not found`);
  return rec;
}

const instanceFields: Fields<PreheatInstanceRecord> = {
  id: (i) => i.id,
  name: (i) => i.name,
  vendor: (i) => i.vendor,
  endpoint: (i) => i.endpoint,
  enabled: (i) => i.enabled,
  default: (i) => i.default,
};

const policyFields: Fields<PreheatPolicyRecord> = {
  id: (p) => p.id,
  name: (p) => p.name,
  provider_id: (p) => p.provider_id,
  enabled: (p) => p.enabled,
};

const audit = (
  ctx: Ctx,
  resource: string,
  type: string,
  operation: "create" | "update" | "delete",
  projectId = 0,
) => auditWrite(ctx, { project_id: projectId, resource, resource_type: type, operation });

const policyParams = { project_name: "string" as const, preheat_policy_name: "string" as const };

function policyProject(ctx: Ctx, action: string) {
  return projectAccess(ctx, ctx.params.project_name as string, "preheat-policy", action);
}

function existingPolicy(ctx: Ctx, projectId: number): PreheatPolicyRecord {
  const name = ctx.params.preheat_policy_name as string;
  const rec = ctx.world.preheat.policyByName(projectId, name);
  if (!rec) throw notFound(`policy ${name} not found`);
  return rec;
}

function policyInput(b: PolicyBody, projectId: number) {
  return {
    id: b.id ?? 0,
    name: b.name ?? "",
    description: b.description ?? "",
    project_id: projectId,
    provider_id: b.provider_id ?? 0,
    filters: b.filters ?? "",
    trigger: b.trigger ?? "",
    enabled: b.enabled ?? false,
    scope: b.scope ?? "",
    extra_attrs: extraAttrs(b.extra_attrs ?? ""),
  };
}

const routes: RouteSpec[] = [
  {
    op: "ListProviders",
    method: "GET",
    path: "/p2p/preheat/providers",
    handle(ctx) {
      requireSystem(ctx, "preheat-instance", "list");
      return ok(PREHEAT_PROVIDERS);
    },
  },
  {
    op: "ListInstances",
    method: "GET",
    path: "/p2p/preheat/instances",
    paged: true,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "preheat-instance", "list");
      return listReply(ctx, ctx.world.preheat.instances(), instanceFields, {
        defaultOrder: (a, b) => a.id - b.id,
        render: (i) => renderInstance(ctx.world, i),
      });
    },
  },
  {
    op: "CreateInstance",
    method: "POST",
    path: "/p2p/preheat/instances",
    body: { name: "instance", schema: InstanceBody },
    handle(ctx) {
      requireSystem(ctx, "preheat-instance", "create");
      const { id: _id, ...input } = instanceInput(ctx.body as InstanceBody);
      const rec = ctx.world.preheat.createInstance(input);
      audit(ctx, rec.name, "preheat_instance", "create");
      return createdAt(ctx, rec.name);
    },
  },
  {
    op: "PingInstances",
    method: "POST",
    path: "/p2p/preheat/instances/ping",
    body: { name: "instance", schema: InstanceBody },
    handle(ctx) {
      requireSystem(ctx, "preheat-instance", "read");
      const b = ctx.body as InstanceBody;
      if ((b.id ?? 0) > 0) {
        const rec = ctx.world.preheat.instance(b.id ?? 0);
        if (!rec) return { status: 404 };
        ctx.world.preheat.checkHealth(rec);
        return ok();
      }
      if (!b.endpoint) return { status: 400 };
      const input = instanceInput(b);
      if (!NAME.test(input.name)) throw internal(`name ${input.name} is invalid`);
      ctx.world.preheat.checkHealth(input);
      return ok();
    },
  },
  {
    op: "GetInstance",
    method: "GET",
    path: "/p2p/preheat/instances/{preheat_instance_name}",
    handle(ctx) {
      requireSystem(ctx, "preheat-instance", "read");
      return ok(renderInstance(ctx.world, existingInstance(ctx)));
    },
  },
  {
    op: "UpdateInstance",
    method: "PUT",
    path: "/p2p/preheat/instances/{preheat_instance_name}",
    body: { name: "instance", schema: InstanceBody },
    handle(ctx) {
      requireSystem(ctx, "preheat-instance", "update");
      const input = keptCredential(ctx.world, instanceInput(ctx.body as InstanceBody));
      ctx.world.preheat.updateInstance(input);
      audit(ctx, input.name, "preheat_instance", "update");
      return ok();
    },
  },
  {
    op: "DeleteInstance",
    method: "DELETE",
    path: "/p2p/preheat/instances/{preheat_instance_name}",
    handle(ctx) {
      requireSystem(ctx, "preheat-instance", "delete");
      const rec = existingInstance(ctx);
      ctx.world.preheat.deleteInstance(rec);
      audit(ctx, rec.name, "preheat_instance", "delete");
      return ok();
    },
  },
  {
    op: "ListPolicies",
    method: "GET",
    path: "/projects/{project_name}/preheat/policies",
    params: { project_name: "string" },
    paged: true,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      const project = policyProject(ctx, "list");
      return listReply(ctx, ctx.world.preheat.policies(project.project_id), policyFields, {
        defaultOrder: (a, b) => a.update_time.localeCompare(b.update_time) || b.id - a.id,
        render: (p) => renderPolicy(ctx.world, p),
      });
    },
  },
  {
    op: "CreatePolicy",
    method: "POST",
    path: "/projects/{project_name}/preheat/policies",
    params: { project_name: "string" },
    body: { name: "policy", schema: PolicyBody },
    handle(ctx) {
      const project = policyProject(ctx, "create");
      const { id: _id, ...input } = policyInput(ctx.body as PolicyBody, project.project_id);
      const rec = ctx.world.preheat.createPolicy(input);
      audit(ctx, rec.name, "preheat_policy", "create", project.project_id);
      return createdAt(ctx, rec.name);
    },
  },
  {
    op: "GetPolicy",
    method: "GET",
    path: "/projects/{project_name}/preheat/policies/{preheat_policy_name}",
    params: policyParams,
    handle(ctx) {
      const project = policyProject(ctx, "read");
      return ok(renderPolicy(ctx.world, existingPolicy(ctx, project.project_id)));
    },
  },
  {
    op: "UpdatePolicy",
    method: "PUT",
    path: "/projects/{project_name}/preheat/policies/{preheat_policy_name}",
    params: policyParams,
    body: { name: "policy", schema: PolicyBody },
    handle(ctx) {
      const project = policyProject(ctx, "update");
      const input = policyInput(ctx.body as PolicyBody, project.project_id);
      ctx.world.preheat.updatePolicy(input);
      audit(ctx, input.name, "preheat_policy", "update", project.project_id);
      return ok();
    },
  },
  {
    op: "DeletePolicy",
    method: "DELETE",
    path: "/projects/{project_name}/preheat/policies/{preheat_policy_name}",
    params: policyParams,
    handle(ctx) {
      const project = policyProject(ctx, "delete");
      const rec = existingPolicy(ctx, project.project_id);
      ctx.world.preheat.deletePolicy(rec);
      audit(ctx, rec.name, "preheat_policy", "delete", project.project_id);
      return ok();
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /**
     * Puts a healthy P2P provider at `endpoint` in the world (the emulator never dials out), whose
     * health endpoint accepts any credential unless `credential` names the one it takes.
     */
    addProvider(endpoint: string, credential?: { mode: string; info: Record<string, string> }): void {
      world.preheat.setService(endpoint, { healthy: true, ...(credential ? { credential } : {}) });
    },
    /** Makes the provider at `endpoint` healthy or not. */
    setProviderHealthy(endpoint: string, healthy: boolean): void {
      world.preheat.setService(endpoint, { healthy });
    },
    /** Every instance as stored, credentials included (what 2.12 – 2.14.3 reads show). */
    instances: () => world.preheat.instances().map((i) => ({ ...i, status: "Unknown" })),
    /** Every policy as the API renders it. */
    policies: () => world.preheat.policies().map((p) => renderPolicy(world, p)),
  }),
});
