// Projects: the records every other area hangs off, name-or-id resolution, repositories (the
// simulated content that blocks deletion and fills the quota), members with their roles, and the
// project API (create, head, list, get, update, delete, _deletable, summary; the audit logs are
// audit-logs.ts's). The release decides which metadata keys a project has: auto_sbom_generation from
// 2.11, proxy_speed_kb from 2.12, max_upstream_conn from 2.14.1 and proxy_cache_local_on_not_found
// from 2.15.1 (the three proxy-cache settings are kept on proxy-cache projects only; the two
// numbers must be int32s), and webhook_allow_private_ip where the webhook refusal of private
// addresses is modelled (world settings). The registry's token service, which judges pulls by these
// projects' members, is registry-auth.ts.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import {
  type Caller,
  canProject,
  canSystem,
  isSysAdmin,
  projectAccess,
  ROLES,
  requireAuthenticated,
  requireProject,
} from "../auth.ts";
import {
  badRequest,
  conflict,
  forbidden,
  internal,
  notFound,
  precondition,
  unauthorized,
} from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { type Fields, listReply, page } from "../listing.ts";
import { type Ctx, inInt4, int4Overflow, ok, parseInt64, type RouteSpec } from "../router.ts";
import type { Change } from "../version.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import { ProjectMembers } from "./members.ts";

/** An artifact as replication sees it: its digest, tags and the names of its labels. */
export interface ArtifactRecord {
  digest: string;
  tags: string[];
  labels: string[];
}

export interface RepositoryRecord {
  name: string;
  artifact_count: number;
  /** What replication copies; a repository added without details holds untagged artifacts. */
  artifacts?: ArtifactRecord[];
  pull_count: number;
  /** Bytes the repository's artifacts take; counts towards the project's quota. */
  size?: number;
  creation_time: string;
  update_time: string;
}

export interface CveAllowlistRecord {
  id: number;
  project_id: number;
  items: Array<{ cve_id: string }>;
  expires_at?: number;
  creation_time: string;
  update_time: string;
}

export interface ProjectRecord {
  project_id: number;
  name: string;
  owner_id: number;
  owner_name: string;
  /** 0 unless the project is a proxy cache of that registry. */
  registry_id: number;
  creation_time: string;
  update_time: string;
  /** Every value is a string, as Harbor stores and returns them. */
  metadata: Record<string, string>;
  cve_allowlist: CveAllowlistRecord;
  /** Bytes; -1 is unlimited. The hard limit of the project's quota. */
  storage_limit: number;
  /** The project's quota record (/quotas): its own id and times; the limit is storage_limit. */
  quota: QuotaRecord;
  /** The project's members (users and user groups) with their roles. */
  members: ProjectMembers;
  repositories: Map<string, RepositoryRecord>;
}

export interface QuotaRecord {
  id: number;
  creation_time: string;
  update_time: string;
}

/**
 * Quota ids come from a table of their own. They are kept apart from project ids here, so that a
 * client that takes one for the other fails in tests instead of working by coincidence.
 */
const QUOTA_ID_OFFSET = 100;

export const PROJECT_NAME = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
const NAME_MAX = 255;
/** Harbor's upper bound for a storage quota: 1024 TB. */
const MAX_STORAGE_LIMIT = 1024 * 1024 ** 4;
/** Registry types Harbor accepts as a proxy-cache upstream (its default permitted list). */
export const PROXY_CACHE_TYPES = [
  "docker-hub",
  "harbor",
  "azure-acr",
  "ali-acr",
  "aws-ecr",
  "google-gcr",
  "quay",
  "docker-registry",
  "github-ghcr",
  "jfrog-artifactory",
];
/** The keys of ProjectMetadata; anything else in a request is dropped, as go-swagger does. */
const METADATA_KEYS = [
  "public",
  "enable_content_trust",
  "enable_content_trust_cosign",
  "prevent_vul",
  "severity",
  "auto_scan",
  "auto_sbom_generation",
  "reuse_sys_cve_allowlist",
  "retention_id",
  "proxy_speed_kb",
  "max_upstream_conn",
  "proxy_cache_local_on_not_found",
  "webhook_allow_private_ip",
] as const;
type MetadataKey = (typeof METADATA_KEYS)[number];
/** Keys a release's ProjectMetadata has only from a change on (go-swagger drops them before). */
const METADATA_SINCE: Partial<Record<MetadataKey, Change>> = {
  auto_sbom_generation: "autoSbomGeneration",
  proxy_speed_kb: "proxySpeedKb",
  max_upstream_conn: "maxUpstreamConn",
  proxy_cache_local_on_not_found: "proxyCacheLocalOnNotFound",
};
/** Settings of a proxy cache: dropped from the request of any other project. */
const PROXY_CACHE_KEYS: readonly MetadataKey[] = [
  "proxy_speed_kb",
  "max_upstream_conn",
  "proxy_cache_local_on_not_found",
];
/** Proxy-cache settings Harbor parses as an int32. */
const INT32_KEYS: readonly MetadataKey[] = ["proxy_speed_kb", "max_upstream_conn"];

/** Whether the modelled Harbor's ProjectMetadata has the key. */
function hasMetadataKey(world: World, key: MetadataKey): boolean {
  // Only the patches that refuse private webhook targets know the exemption (world.ts).
  if (key === "webhook_allow_private_ip") return world.settings.webhookPrivateAddresses === "refuse";
  const change = METADATA_SINCE[key];
  return !change || world.version.has(change);
}

export class ProjectStore {
  readonly #world: World;
  readonly #projects = new Map<number, ProjectRecord>();

  constructor(world: World) {
    this.#world = world;
    // A fresh Harbor has the public project "library" (id 1), owned by admin.
    this.insert({ name: "library", ownerId: 1, metadata: { public: "true" }, storageLimit: -1 });
  }

  get world(): World {
    return this.#world;
  }

  insert(p: {
    name: string;
    ownerId: number;
    metadata: Record<string, string>;
    storageLimit: number;
    registryId?: number;
  }): ProjectRecord {
    const id = this.#world.ids.next("project");
    const now = this.#world.nowText();
    const owner = this.#world.identities.byId(p.ownerId);
    const rec: ProjectRecord = {
      project_id: id,
      name: p.name,
      owner_id: p.ownerId,
      owner_name: owner?.username ?? "",
      registry_id: p.registryId ?? 0,
      creation_time: now,
      update_time: now,
      metadata: { ...p.metadata },
      cve_allowlist: {
        id: this.#world.ids.next("cve_allowlist"),
        project_id: id,
        items: [],
        creation_time: now,
        update_time: now,
      },
      storage_limit: p.storageLimit,
      quota: { id: this.#world.ids.next("quota") + QUOTA_ID_OFFSET, creation_time: now, update_time: now },
      members: new ProjectMembers(this.#world, { userId: p.ownerId, role: ROLES.projectAdmin }),
      repositories: new Map(),
    };
    this.#projects.set(id, rec);
    return rec;
  }

  /** Creates a project under Harbor's name rules: length, pattern, global uniqueness. */
  create(p: {
    name: string;
    ownerId: number;
    metadata: Record<string, string>;
    storageLimit: number;
    registryId?: number;
  }): ProjectRecord {
    if (p.name.length < 1 || p.name.length > NAME_MAX) {
      throw badRequest(
        `Project name ${p.name} is illegal in length. (greater than ${NAME_MAX} or less than 1)`,
      );
    }
    if (!PROJECT_NAME.test(p.name)) {
      throw badRequest("project name is not in lower case or contains illegal characters");
    }
    if (this.byName(p.name)) throw conflict(`The project named ${p.name} already exists`);
    return this.insert(p);
  }

  /**
   * `{project_name_or_id}`: a value that parses as an int64 is an id unless the caller set
   * X-Is-Resource-Name: true; an id outside int4 fails in the database (a masked 500).
   */
  resolve(ref: string, byName: boolean): ProjectRecord | undefined {
    const id = byName ? undefined : parseInt64(ref);
    if (id === undefined) return this.byName(ref);
    if (!inInt4(id)) throw int4Overflow(id);
    return this.byId(id);
  }

  byId(id: number): ProjectRecord | undefined {
    return this.#projects.get(id);
  }

  byName(name: string): ProjectRecord | undefined {
    for (const p of this.#projects.values()) if (p.name === name) return p;
    return undefined;
  }

  all(): ProjectRecord[] {
    return [...this.#projects.values()];
  }

  /** The project whose quota has this id. */
  byQuotaId(id: number): ProjectRecord | undefined {
    for (const p of this.#projects.values()) if (p.quota.id === id) return p;
    return undefined;
  }

  /** PUT /quotas/{id}: the new hard storage limit (bytes, -1 unlimited); usage may exceed it. */
  setStorageLimit(project: ProjectRecord, bytes: number): void {
    project.storage_limit = bytes;
    project.quota.update_time = this.#world.nowText();
  }

  /** PUT: metadata keys merged in; the CVE allowlist replaced when given. */
  update(
    project: ProjectRecord,
    change: {
      metadata: Record<string, string>;
      allowlist?: { items: Array<{ cve_id: string }>; expires_at?: number };
    },
  ): void {
    const now = this.#world.nowText();
    Object.assign(project.metadata, change.metadata);
    if (change.allowlist) {
      const { id, creation_time } = project.cve_allowlist;
      project.cve_allowlist = {
        id,
        project_id: project.project_id,
        items: change.allowlist.items,
        ...(change.allowlist.expires_at === undefined ? {} : { expires_at: change.allowlist.expires_at }),
        creation_time,
        update_time: now,
      };
    }
    project.update_time = now;
  }

  /** Why the project cannot be deleted, or undefined when it can. */
  undeletableReason(project: ProjectRecord): string | undefined {
    return project.repositories.size > 0
      ? "the project contains repositories, can not be deleted"
      : undefined;
  }

  /** DELETE: refused while repositories exist; otherwise removes the project and what hangs off it. */
  delete(project: ProjectRecord): void {
    const reason = this.undeletableReason(project);
    if (reason) throw precondition(`precondition failed: ${reason}`);
    this.remove(project);
  }

  /** Bytes used: the sum of the repositories' sizes. */
  storageUsed(project: ProjectRecord): number {
    let used = 0;
    for (const r of project.repositories.values()) used += r.size ?? 0;
    return used;
  }

  /**
   * Deletes the project and what Harbor deletes with it: robots, project labels, preheat policies, its quota (which
   * lives on the record). Its webhook policies stay, as in Harbor (they outlive the project in the
   * database, out of the API's reach).
   */
  remove(project: ProjectRecord): void {
    // Cascade first: the other stores may still look the project up while cleaning up.
    this.#world.robots.deleteByProject(project.project_id);
    this.#world.labels.deleteByProject(project.project_id);
    this.#world.retention.deleteByProject(project.project_id);
    this.#world.immutable.deleteByProject(project.project_id);
    this.#world.preheat.deleteByProject(project.project_id);
    this.#projects.delete(project.project_id);
  }
}

// ---------------------------------------------------------------------------------------------
// Wire models (swagger-level constraints only)

// goType: the go-swagger model names Go's type errors mention (see gojson.ts).
const MetadataBody = z
  .object(Object.fromEntries(METADATA_KEYS.map((k) => [k, z.string().nullish()])))
  .meta({ goType: "ProjectMetadata" });
const DateTime = z.string().meta({ goType: "strfmt.DateTime" });
const AllowlistBody = z
  .object({
    id: z.number().int().nullish(),
    project_id: z.number().int().nullish(),
    expires_at: z.number().int().nullish(),
    items: z.array(z.object({ cve_id: z.string().nullish() }).meta({ goType: "CVEAllowlistItem" })).nullish(),
    creation_time: DateTime.nullish(),
    update_time: DateTime.nullish(),
  })
  .meta({ goType: "CVEAllowlist" });
const ProjectReqBody = z
  .object({
    project_name: z
      .string()
      .max(NAME_MAX, { message: `should be at most ${NAME_MAX} chars long` })
      .nullish(),
    public: z.boolean().nullish(),
    metadata: MetadataBody.nullish(),
    cve_allowlist: AllowlistBody.nullish(),
    storage_limit: z.number().int().nullish(),
    registry_id: z.number().int().nullish(),
  })
  .meta({ goType: "ProjectReq" });
type ProjectReq = z.output<typeof ProjectReqBody>;

/**
 * The metadata a request sets, as Harbor copies it: `public` only when non-empty (it is a plain
 * string with omitempty), every other key whenever it is present (they are pointers).
 */
function requestedMetadata(world: World, body: ProjectReq["metadata"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of METADATA_KEYS) {
    if (!hasMetadataKey(world, key)) continue;
    const v = body?.[key];
    if (v === undefined || v === null || (key === "public" && v === "")) continue;
    out[key] = v;
  }
  return out;
}

/** strconv.ParseInt(s, 10, 32), for metadata.proxy_speed_kb and max_upstream_conn. */
function checkInt32(key: MetadataKey, s: string): void {
  const syntax = !/^[+-]?\d+$/.test(s);
  const range = !syntax && (Number(s) > 2 ** 31 - 1 || Number(s) < -(2 ** 31));
  if (syntax || range) {
    throw badRequest(
      `metadata.${key} should by an int32, but got: '${s}', err: strconv.ParseInt: parsing "${s}": ${syntax ? "invalid syntax" : "value out of range"}`,
    );
  }
}

function callerRoles(c: Caller, p: ProjectRecord): number[] {
  if (c.kind !== "user") return [];
  const role = p.members.get(c.user.user_id);
  return role === undefined ? [] : [role];
}

function renderMetadata(md: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of METADATA_KEYS) {
    const v = md[key];
    if (v === undefined || (key === "public" && v === "")) continue;
    out[key] = key === "severity" ? v.toLowerCase() : v;
  }
  return out;
}

function renderProject(p: ProjectRecord, caller: Caller, detail = true) {
  const roles = callerRoles(caller, p);
  const a = p.cve_allowlist;
  return omitEmpty(
    {
      project_id: p.project_id,
      owner_id: p.owner_id,
      name: p.name,
      registry_id: p.registry_id,
      creation_time: p.creation_time,
      update_time: p.update_time,
      owner_name: p.owner_name,
      current_user_role_id: roles[0] ?? 0,
      current_user_role_ids: roles,
      repo_count: p.repositories.size,
      metadata: detail ? renderMetadata(p.metadata) : undefined,
      // Harbor always sends the allowlist, its times and items (date-times are never left out).
      cve_allowlist: {
        id: a.id,
        project_id: a.project_id,
        ...(a.expires_at === undefined ? {} : { expires_at: a.expires_at }),
        items: a.items,
        creation_time: a.creation_time,
        update_time: a.update_time,
      },
    },
    ["repo_count"],
  );
}

const projectFields: Fields<ProjectRecord> = {
  project_id: (p) => p.project_id,
  name: (p) => p.name,
  owner_id: (p) => p.owner_id,
  registry_id: (p) => p.registry_id,
  creation_time: (p) => p.creation_time,
  update_time: (p) => p.update_time,
  public: (p) => p.metadata.public,
  owner: (p) => p.owner_name,
};

const byName = (a: ProjectRecord, b: ProjectRecord) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function pathRef(ctx: Ctx): string {
  return ctx.params.project_name_or_id as string;
}

function audit(ctx: Ctx, p: ProjectRecord, operation: "create" | "update" | "delete"): void {
  auditWrite(ctx, { project_id: p.project_id, resource: p.name, resource_type: "project", operation });
}

/**
 * Which projects a caller may see in a list: admins (and system robots holding project:list) all of
 * them, users their member projects, robots the projects they hold permissions for ("*": all),
 * everybody the public ones.
 */
function visibleTo(c: Caller): (p: ProjectRecord) => boolean {
  const isPublic = (p: ProjectRecord) => p.metadata.public === "true";
  if (c.kind === "anonymous") return isPublic;
  if (canSystem(c, "project", "list")) return () => true;
  if (c.kind === "robot") {
    if (c.robot.permissions.some((p) => p.kind === "project" && p.namespace === "*")) return () => true;
    const names = new Set(c.robot.permissions.map((p) => p.namespace));
    return (p) => names.has(p.name) || isPublic(p);
  }
  const userId = c.user.user_id;
  return (p) => p.members.has(userId) || isPublic(p);
}

function registrySummary(world: World, id: number): Record<string, unknown> | undefined {
  const r = world.registries.get(id);
  if (!r) return undefined;
  // The registry as the API shows it, without its credential.
  return omitEmpty(
    {
      id: r.id,
      url: r.url,
      name: r.name,
      type: r.type,
      insecure: r.insecure,
      description: r.description,
      status: r.status,
      creation_time: r.creation_time,
      update_time: r.update_time,
    },
    ["id"],
  );
}

const projectRef = { project_name_or_id: "string" } as const;
const isResourceName = { "X-Is-Resource-Name": { type: "bool", default: false } } as const;

const routes: RouteSpec[] = [
  {
    op: "createProject",
    method: "POST",
    path: "/projects",
    headers: { "X-Resource-Name-In-Location": { type: "bool", default: false } },
    body: { name: "project", schema: ProjectReqBody },
    handle(ctx) {
      requireAuthenticated(ctx);
      const c = ctx.caller;
      if (c.kind === "robot" && c.robot.level !== "system") {
        throw forbidden("Only system level robot can create project");
      }
      const b = ctx.body as ProjectReq;
      // Harbor's "sys admin" here is whoever holds system project:create (admins, system robots).
      const admin = canSystem(c, "project", "create");
      const registryId = b.registry_id ?? undefined;
      if (registryId !== undefined && !admin) {
        throw forbidden("Only system admin can create proxy cache project");
      }
      if (!admin && ctx.world.config.get("project_creation_restriction") === "adminonly") {
        throw forbidden("Only system admin can create project");
      }
      let storageLimit = b.storage_limit ?? 0;
      // The default is the system's storage_per_project (unlimited unless configured).
      if (storageLimit === 0 || !admin) storageLimit = Number(ctx.world.config.get("storage_per_project"));

      const metadata = requestedMetadata(ctx.world, b.metadata);
      // The deprecated top-level `public` counts only when metadata.public is not given.
      if (b.public !== undefined && b.public !== null && !metadata.public) metadata.public = String(b.public);
      metadata.public ??= "false";
      if (metadata.public !== "true" && metadata.public !== "false") {
        throw badRequest(`metadata.public should only be 'true' or 'false', but got: '${metadata.public}'`);
      }
      if (registryId === undefined) for (const k of PROXY_CACHE_KEYS) delete metadata[k];
      else delete metadata.enable_content_trust;
      if (metadata.retention_id) {
        throw badRequest(
          "bad request: the retention_id in the request's payload when creating a project should be omitted, alternatively passing an empty string",
        );
      }
      delete metadata.retention_id;
      if (registryId !== undefined) {
        if (registryId <= 0) {
          throw badRequest(
            `bad request: ${registryId} is invalid value of registry_id, it should be geater than 0`,
          );
        }
        const registry = ctx.world.registries.get(registryId);
        // Harbor wraps the lookup failure in a plain error: a (masked) 500, not a 404.
        if (!registry) throw internal(`failed to get the registry ${registryId}`);
        if (!PROXY_CACHE_TYPES.includes(registry.type)) {
          throw badRequest(`bad request: unsupported registry type ${registry.type}`);
        }
        for (const k of INT32_KEYS) if (metadata[k] !== undefined) checkInt32(k, metadata[k]);
      }
      if ((storageLimit <= 0 && storageLimit !== -1) || storageLimit > MAX_STORAGE_LIMIT) {
        throw badRequest("bad request: invalid value for resource storage");
      }
      // Robots cannot own projects: the first system admin does.
      const ownerId = c.kind === "user" ? c.user.user_id : ctx.world.identities.admin.user_id;
      const project = ctx.world.projects.create({
        name: b.project_name ?? "",
        ownerId,
        metadata,
        storageLimit,
        ...(registryId === undefined ? {} : { registryId }),
      });
      // A proxy cache gets a retention policy (keep what was pulled in the last 7 days).
      if (registryId !== undefined) ctx.world.retention.createForProxy(project);
      audit(ctx, project, "create");
      const tail = ctx.query["X-Resource-Name-In-Location"] === true ? project.name : project.project_id;
      return { status: 201, headers: { location: `${ctx.url.pathname.replace(/\/+$/, "")}/${tail}` } };
    },
  },
  {
    op: "headProject",
    method: "HEAD",
    path: "/projects",
    query: { project_name: { type: "string", required: true } },
    handle(ctx) {
      requireAuthenticated(ctx);
      const name = ctx.query.project_name as string;
      if (!ctx.world.projects.byName(name)) throw notFound(`project ${name} not found`);
      return ok();
    },
  },
  {
    op: "listProjects",
    method: "GET",
    path: "/projects",
    paged: true,
    query: {
      q: { type: "string" },
      sort: { type: "string" },
      name: { type: "string" },
      public: { type: "bool" },
      owner: { type: "string" },
      with_detail: { type: "bool", default: true },
    },
    handle(ctx) {
      const publicParam = ctx.query.public as boolean | undefined;
      // Anonymous callers asking for private projects get an empty answer straight away.
      if (ctx.caller.kind === "anonymous" && publicParam === false)
        return page(ctx, [], { noLinkWhenEmpty: true });
      const name = ctx.query.name as string | undefined;
      const owner = ctx.query.owner as string | undefined;
      const visible = visibleTo(ctx.caller);
      const items = ctx.world.projects.all().filter((p) => {
        if (!visible(p)) return false;
        if (name && !p.name.toUpperCase().includes(name.toUpperCase())) return false;
        if (owner && p.owner_name !== owner) return false;
        if (publicParam !== undefined && (p.metadata.public === "true") !== publicParam) return false;
        return true;
      });
      const detail = ctx.query.with_detail !== false;
      return listReply(ctx, items, projectFields, {
        defaultOrder: byName,
        noLinkWhenEmpty: true,
        render: (p) => renderProject(p, ctx.caller, detail),
      });
    },
  },
  {
    op: "getProject",
    method: "GET",
    path: "/projects/{project_name_or_id}",
    params: projectRef,
    headers: isResourceName,
    handle(ctx) {
      const project = projectAccess(ctx, pathRef(ctx), "project", "read");
      return ok(renderProject(project, ctx.caller));
    },
  },
  {
    op: "updateProject",
    method: "PUT",
    path: "/projects/{project_name_or_id}",
    params: projectRef,
    headers: isResourceName,
    body: { name: "project", schema: ProjectReqBody },
    handle(ctx) {
      const project = projectAccess(ctx, pathRef(ctx), "project", "update");
      const b = ctx.body as ProjectReq;
      let allowlist: { items: Array<{ cve_id: string }>; expires_at?: number } | undefined;
      if (b.cve_allowlist) {
        const pid = b.cve_allowlist.project_id ?? 0;
        if (pid !== 0 && pid !== project.project_id) {
          throw badRequest(`project_id in cve_allowlist must be ${project.project_id} but it's ${pid}`);
        }
        const expires = b.cve_allowlist.expires_at;
        allowlist = {
          items: (b.cve_allowlist.items ?? []).map((i) => ({ cve_id: i.cve_id ?? "" })),
          ...(expires === undefined || expires === null ? {} : { expires_at: expires }),
        };
      }
      // name, storage_limit and registry_id in the body are ignored on update.
      const metadata = requestedMetadata(ctx.world, b.metadata);
      if (project.registry_id === 0) for (const k of PROXY_CACHE_KEYS) delete metadata[k];
      else delete metadata.enable_content_trust;
      if (metadata.retention_id !== undefined && metadata.retention_id !== project.metadata.retention_id) {
        throw badRequest(
          "the retention_id in the request's payload when updating a project should be omitted, alternatively passing the one that has already been associated to this project",
        );
      }
      ctx.world.projects.update(project, { metadata, ...(allowlist ? { allowlist } : {}) });
      audit(ctx, project, "update");
      return ok();
    },
  },
  {
    op: "deleteProject",
    method: "DELETE",
    path: "/projects/{project_name_or_id}",
    params: projectRef,
    headers: isResourceName,
    handle(ctx) {
      const project = projectAccess(ctx, pathRef(ctx), "project", "delete");
      ctx.world.projects.delete(project);
      audit(ctx, project, "delete");
      return ok();
    },
  },
  {
    op: "listRepositories",
    method: "GET",
    path: "/projects/{project_name}/repositories",
    paged: true,
    query: { q: { type: "string" }, sort: { type: "string" } },
    handle(ctx) {
      // The path takes a name only (no X-Is-Resource-Name); a project without repositories is [].
      const name = ctx.params.project_name as string;
      const project = ctx.world.projects.byName(name);
      if (!project) {
        if (ctx.caller.kind === "anonymous") throw unauthorized();
        if (!isSysAdmin(ctx.caller)) throw forbidden();
        throw notFound(`project ${name} not found`);
      }
      requireProject(ctx, project, "repository", "list");
      const items = [...project.repositories.values()].map((r) => ({
        project_id: project.project_id,
        name: `${project.name}/${r.name}`,
        artifact_count: r.artifact_count,
        pull_count: r.pull_count,
        creation_time: r.creation_time,
        update_time: r.update_time,
      }));
      return listReply(
        ctx,
        items,
        { name: (r) => r.name },
        { defaultOrder: (a, b) => (a.name < b.name ? -1 : 1) },
      );
    },
  },
  {
    op: "getProjectDeletable",
    method: "GET",
    path: "/projects/{project_name_or_id}/_deletable",
    params: projectRef,
    headers: isResourceName,
    handle(ctx) {
      const project = projectAccess(ctx, pathRef(ctx), "project", "delete");
      const reason = ctx.world.projects.undeletableReason(project);
      // `deletable` is omitempty: a false value is left out.
      return ok(omitEmpty({ deletable: reason === undefined, message: reason }));
    },
  },
  {
    op: "getProjectSummary",
    method: "GET",
    path: "/projects/{project_name_or_id}/summary",
    params: projectRef,
    headers: isResourceName,
    handle(ctx) {
      const project = projectAccess(ctx, pathRef(ctx), "project", "read");
      const c = ctx.caller;
      const count = (role: number) => [...project.members.values()].filter((r) => r === role).length;
      const members = canProject(c, project, "member", "list")
        ? {
            project_admin_count: count(ROLES.projectAdmin),
            maintainer_count: count(ROLES.maintainer),
            developer_count: count(ROLES.developer),
            guest_count: count(ROLES.guest),
            limited_guest_count: count(ROLES.limitedGuest),
          }
        : {};
      const quota = canProject(c, project, "quota", "read")
        ? {
            quota: {
              hard: { storage: project.storage_limit },
              used: { storage: ctx.world.projects.storageUsed(project) },
            },
          }
        : {};
      const registry = project.registry_id > 0 ? registrySummary(ctx.world, project.registry_id) : undefined;
      return ok(
        omitEmpty({ repo_count: project.repositories.size, ...members, ...quota, registry }, ["repo_count"]),
      );
    },
  },
];

const newDigest = () => `sha256:${randomBytes(32).toString("hex")}`;

export const area = defineArea({
  routes,
  control: (world: World) => {
    const project = (name: string): ProjectRecord => {
      const p = world.projects.byName(name);
      if (!p) throw new Error(`no project ${name}`);
      return p;
    };
    return {
      /** Every project as an admin's GET shows it. */
      list: () =>
        world.projects.all().map((p) => renderProject(p, { kind: "user", user: world.identities.admin })),
      /**
       * Adds a repository (with untagged artifacts and a size in bytes) to a project, making it
       * non-deletable.
       */
      addRepository(projectName: string, repository: string, artifacts = 1, sizeBytes = 0): void {
        const now = world.nowText();
        project(projectName).repositories.set(repository, {
          name: `${projectName}/${repository}`,
          artifact_count: artifacts,
          artifacts: Array.from({ length: artifacts }, () => ({ digest: newDigest(), tags: [], labels: [] })),
          pull_count: 0,
          size: sizeBytes,
          creation_time: now,
          update_time: now,
        });
      },
      removeRepository(projectName: string, repository: string): void {
        world.projects.byName(projectName)?.repositories.delete(repository);
      },
      /** Sets how many bytes a repository takes (the project summary's used storage). */
      setRepositorySize(projectName: string, repository: string, sizeBytes: number): void {
        const repo = project(projectName).repositories.get(repository);
        if (!repo) throw new Error(`no repository ${projectName}/${repository}`);
        repo.size = sizeBytes;
        repo.update_time = world.nowText();
      },
      /**
       * Simulates `docker push`: adds the artifact (creating the repository if needed; the tag moves
       * to it from an older artifact), with the labels named, records a push in the audit log and
       * notifies the project's webhooks with a PUSH_ARTIFACT event.
       */
      pushArtifact(
        projectName: string,
        repository: string,
        options: { tag?: string; sizeBytes?: number; username?: string; labels?: string[] } = {},
      ): { digest: string } {
        const p = project(projectName);
        const tag = options.tag ?? "latest";
        const digest = newDigest();
        const nowMs = world.now();
        const now = world.nowText();
        const repo = p.repositories.get(repository) ?? {
          name: `${projectName}/${repository}`,
          artifact_count: 0,
          pull_count: 0,
          size: 0,
          creation_time: now,
          update_time: now,
        };
        repo.artifact_count += 1;
        const artifacts = repo.artifacts ?? [];
        for (const a of artifacts) a.tags = a.tags.filter((t) => t !== tag);
        repo.artifacts = [...artifacts, { digest, tags: [tag], labels: [...(options.labels ?? [])] }];
        repo.size = (repo.size ?? 0) + (options.sizeBytes ?? 0);
        repo.update_time = now;
        p.repositories.set(repository, repo);
        const username = options.username ?? world.identities.admin.username;
        world.audit.record({
          project_id: p.project_id,
          username,
          resource: `${projectName}/${repository}:${tag}`,
          resource_type: "artifact",
          operation: "push",
        });
        world.webhooks.notify({
          projectId: p.project_id,
          eventType: "PUSH_ARTIFACT",
          data: {
            resources: [{ digest, tag, resource_url: `${projectName}/${repository}:${tag}` }],
            repository: {
              date_created: Math.floor(Date.parse(repo.creation_time) / 1000),
              name: repository,
              namespace: projectName,
              repo_full_name: `${projectName}/${repository}`,
              repo_type: p.metadata.public === "true" ? "public" : "private",
            },
            operator: username,
            occur_at: Math.floor(nowMs / 1000),
          },
        });
        return { digest };
      },
    };
  },
});
