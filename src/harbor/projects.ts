// Projects (/projects): create, existence check, list, get, update, delete, deletability, summary,
// and the project's audit logs.
//
// Harbor's project semantics a caller should know:
// - every metadata value is a string ("true"/"false" for flags), and PUT merges metadata keys
//   (absent keys keep their value); project_name, storage_limit and registry_id are ignored on PUT;
// - a project that still holds repositories cannot be deleted (412);
// - projects are addressed by ProjectRef: a number is an id, a string a name (sent with
//   X-Is-Resource-Name: true, so a project literally named "123" still works).
import { z } from "zod";
import { nullAsAbsent, type ProjectRef, projectHeaders, Timestamp } from "./common.ts";
import { isHarborError } from "./errors.ts";
import { Severity } from "./model/enums.ts";
import { type ListFilter, listQuery } from "./query.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

const Flag = z.enum(["true", "false"]);

/** Harbor's project metadata as it is sent: every value a string. */
export const ProjectMetadataInput = z.object({
  public: Flag.optional(),
  enable_content_trust: Flag.optional(),
  enable_content_trust_cosign: Flag.optional(),
  prevent_vul: Flag.optional(),
  severity: Severity.optional(),
  auto_scan: Flag.optional(),
  /** Harbor 2.11+. */
  auto_sbom_generation: Flag.optional(),
  reuse_sys_cve_allowlist: Flag.optional(),
  /** Set by Harbor for proxy-cache projects; on create it must be omitted. */
  retention_id: z.string().optional(),
  /** Harbor 2.12+, proxy-cache projects only: an int32 as a string (Kbps, -1 = unlimited). */
  proxy_speed_kb: z.string().optional(),
  /** Harbor 2.14.1+, proxy-cache projects only: connections per artifact upstream (-1 = no limit). */
  max_upstream_conn: z.string().optional(),
  /** Harbor 2.15.1+, proxy-cache projects only: serve from the cache what upstream no longer has. */
  proxy_cache_local_on_not_found: Flag.optional(),
  /** Harbor 2.13.6, 2.14.5, 2.15.3+: the project's webhooks may deliver to private addresses. */
  webhook_allow_private_ip: Flag.optional(),
});
export type ProjectMetadataInput = z.input<typeof ProjectMetadataInput>;

export const CveAllowlistInput = z.object({
  /** 0 or omitted means "this project". */
  project_id: z.number().int().optional(),
  /** Unix seconds; omitted means the allowlist never expires. */
  expires_at: z.number().int().nullish(),
  items: z.array(z.object({ cve_id: z.string() })).optional(),
});
export type CveAllowlistInput = z.input<typeof CveAllowlistInput>;

/** Harbor ignores a CVE allowlist on create: set it with `update` afterwards. */
export const ProjectCreate = z.object({
  project_name: z.string().max(255),
  metadata: ProjectMetadataInput.optional(),
  /** Bytes; -1 is unlimited. Omitted or 0 means the system default (only admins may set it). */
  storage_limit: z.number().int().optional(),
  /** Makes the project a proxy cache of this registry (admins only). */
  registry_id: z.number().int().optional(),
});
export type ProjectCreate = z.input<typeof ProjectCreate>;

/** What PUT changes: metadata keys (merged) and the CVE allowlist (replaced when present). */
export const ProjectUpdate = z.object({
  metadata: ProjectMetadataInput.optional(),
  cve_allowlist: CveAllowlistInput.optional(),
});
export type ProjectUpdate = z.input<typeof ProjectUpdate>;

const MetadataValue = z.string().nullish();

export const ProjectMetadata = z.object({
  public: z.string().optional(),
  enable_content_trust: MetadataValue,
  enable_content_trust_cosign: MetadataValue,
  prevent_vul: MetadataValue,
  severity: MetadataValue,
  auto_scan: MetadataValue,
  auto_sbom_generation: MetadataValue,
  reuse_sys_cve_allowlist: MetadataValue,
  retention_id: MetadataValue,
  proxy_speed_kb: MetadataValue,
  max_upstream_conn: MetadataValue,
  proxy_cache_local_on_not_found: MetadataValue,
  webhook_allow_private_ip: MetadataValue,
});
export type ProjectMetadata = z.output<typeof ProjectMetadata>;

export const CveAllowlist = z.object({
  id: z.number().int().optional(),
  project_id: z.number().int().optional(),
  expires_at: z.number().int().nullish(),
  items: nullAsAbsent(z.array(z.object({ cve_id: z.string().optional() }))),
  creation_time: Timestamp.optional(),
  update_time: Timestamp.optional(),
});
export type CveAllowlist = z.output<typeof CveAllowlist>;

export const Project = z.object({
  project_id: z.number().int().optional(),
  owner_id: z.number().int().optional(),
  name: z.string().optional(),
  /** Present (non-zero) only for proxy-cache projects. */
  registry_id: z.number().int().optional(),
  creation_time: Timestamp.optional(),
  update_time: Timestamp.optional(),
  deleted: z.boolean().optional(),
  owner_name: z.string().optional(),
  togglable: z.boolean().optional(),
  /** Deprecated by Harbor in favour of current_user_role_ids. */
  current_user_role_id: z.number().int().optional(),
  current_user_role_ids: nullAsAbsent(z.array(z.number().int())),
  /** Always sent, also when 0. */
  repo_count: z.number().int().optional(),
  /** Left out by list calls made with withDetail: false. */
  metadata: nullAsAbsent(ProjectMetadata),
  cve_allowlist: nullAsAbsent(CveAllowlist),
});
export type Project = z.output<typeof Project>;

/** A project Harbor has stored, as get and list return it: its id is always there. */
export const PersistedProject = Project.extend({ project_id: z.number().int() });
export type PersistedProject = z.output<typeof PersistedProject>;

/** The upstream registry of a proxy-cache project, as the summary shows it (no credential). */
export const ProjectRegistry = z.object({
  id: z.number().int().optional(),
  url: z.string().optional(),
  name: z.string().optional(),
  type: z.string().optional(),
  insecure: z.boolean().optional(),
  description: z.string().optional(),
  status: z.string().optional(),
  creation_time: Timestamp.optional(),
  update_time: Timestamp.optional(),
});
export type ProjectRegistry = z.output<typeof ProjectRegistry>;

const ResourceList = z.record(z.string(), z.number().int());

export const ProjectSummary = z.object({
  repo_count: z.number().int().optional(),
  /** Member counts appear only when the caller may list members. */
  project_admin_count: z.number().int().optional(),
  maintainer_count: z.number().int().optional(),
  developer_count: z.number().int().optional(),
  guest_count: z.number().int().optional(),
  limited_guest_count: z.number().int().optional(),
  /** Only when per-project quota is on and the caller may read it; storage in bytes, -1 = unlimited. */
  quota: nullAsAbsent(z.object({ hard: nullAsAbsent(ResourceList), used: nullAsAbsent(ResourceList) })),
  /** Only for proxy-cache projects. */
  registry: nullAsAbsent(ProjectRegistry),
});
export type ProjectSummary = z.output<typeof ProjectSummary>;

export const ProjectDeletable = z.object({
  /** Harbor leaves the field out when it is false. */
  deletable: z.boolean().optional(),
  /** Why not, when deletable is false. */
  message: z.string().optional(),
});
export type ProjectDeletable = z.output<typeof ProjectDeletable>;

export const AuditLog = z.object({
  id: z.number().int().optional(),
  username: z.string().optional(),
  resource: z.string().optional(),
  resource_type: z.string().optional(),
  operation: z.string().optional(),
  op_time: Timestamp.optional(),
});
export type AuditLog = z.output<typeof AuditLog>;

export interface ProjectListParams extends ListFilter {
  /** Fuzzy match on the name. */
  name?: string;
  /** Exact owner username. */
  owner?: string;
  public?: boolean;
  /** Harbor's default is true; false leaves out metadata. */
  withDetail?: boolean;
}

export class ProjectsApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** createProject: returns the new project's id. */
  async create(project: ProjectCreate, opts?: CallOptions): Promise<number> {
    const body = ProjectCreate.parse(project);
    return Number(
      await this.#t.created({ ...opts, operation: "createProject", method: "POST", path: "/projects", body }),
    );
  }

  /** headProject: whether a project with this exact name exists. */
  async exists(name: string, opts?: CallOptions): Promise<boolean> {
    try {
      await this.#t.noContent({
        ...opts,
        operation: "headProject",
        method: "HEAD",
        path: "/projects",
        query: { project_name: name },
      });
      return true;
    } catch (e) {
      if (isHarborError(e, "notFound")) return false;
      throw e;
    }
  }

  /** listProjects: every page. */
  list(params: ProjectListParams = {}, opts?: CallOptions): Promise<PersistedProject[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listProjects",
        method: "GET",
        path: "/projects",
        query: {
          name: params.name,
          owner: params.owner,
          public: params.public,
          with_detail: params.withDetail,
          ...listQuery(params),
        },
      },
      PersistedProject,
    );
  }

  /** getProject */
  get(project: ProjectRef, opts?: CallOptions): Promise<PersistedProject> {
    return this.#t.json(
      {
        ...opts,
        operation: "getProject",
        method: "GET",
        path: path`/projects/${project}`,
        headers: projectHeaders(project),
      },
      PersistedProject,
    );
  }

  /** updateProject: merges metadata keys; replaces the CVE allowlist when given. */
  update(project: ProjectRef, change: ProjectUpdate, opts?: CallOptions): Promise<void> {
    const body = ProjectUpdate.parse(change);
    return this.#t.noContent({
      ...opts,
      operation: "updateProject",
      method: "PUT",
      path: path`/projects/${project}`,
      headers: projectHeaders(project),
      body,
    });
  }

  /** deleteProject: fails with kind "precondition" while the project holds repositories. */
  delete(project: ProjectRef, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "deleteProject",
      method: "DELETE",
      path: path`/projects/${project}`,
      headers: projectHeaders(project),
    });
  }

  /** getProjectDeletable */
  deletable(project: ProjectRef, opts?: CallOptions): Promise<ProjectDeletable> {
    return this.#t.json(
      {
        ...opts,
        operation: "getProjectDeletable",
        method: "GET",
        path: path`/projects/${project}/_deletable`,
        headers: projectHeaders(project),
      },
      ProjectDeletable,
    );
  }

  /** getProjectSummary */
  summary(project: ProjectRef, opts?: CallOptions): Promise<ProjectSummary> {
    return this.#t.json(
      {
        ...opts,
        operation: "getProjectSummary",
        method: "GET",
        path: path`/projects/${project}/summary`,
        headers: projectHeaders(project),
      },
      ProjectSummary,
    );
  }

  /**
   * getLogs: the project's audit log, every page or the first `limit` entries (newest first unless
   * sorted). Name only. Harbor
   * 2.12 records project and robot creation and deletion and artifact, tag and repository events
   * here — not project updates, labels or webhook policies.
   */
  logs(
    projectName: string,
    filter: ListFilter & { limit?: number } = {},
    opts?: CallOptions,
  ): Promise<AuditLog[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "getLogs",
        method: "GET",
        path: path`/projects/${projectName}/logs`,
        query: listQuery(filter),
      },
      AuditLog,
      filter.limit,
    );
  }
}
