// Remote registries (replication endpoints), their simulated health and the provider types Harbor
// knows. Id 0 is the built-in "Local" registry: never stored, always resolvable. A remote URL is
// healthy unless the control API marked it unhealthy; Harbor's regular health check (every five
// minutes of world time) refreshes the stored `status` of every registry from that.
//
// By release: from 2.14 the adapter lists (/replication/adapters, /replication/adapterinfos) show
// only the types of the deployment's REPLICATION_ADAPTER_WHITELIST (world settings; nothing when it
// is unset), while creating a registry of any known type still works; from 2.15 a registry has a
// `ca_certificate` (create, update, ping; stored and shown as sent, not checked).
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireSystem } from "../auth.ts";
import { badRequest, conflict, internal, notFound, precondition } from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { type Fields, listReply } from "../listing.ts";
import { createdAt, ok, perRelease, type RouteSpec } from "../router.ts";
import type { HarborVersion } from "../version.ts";
import { type World, ZERO_TIME } from "../world.ts";
import { defineArea } from "./area.ts";

export interface RegistryCredential {
  type: string;
  access_key: string;
  access_secret: string;
}

export interface RegistryRecord {
  id: number;
  name: string;
  type: string;
  url: string;
  description: string;
  insecure: boolean;
  /** 2.15 on: the CA certificate (PEM) to trust for the registry; "" when none. */
  ca_certificate: string;
  /** Stored only when an access key is given (as Harbor does); its type defaults to basic. */
  credential?: RegistryCredential;
  status: string;
  creation_time: string;
  update_time: string;
}

/** The registry types (adapters) of Harbor v2.12. */
export const REGISTRY_TYPES = [
  "harbor",
  "docker-hub",
  "docker-registry",
  "huawei-SWR",
  "google-gcr",
  "aws-ecr",
  "azure-acr",
  "ali-acr",
  "jfrog-artifactory",
  "quay",
  "gitlab",
  "dtr",
  "tencent-tcr",
  "github-ghcr",
  "volcengine-cr",
] as const;

/** What Harbor's default install sets as REPLICATION_ADAPTER_WHITELIST: every type but these three. */
export const DEFAULT_INSTALL_ADAPTER_WHITELIST: readonly string[] = REGISTRY_TYPES.filter(
  (t) => !["dtr", "gitlab", "quay"].includes(t),
);

/** The types the adapter lists show: from 2.14 only the whitelisted ones. */
function listedTypes(world: World): string[] {
  if (!world.version.has("adapterWhitelist")) return [...REGISTRY_TYPES];
  const whitelist = world.settings.replicationAdapterWhitelist ?? [];
  return REGISTRY_TYPES.filter((t) => whitelist.includes(t));
}

const LOCAL_URL = "http://core:8080";
const HEALTH_CHECK_INTERVAL_MS = 5 * 60_000;

/**
 * Harbor's URL check for registries and scanners: spaces and trailing "/" trimmed, http:// added
 * when there is no scheme, only scheme, host and path kept (the query is dropped).
 */
export function normalizeUrl(raw: string): string {
  const s = raw.replace(/^ +| +$/g, "").replace(/\/+$/, "");
  if (s === "") throw badRequest("empty string");
  const withScheme = s.includes("://") ? s : `http://${s}`;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)/.exec(withScheme);
  if (!m) throw badRequest(`invalid URL: parse "${withScheme}": missing protocol scheme`);
  const scheme = (m[1] as string).toLowerCase();
  if (scheme !== "http" && scheme !== "https") throw badRequest(`invalid HTTP scheme: ${scheme}`);
  return `${scheme}://${m[2]}${m[3]}`;
}

export class RegistryStore {
  readonly #world: World;
  readonly #registries = new Map<number, RegistryRecord>();
  /** Normalised URLs the simulated world has marked unhealthy. */
  readonly #unhealthy = new Set<string>();
  #lastHealthCheck: number;

  constructor(world: World) {
    this.#world = world;
    this.#lastHealthCheck = world.now();
    world.clock.onTick(() => {
      if (world.now() - this.#lastHealthCheck >= HEALTH_CHECK_INTERVAL_MS) this.checkHealth();
    });
  }

  get world(): World {
    return this.#world;
  }

  /** A stored (remote) registry; the Local registry (id 0) is not stored, see `resolve`. */
  get(id: number): RegistryRecord | undefined {
    return this.#registries.get(id);
  }

  /** A registry as Harbor's registry manager sees it: id 0 is Local; 404 when missing. */
  resolve(id: number): RegistryRecord {
    if (id === 0) return localRegistry();
    const r = this.#registries.get(id);
    if (!r) throw notFound(`registry ${id} not found`);
    return r;
  }

  all(): RegistryRecord[] {
    return [...this.#registries.values()];
  }

  isHealthy(url: string): boolean {
    return !this.#unhealthy.has(url);
  }

  /** Simulates a remote registry going down or coming back. */
  setHealth(url: string, healthy: boolean): void {
    const normalized = normalizeUrl(url);
    if (healthy) this.#unhealthy.delete(normalized);
    else this.#unhealthy.add(normalized);
  }

  /** Harbor's regular health check: refreshes every stored registry's status. */
  checkHealth(): void {
    this.#lastHealthCheck = this.#world.now();
    for (const r of this.#registries.values()) r.status = this.isHealthy(r.url) ? "healthy" : "unhealthy";
  }

  /** The adapter's health check: an unknown type has no adapter factory (a plain error, so 500). */
  ping(r: { type: string; url: string }): void {
    if (!(REGISTRY_TYPES as readonly string[]).includes(r.type)) {
      throw internal(`adapter factory for ${r.type} not found`);
    }
    if (!this.isHealthy(r.url)) throw badRequest("the registry is unhealthy");
  }

  create(input: Omit<RegistryRecord, "id" | "status" | "creation_time" | "update_time">): RegistryRecord {
    const r = this.#validate(input);
    this.#checkUnique(r.name, 0);
    const now = this.#world.nowText();
    const rec: RegistryRecord = {
      ...r,
      id: this.#world.ids.next("registry"),
      status: "healthy",
      creation_time: now,
      update_time: now,
    };
    this.#registries.set(rec.id, rec);
    return rec;
  }

  /** Replaces the registry's fields with `next` (the handler merged the partial update into it). */
  update(id: number, next: Omit<RegistryRecord, "id" | "status" | "creation_time" | "update_time">): void {
    const r = this.#validate(next);
    const rec = this.#registries.get(id);
    if (!rec) throw notFound(`registry ${id} not found`);
    this.#checkUnique(r.name, id);
    // Assigned explicitly: an update without an access key drops the stored credential.
    Object.assign(rec, r, {
      credential: r.credential,
      status: "healthy",
      update_time: this.#world.nowText(),
    });
  }

  /** Refused while a replication policy (either side) or a proxy-cache project uses the registry. */
  delete(id: number): void {
    if (this.#world.replication.referencesRegistry(id)) {
      throw precondition(`the registry ${id} is referenced by replication policies, cannot delete it`);
    }
    if (this.#world.projects.all().some((p) => p.registry_id === id)) {
      throw precondition(`the registry ${id} is referenced by proxy cache project, cannot delete it`);
    }
    if (!this.#registries.delete(id)) throw notFound(`registry ${id} not found`);
  }

  /**
   * What the registry's adapter declares it supports (GET /registries/{id}/info): name and tag
   * filters (values null), a Harbor's label filter (the Local registry's values are the global
   * labels' names), and the resource filter Harbor appends last ("image", plus "artifact" for a
   * Harbor). Only a Harbor copies by chunk.
   */
  info(id: number): RegistryInfo {
    const r = this.resolve(id);
    if (!(REGISTRY_TYPES as readonly string[]).includes(r.type)) {
      throw internal(`adapter factory for ${r.type} not found`);
    }
    const harbor = r.type === "harbor";
    const filters: RegistryInfo["supported_resource_filters"] = [
      { type: "name", style: "input", values: null },
      { type: "tag", style: "input", values: null },
    ];
    if (harbor) {
      // A remote Harbor's labels are not known here; the Local registry's are this Harbor's.
      const names =
        id === 0
          ? this.#world.labels
              .all()
              .filter((l) => l.scope === "g")
              .map((l) => l.name)
          : [];
      filters.push({ type: "label", style: "list", values: names.length ? names : null });
    }
    filters.push({ type: "resource", style: "radio", values: harbor ? ["image", "artifact"] : ["image"] });
    // Only the local Harbor supports the event-based trigger.
    const triggers = ["manual", "scheduled", ...(id === 0 ? ["event_based"] : [])];
    return {
      type: r.type,
      supported_resource_filters: filters,
      supported_triggers: triggers,
      ...(harbor ? { supported_copy_by_chunk: true } : {}),
    };
  }

  #validate<T extends { name: string; url: string; type: string }>(r: T): T {
    if (r.name === "") throw badRequest("name cannot be empty");
    if (r.name.length > 64) throw badRequest("the max length of name is 64");
    const url = normalizeUrl(r.url);
    // The health check runs before the uniqueness check, so a dead URL is a 400 even for a duplicate.
    this.ping({ type: r.type, url });
    return { ...r, url };
  }

  #checkUnique(name: string, exceptId: number): void {
    for (const r of this.#registries.values()) {
      if (r.name === name && r.id !== exceptId) throw conflict(`registry ${name} already exists`);
    }
  }
}

export interface RegistryInfo {
  type: string;
  description?: string;
  /** `values` is null where the adapter lists none (go-swagger sends a nil slice as null). */
  supported_resource_filters: Array<{ type: string; style: string; values: string[] | null }>;
  supported_triggers: string[];
  supported_copy_by_chunk?: boolean;
}

/** The built-in registry that stands for this Harbor in replication policies. */
function localRegistry(): RegistryRecord {
  return {
    id: 0,
    name: "Local",
    type: "harbor",
    url: LOCAL_URL,
    description: "",
    insecure: true,
    ca_certificate: "",
    credential: { type: "secret", access_key: "", access_secret: "internal-jobservice-secret" },
    status: "healthy",
    creation_time: ZERO_TIME,
    update_time: ZERO_TIME,
  };
}

/**
 * The Registry model: id always emitted, the secret masked, the credential object always present;
 * ca_certificate on releases that have it.
 */
export function renderRegistry(r: RegistryRecord, world: World): Record<string, unknown> {
  const credential = omitEmpty({
    type: r.credential?.type ?? "",
    access_key: r.credential?.access_key ?? "",
    access_secret: r.credential?.access_secret ? "*****" : "",
  });
  return omitEmpty(
    {
      id: r.id,
      url: r.url,
      name: r.name,
      credential,
      type: r.type,
      insecure: r.insecure,
      description: r.description,
      ca_certificate: world.version.has("registryCaCertificate") ? r.ca_certificate : undefined,
      status: r.status,
      creation_time: r.creation_time,
      update_time: r.update_time,
    },
    ["id", "creation_time", "update_time"],
  );
}

// Provider infos (GET /replication/adapterinfos): the 8 adapters of 2.12 that publish a pattern, as
// their factories declare them; an endpoint list the pattern does not fill is null.
const list = (keys: string[], url: (k: string) => string) => keys.map((key) => ({ key, value: url(key) }));
/** ali-acr: 23 regions, five endpoints each (public, VPC, internal, EE VPC, EE). */
const ALI_REGIONS = [
  "cn-qingdao",
  "cn-beijing",
  "cn-zhangjiakou",
  "cn-huhehaote",
  "cn-wulanchabu",
  "cn-hangzhou",
  "cn-shanghai",
  "cn-shenzhen",
  "cn-heyuan",
  "cn-guangzhou",
  "cn-chengdu",
  "cn-hongkong",
  "ap-southeast-1",
  "ap-southeast-2",
  "ap-southeast-3",
  "ap-southeast-5",
  "ap-south-1",
  "ap-northeast-1",
  "us-west-1",
  "us-east-1",
  "eu-central-1",
  "eu-west-1",
  "me-east-1",
];
const AWS_REGIONS = [
  "us-east-2",
  "us-east-1",
  "us-west-1",
  "us-west-2",
  "af-south-1",
  "ap-east-1",
  "ap-south-1",
  "ap-northeast-3",
  "ap-northeast-2",
  "ap-southeast-1",
  "ap-southeast-2",
  "ap-northeast-1",
  "ca-central-1",
  "cn-north-1",
  "cn-northwest-1",
  "eu-central-1",
  "eu-west-1",
  "eu-west-2",
  "eu-south-1",
  "eu-west-3",
  "eu-north-1",
  "me-south-1",
  "sa-east-1",
];
const PROVIDER_INFOS: Record<string, unknown> = {
  "ali-acr": {
    endpoint_pattern: {
      endpoint_type: "EndpointPatternTypeList",
      endpoints: ALI_REGIONS.flatMap((r) => [
        { key: r, value: `https://registry.${r}.aliyuncs.com` },
        { key: `${r}-vpc`, value: `https://registry-vpc.${r}.aliyuncs.com` },
        { key: `${r}-internal`, value: `https://registry-internal.${r}.aliyuncs.com` },
        { key: `${r}-ee-vpc`, value: `https://instanceName-registry-vpc.${r}.cr.aliyuncs.com` },
        { key: `${r}-ee`, value: `https://instanceName-registry.${r}.cr.aliyuncs.com` },
      ]),
    },
  },
  "aws-ecr": {
    endpoint_pattern: {
      endpoint_type: "EndpointPatternTypeList",
      endpoints: list(AWS_REGIONS, (r) => `https://api.ecr.${r}.amazonaws.com`),
    },
  },
  "docker-hub": {
    endpoint_pattern: {
      endpoint_type: "EndpointPatternTypeFix",
      endpoints: [{ key: "hub.docker.com", value: "https://hub.docker.com" }],
    },
  },
  "github-ghcr": {
    endpoint_pattern: {
      endpoint_type: "EndpointPatternTypeFix",
      endpoints: [{ key: "ghcr.io", value: "https://ghcr.io" }],
    },
  },
  "google-gcr": {
    endpoint_pattern: {
      endpoint_type: "EndpointPatternTypeList",
      endpoints: list(["gcr.io", "us.gcr.io", "eu.gcr.io", "asia.gcr.io"], (h) => `https://${h}`),
    },
    credential_pattern: {
      access_key_type: "AccessKeyTypeFix",
      access_key_data: "_json_key",
      access_secret_type: "AccessSecretTypeFile",
      access_secret_data: "No Change",
    },
  },
  quay: {
    // The default endpoint pattern: a type and no endpoint list (null).
    endpoint_pattern: { endpoint_type: "EndpointPatternTypeStandard", endpoints: null },
    credential_pattern: {
      access_key_type: "AccessKeyTypeFix",
      access_key_data: "json_file",
      access_secret_type: "AccessSecretTypeFile",
    },
  },
  // These two publish an empty pattern: listed, with nothing in it.
  "tencent-tcr": {},
  "volcengine-cr": {},
};

// Swagger models (types only; business rules are the store's).
const Credential = z
  .object({
    type: z.string().nullish(),
    access_key: z.string().nullish(),
    access_secret: z.string().nullish(),
  })
  .meta({ goType: "RegistryCredential" });
/** 2.15's ca_certificate, in the models of the releases that have it (go-swagger drops it before). */
const caCertificate = (version: HarborVersion) =>
  version.has("registryCaCertificate") ? { ca_certificate: z.string().nullish() } : {};
const RegistryBody = perRelease((version) =>
  z
    .object({
      id: z.number().int().nullish(),
      url: z.string().nullish(),
      name: z.string().nullish(),
      credential: Credential.nullish(),
      type: z.string().nullish(),
      insecure: z.boolean().nullish(),
      description: z.string().nullish(),
      status: z.string().nullish(),
      ...caCertificate(version),
    })
    .meta({ goType: "Registry" }),
);
type RegistryBody = {
  id?: number | null;
  url?: string | null;
  name?: string | null;
  credential?: { type?: string | null; access_key?: string | null; access_secret?: string | null } | null;
  type?: string | null;
  insecure?: boolean | null;
  description?: string | null;
  ca_certificate?: string | null;
};
const updateFields = {
  name: z.string().nullish(),
  description: z.string().nullish(),
  url: z.string().nullish(),
  credential_type: z.string().nullish(),
  access_key: z.string().nullish(),
  access_secret: z.string().nullish(),
  insecure: z.boolean().nullish(),
};
const RegistryUpdateBody = perRelease((version) =>
  z.object({ ...updateFields, ...caCertificate(version) }).meta({ goType: "RegistryUpdate" }),
);
type RegistryUpdateBody = {
  [K in keyof typeof updateFields]?: z.output<(typeof updateFields)[K]>;
} & { ca_certificate?: string | null };
const RegistryPingBody = perRelease((version) =>
  z
    .object({
      id: z.number().int().nullish(),
      type: z.string().nullish(),
      url: z.string().nullish(),
      credential_type: z.string().nullish(),
      access_key: z.string().nullish(),
      access_secret: z.string().nullish(),
      insecure: z.boolean().nullish(),
      ...caCertificate(version),
    })
    .meta({ goType: "RegistryPing" }),
);
type RegistryPingBody = { id?: number | null; type?: string | null; url?: string | null };

/** Harbor keeps a credential only when it has an access key; the type then defaults to basic. */
function credentialOf(c: {
  type?: string | null;
  access_key?: string | null;
  access_secret?: string | null;
}): RegistryCredential | undefined {
  if (!c.access_key) return undefined;
  return { type: c.type || "basic", access_key: c.access_key, access_secret: c.access_secret ?? "" };
}

const fields: Fields<RegistryRecord> = {
  id: (r) => r.id,
  name: (r) => r.name,
  url: (r) => r.url,
  type: (r) => r.type,
  description: (r) => r.description,
  insecure: (r) => r.insecure,
  health: (r) => r.status,
  credential_type: (r) => r.credential?.type,
  access_key: (r) => r.credential?.access_key,
  creation_time: (r) => r.creation_time,
  update_time: (r) => r.update_time,
};

const audit = (
  ctx: Parameters<typeof auditWrite>[0],
  name: string,
  operation: "create" | "update" | "delete",
) => auditWrite(ctx, { project_id: 0, resource: name, resource_type: "registry", operation });

const routes: RouteSpec[] = [
  {
    op: "createRegistry",
    method: "POST",
    path: "/registries",
    body: { name: "registry", schema: RegistryBody },
    handle(ctx) {
      requireSystem(ctx, "registry", "create");
      const b = ctx.body as RegistryBody;
      const credential = credentialOf(b.credential ?? {});
      const rec = ctx.world.registries.create({
        name: b.name ?? "",
        type: b.type ?? "",
        url: b.url ?? "",
        description: b.description ?? "",
        insecure: b.insecure ?? false,
        ca_certificate: b.ca_certificate ?? "",
        ...(credential ? { credential } : {}),
      });
      audit(ctx, rec.name, "create");
      return createdAt(ctx, rec.id);
    },
  },
  {
    op: "listRegistries",
    method: "GET",
    path: "/registries",
    paged: true,
    query: { q: { type: "string" }, sort: { type: "string" }, name: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "registry", "list");
      let items = ctx.world.registries.all();
      // The deprecated `name` parameter is a fuzzy match.
      const name = ctx.query.name as string | undefined;
      if (name) items = items.filter((r) => r.name.toUpperCase().includes(name.toUpperCase()));
      return listReply(ctx, items, fields, {
        render: (r) => renderRegistry(r, ctx.world),
        defaultOrder: (a, b) => a.id - b.id,
      });
    },
  },
  {
    op: "pingRegistry",
    method: "POST",
    path: "/registries/ping",
    body: { name: "registry", schema: RegistryPingBody },
    handle(ctx) {
      requireSystem(ctx, "registry", "read");
      const b = ctx.body as RegistryPingBody;
      // Fields in the body override those of the stored registry named by `id`.
      const base = b.id == null ? undefined : ctx.world.registries.resolve(b.id);
      const type = b.type ?? base?.type ?? "";
      const url = b.url == null ? (base?.url ?? "") : normalizeUrl(b.url);
      if (type === "" || url === "") throw badRequest("type or url cannot be empty");
      ctx.world.registries.ping({ type, url });
      return ok();
    },
  },
  {
    op: "getRegistry",
    method: "GET",
    path: "/registries/{id}",
    params: { id: "int" },
    handle(ctx) {
      requireSystem(ctx, "registry", "read");
      return ok(renderRegistry(ctx.world.registries.resolve(ctx.params.id as number), ctx.world));
    },
  },
  {
    op: "updateRegistry",
    method: "PUT",
    path: "/registries/{id}",
    params: { id: "int" },
    body: { name: "registry", schema: RegistryUpdateBody },
    handle(ctx) {
      requireSystem(ctx, "registry", "update");
      const id = ctx.params.id as number;
      const cur = ctx.world.registries.resolve(id);
      const b = ctx.body as RegistryUpdateBody;
      // A partial update: only the fields present change.
      const credential = credentialOf({
        type: b.credential_type ?? cur.credential?.type,
        access_key: b.access_key ?? cur.credential?.access_key,
        access_secret: b.access_secret ?? cur.credential?.access_secret,
      });
      ctx.world.registries.update(id, {
        name: b.name ?? cur.name,
        type: cur.type,
        description: b.description ?? cur.description,
        url: b.url ?? cur.url,
        insecure: b.insecure ?? cur.insecure,
        ca_certificate: b.ca_certificate ?? cur.ca_certificate,
        ...(credential ? { credential } : {}),
      });
      audit(ctx, b.name ?? cur.name, "update");
      return ok();
    },
  },
  {
    op: "deleteRegistry",
    method: "DELETE",
    path: "/registries/{id}",
    params: { id: "int" },
    handle(ctx) {
      requireSystem(ctx, "registry", "delete");
      const id = ctx.params.id as number;
      const name = ctx.world.registries.get(id)?.name ?? String(id);
      ctx.world.registries.delete(id);
      audit(ctx, name, "delete");
      return ok();
    },
  },
  {
    op: "getRegistryInfo",
    method: "GET",
    path: "/registries/{id}/info",
    params: { id: "int" },
    handle(ctx) {
      requireSystem(ctx, "registry", "read");
      return ok(ctx.world.registries.info(ctx.params.id as number));
    },
  },
  {
    op: "listRegistryProviderTypes",
    method: "GET",
    path: "/replication/adapters",
    handle(ctx) {
      requireSystem(ctx, "replication-adapter", "list");
      return ok(listedTypes(ctx.world).sort());
    },
  },
  {
    op: "listRegistryProviderInfos",
    method: "GET",
    path: "/replication/adapterinfos",
    handle(ctx) {
      requireSystem(ctx, "replication-adapter", "list");
      const listed = listedTypes(ctx.world);
      return ok(Object.fromEntries(Object.entries(PROVIDER_INFOS).filter(([type]) => listed.includes(type))));
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** Every stored registry, as the API renders it (secrets masked). */
    list: () => world.registries.all().map((r) => renderRegistry(r, world)),
    /**
     * Marks a remote registry URL healthy or unhealthy (default: every URL is healthy). Create,
     * update and ping check it; replication runs against an unhealthy remote fail at start.
     */
    setHealth: (url: string, healthy: boolean): void => world.registries.setHealth(url, healthy),
    /** Runs Harbor's regular health check now (it also runs every five minutes of world time). */
    checkHealth: (): void => world.registries.checkHealth(),
  }),
});
