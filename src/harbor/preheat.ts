// P2P preheat (/p2p/preheat/..., /projects/{name}/preheat/policies): provider instances (a Dragonfly
// or Kraken service Harbor pushes images to before they are pulled), and per-project policies that
// say which artifacts to preheat through which instance, and when. Instances need the system
// permission preheat-instance; policies the project's preheat-policy permission.
import { z } from "zod";
import { type ListFilter, listQuery } from "./query.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

/** A provider driver Harbor has (GET /p2p/preheat/providers): id "dragonfly" or "kraken". */
export const PreheatProvider = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  icon: z.string().optional(),
  version: z.string().optional(),
  source: z.string().optional(),
  maintainers: z.array(z.string()).nullish(),
});
export type PreheatProvider = z.output<typeof PreheatProvider>;

/**
 * A provider instance. auth_info holds the credential as stored: for BASIC {username, password},
 * for OAUTH {token}; {} for NONE. Harbor returns it on every read up to 2.14.3 (and 2.15.0); from
 * 2.14.4 (2.15.1) reads leave it out, and an update without one keeps the stored credential.
 */
export const PreheatInstance = z.object({
  id: z.number().int().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  /** dragonfly or kraken; never changes once created. */
  vendor: z.string().optional(),
  endpoint: z.string().optional(),
  /** NONE, BASIC or OAUTH (Harbor also knows CUSTOM). */
  auth_mode: z.string().optional(),
  auth_info: z.record(z.string(), z.string()).nullish(),
  /** Harbor always answers "Unknown" here: health is what ping says. */
  status: z.string().optional(),
  enabled: z.boolean().optional(),
  default: z.boolean().optional(),
  insecure: z.boolean().optional(),
  setup_timestamp: z.number().int().optional(),
});
export type PreheatInstance = z.output<typeof PreheatInstance>;

export const PreheatInstanceReq = z.object({
  /** Required on update: Harbor finds the instance to change by the body's id, not the path. */
  id: z.number().int().optional(),
  name: z.string(),
  description: z.string().optional(),
  vendor: z.string(),
  endpoint: z.string(),
  auth_mode: z.string(),
  auth_info: z.record(z.string(), z.string()).optional(),
  enabled: z.boolean(),
  default: z.boolean(),
  insecure: z.boolean(),
});
export type PreheatInstanceReq = z.input<typeof PreheatInstanceReq>;

/**
 * A preheat policy. filters and trigger are JSON text: filters a list of {type, value} (types
 * repository, tag, label, vulnerability, signature), trigger {type: manual | scheduled |
 * event_based, trigger_setting: {cron}}.
 */
export const PreheatPolicy = z.object({
  id: z.number().int().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  project_id: z.number().int().optional(),
  provider_id: z.number().int().optional(),
  provider_name: z.string().optional(),
  filters: z.string().optional(),
  trigger: z.string().optional(),
  enabled: z.boolean().optional(),
  /** Up to 2.12: single_peer (default) or all_peers, which Dragonfly peers the image goes to. */
  scope: z.string().optional(),
  /**
   * From 2.13 (where `scope` is gone): a JSON object in a string, e.g. {"scope":"all_peers"} with
   * scope single_seed_peer, all_seed_peers or all_peers; Harbor encodes it again (sorted keys).
   */
  extra_attrs: z.string().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type PreheatPolicy = z.output<typeof PreheatPolicy>;

export const PreheatPolicyReq = z.object({
  /** Required on update: Harbor updates the policy with the body's id. */
  id: z.number().int().optional(),
  name: z.string(),
  description: z.string().optional(),
  provider_id: z.number().int(),
  filters: z.string(),
  trigger: z.string(),
  enabled: z.boolean(),
  /** Up to 2.12 (later releases drop it). */
  scope: z.string().optional(),
  /** From 2.13 (earlier releases drop it): a JSON object in a string; not JSON is a 500. */
  extra_attrs: z.string().optional(),
});
export type PreheatPolicyReq = z.input<typeof PreheatPolicyReq>;

export class PreheatApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** ListProviders: the drivers this Harbor has. */
  listProviders(opts?: CallOptions): Promise<PreheatProvider[]> {
    return this.#t.json(
      { ...opts, operation: "ListProviders", method: "GET", path: "/p2p/preheat/providers" },
      PreheatProvider.array(),
    );
  }

  /** ListInstances: every instance. */
  listInstances(filter?: ListFilter, opts?: CallOptions): Promise<PreheatInstance[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "ListInstances",
        method: "GET",
        path: "/p2p/preheat/instances",
        query: listQuery(filter),
      },
      PreheatInstance,
    );
  }

  /** GetInstance, by name. */
  getInstance(name: string, opts?: CallOptions): Promise<PreheatInstance> {
    return this.#t.json(
      { ...opts, operation: "GetInstance", method: "GET", path: path`/p2p/preheat/instances/${name}` },
      PreheatInstance,
    );
  }

  /** CreateInstance: 409 when an instance has the name or the endpoint already. */
  async createInstance(instance: PreheatInstanceReq, opts?: CallOptions): Promise<void> {
    const body = PreheatInstanceReq.parse(instance);
    await this.#t.created({
      ...opts,
      operation: "CreateInstance",
      method: "POST",
      path: "/p2p/preheat/instances",
      body,
    });
  }

  /**
   * UpdateInstance: replaces every setting of the instance the body's id names. Harbor refuses a
   * vendor change (500), and disabling an instance a policy uses (412).
   */
  updateInstance(name: string, instance: PreheatInstanceReq, opts?: CallOptions): Promise<void> {
    const body = PreheatInstanceReq.parse(instance);
    return this.#t.noContent({
      ...opts,
      operation: "UpdateInstance",
      method: "PUT",
      path: path`/p2p/preheat/instances/${name}`,
      body,
    });
  }

  /** DeleteInstance: 412 while a preheat policy uses it. */
  deleteInstance(name: string, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "DeleteInstance",
      method: "DELETE",
      path: path`/p2p/preheat/instances/${name}`,
    });
  }

  /**
   * PingInstances: Harbor asks the provider's health endpoint (Dragonfly: <endpoint>/_ping) with the
   * instance's credential, by id or by endpoint; an unreachable provider is a 500.
   */
  ping(instance: Partial<PreheatInstanceReq>, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "PingInstances",
      method: "POST",
      path: "/p2p/preheat/instances/ping",
      body: instance,
      idempotent: true,
    });
  }

  /** ListPolicies of a project. */
  listPolicies(project: string, filter?: ListFilter, opts?: CallOptions): Promise<PreheatPolicy[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "ListPolicies",
        method: "GET",
        path: path`/projects/${project}/preheat/policies`,
        query: listQuery(filter),
      },
      PreheatPolicy,
    );
  }

  /** GetPolicy, by project and policy name. */
  getPolicy(project: string, name: string, opts?: CallOptions): Promise<PreheatPolicy> {
    return this.#t.json(
      {
        ...opts,
        operation: "GetPolicy",
        method: "GET",
        path: path`/projects/${project}/preheat/policies/${name}`,
      },
      PreheatPolicy,
    );
  }

  /** CreatePolicy: 409 when the project has a policy of that name. */
  async createPolicy(project: string, policy: PreheatPolicyReq, opts?: CallOptions): Promise<void> {
    const body = PreheatPolicyReq.parse(policy);
    await this.#t.created({
      ...opts,
      operation: "CreatePolicy",
      method: "POST",
      path: path`/projects/${project}/preheat/policies`,
      body,
    });
  }

  /** UpdatePolicy: replaces every field of the policy the body's id names. */
  updatePolicy(project: string, name: string, policy: PreheatPolicyReq, opts?: CallOptions): Promise<void> {
    const body = PreheatPolicyReq.parse(policy);
    return this.#t.noContent({
      ...opts,
      operation: "UpdatePolicy",
      method: "PUT",
      path: path`/projects/${project}/preheat/policies/${name}`,
      body,
    });
  }

  /** DeletePolicy: 412 while one of its executions runs. */
  deletePolicy(project: string, name: string, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "DeletePolicy",
      method: "DELETE",
      path: path`/projects/${project}/preheat/policies/${name}`,
    });
  }
}
