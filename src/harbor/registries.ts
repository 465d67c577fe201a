// Remote registries (/registries) and the registry provider types (/replication/adapters…).
// Registry id 0 is Harbor's built-in "Local" registry. Harbor health-checks a registry on create,
// update and ping, and answers every read with the secret masked as "*****".
import { z } from "zod";
import { nullAsAbsent } from "./common.ts";
import { RegistryCredentialType } from "./model/enums.ts";
import { type ListFilter, listQuery } from "./query.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

export const RegistryCredential = z.object({
  /** "basic" or "oauth" ("secret" for the Local registry). */
  type: z.string().optional(),
  access_key: z.string().optional(),
  /** Always "*****" in responses when a secret is stored. */
  access_secret: z.string().optional(),
});

export const Registry = z.object({
  /** Always present; 0 is the Local registry. */
  id: z.number().int(),
  url: z.string().optional(),
  name: z.string().optional(),
  credential: nullAsAbsent(RegistryCredential),
  type: z.string().optional(),
  insecure: z.boolean().optional(),
  description: z.string().optional(),
  /** Harbor 2.15+: the PEM CA certificate trusted for the registry; "" or absent when none. */
  ca_certificate: z.string().nullish(),
  /** "healthy" or "unhealthy". */
  status: z.string().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
});
export type Registry = z.output<typeof Registry>;

export const RegistryCreate = z.object({
  name: z.string(),
  /** One of the provider types (listProviderTypes), e.g. "harbor", "docker-hub". */
  type: z.string(),
  url: z.string(),
  description: z.string().optional(),
  insecure: z.boolean().optional(),
  /** Harbor 2.15+ (older releases drop it). */
  ca_certificate: z.string().optional(),
  credential: z
    .object({
      type: RegistryCredentialType.optional(),
      access_key: z.string().optional(),
      access_secret: z.string().optional(),
    })
    .optional(),
});
export type RegistryCreate = z.input<typeof RegistryCreate>;

/** A partial update: only the fields given change. */
export const RegistryUpdate = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  url: z.string().optional(),
  credential_type: RegistryCredentialType.optional(),
  access_key: z.string().optional(),
  access_secret: z.string().optional(),
  insecure: z.boolean().optional(),
  /** Harbor 2.15+ (older releases drop it); "" removes it. */
  ca_certificate: z.string().optional(),
});
export type RegistryUpdate = z.input<typeof RegistryUpdate>;

/** A stored registry by `id` and/or `type` + `url`; fields given override the stored ones. */
export const RegistryPing = RegistryUpdate.omit({ name: true, description: true }).extend({
  id: z.number().int().optional(),
  type: z.string().optional(),
});
export type RegistryPing = z.input<typeof RegistryPing>;

export const RegistryInfo = z.object({
  type: z.string().optional(),
  description: z.string().optional(),
  supported_resource_filters: nullAsAbsent(
    z.array(
      z.object({
        type: z.string().optional(),
        style: z.string().optional(),
        /** null for name and tag filters. */
        values: nullAsAbsent(z.array(z.string())),
      }),
    ),
  ),
  /** "manual", "scheduled", and "event_based" for the Local registry only. */
  supported_triggers: nullAsAbsent(z.array(z.string())),
  supported_copy_by_chunk: z.boolean().nullish(),
});
export type RegistryInfo = z.output<typeof RegistryInfo>;

export const RegistryProviderInfo = z.object({
  endpoint_pattern: nullAsAbsent(
    z.object({
      endpoint_type: z.string().optional(),
      /** null where the pattern lists none (quay). */
      endpoints: nullAsAbsent(
        z.array(z.object({ key: z.string().optional(), value: z.string().optional() })),
      ),
    }),
  ),
  credential_pattern: nullAsAbsent(
    z.object({
      access_key_type: z.string().optional(),
      access_key_data: z.string().optional(),
      access_secret_type: z.string().optional(),
      access_secret_data: z.string().optional(),
    }),
  ),
});
export type RegistryProviderInfo = z.output<typeof RegistryProviderInfo>;

export interface RegistryListParams extends ListFilter {
  /** Fuzzy match on the name. */
  name?: string;
}

export class RegistriesApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** listRegistries: every page. The Local registry is not listed. */
  list(params: RegistryListParams = {}, opts?: CallOptions): Promise<Registry[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listRegistries",
        method: "GET",
        path: "/registries",
        query: { name: params.name, ...listQuery(params) },
      },
      Registry,
    );
  }

  /** createRegistry: returns the new registry's id. Harbor refuses an unhealthy remote (400). */
  async create(registry: RegistryCreate, opts?: CallOptions): Promise<number> {
    const body = RegistryCreate.parse(registry);
    return Number(
      await this.#t.created({
        ...opts,
        operation: "createRegistry",
        method: "POST",
        path: "/registries",
        body,
      }),
    );
  }

  /** getRegistry */
  get(id: number, opts?: CallOptions): Promise<Registry> {
    return this.#t.json(
      { ...opts, operation: "getRegistry", method: "GET", path: path`/registries/${id}` },
      Registry,
    );
  }

  /** updateRegistry: a partial update. */
  update(id: number, change: RegistryUpdate, opts?: CallOptions): Promise<void> {
    const body = RegistryUpdate.parse(change);
    return this.#t.noContent({
      ...opts,
      operation: "updateRegistry",
      method: "PUT",
      path: path`/registries/${id}`,
      body,
    });
  }

  /** deleteRegistry: 412 while a replication policy or a proxy-cache project uses it. */
  delete(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "deleteRegistry",
      method: "DELETE",
      path: path`/registries/${id}`,
    });
  }

  /** getRegistryInfo: the filters and triggers the registry's adapter supports. */
  getInfo(id: number, opts?: CallOptions): Promise<RegistryInfo> {
    return this.#t.json(
      { ...opts, operation: "getRegistryInfo", method: "GET", path: path`/registries/${id}/info` },
      RegistryInfo,
    );
  }

  /** pingRegistry: resolves when the registry is healthy; 400 "the registry is unhealthy" otherwise. */
  ping(target: RegistryPing, opts?: CallOptions): Promise<void> {
    const body = RegistryPing.parse(target);
    return this.#t.noContent({
      ...opts,
      operation: "pingRegistry",
      method: "POST",
      path: "/registries/ping",
      body,
      // A ping changes nothing; retrying it is safe.
      idempotent: true,
    });
  }

  /** listRegistryProviderTypes: the registry types this Harbor supports, sorted. */
  listProviderTypes(opts?: CallOptions): Promise<string[]> {
    return this.#t.json(
      { ...opts, operation: "listRegistryProviderTypes", method: "GET", path: "/replication/adapters" },
      z.array(z.string()),
    );
  }

  /** listRegistryProviderInfos: endpoint and credential patterns, by type (only types that publish one). */
  listProviderInfos(opts?: CallOptions): Promise<Record<string, RegistryProviderInfo>> {
    return this.#t.json(
      { ...opts, operation: "listRegistryProviderInfos", method: "GET", path: "/replication/adapterinfos" },
      z.record(z.string(), RegistryProviderInfo),
    );
  }
}
