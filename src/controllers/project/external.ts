// HarborProject's ExternalClient: how a project is observed, created, updated and deleted in Harbor.
//
// The project's storage limit lives in its quota, which Harbor keeps apart from the project (project
// PUT ignores storage_limit): it is read with the project, compared with spec.storageLimit and set
// with PUT /quotas/{id}. Reading and changing quotas needs system access; a connection without it
// reads the limit from the project summary instead (project members may see it there), and a limit
// it cannot set is reported as not applied, with Harbor's answer, never as in sync.
//
// Harbor requests, with system access: observing a project costs two reads (the project and its
// quota); creating one costs the create and one read (its quota, which names the project too), so
// a new project converges in three with the lookup before it; the drift sweep lists the projects by
// id and the project quotas page by page (or, when fewer, one lookup per project). Without system
// access each quota read is a refused one plus the summary. Deleting one reads the project only.
//
// A project whose spec names its scanner (spec.scanner) costs one more read wherever it is observed,
// its scanner (Harbor has no list of project scanners), and one write when the scanner differs.
import type { HarborProjectSpec, HarborProjectStatus } from "../../api/project.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { q } from "../../harbor/query.ts";
import { quotaProjectId } from "../../harbor/quotas.ts";
import {
  DeletionBlocked,
  type ExternalClient,
  type ManagedObject,
  Stalled,
} from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import { INVALID_SPEC } from "../../runtime/invalid-spec.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { NotApplied } from "../shared/errors.ts";
import { type FreshProjects, RETENTION_POLICY } from "../shared/fresh-projects.ts";
import { resolveReference } from "../shared/references.ts";
import { requireProjects } from "../shared/tenancy.ts";
import {
  createRequest,
  diff,
  forRelease,
  type ObservedProject,
  type ObservedProjectScanner,
  type ObservedQuota,
  quotaFromList,
  quotaFromSummary,
  scannerDrift,
  scannerStatus,
  status,
  storageLimitBytes,
  unchangeable,
  updateRequest,
} from "./mapping.ts";

export interface ProjectExtra {
  /** The Harbor id of the proxy-cache registry, when the project is a proxy cache. */
  registryId?: number;
  /** The registration spec.scanner.registrationRef names, as its resource records it. */
  scanner?: ObservedProjectScanner;
}

type Client = ExternalClient<
  HarborProjectSpec,
  ObservedProject,
  HarborConnectionHandle,
  ProjectExtra,
  HarborProjectStatus
>;

/** What a refused quota change needs, for the condition message. */
const QUOTA_ACCESS =
  "Harbor lets only system administrators, and system robots with quota permissions, change a project's storage limit";

export function projectExternal(deps: {
  registries: Informer<ManagedObject>;
  scanners: Informer<ManagedObject>;
  /** Told of every project created, so that other kinds skip their first lookup in it. */
  fresh?: FreshProjects;
}): Client {
  const getProject = async (conn: HarborConnectionHandle, ref: number | string, signal: AbortSignal) => {
    try {
      return await conn.client.projects.get(ref, { signal });
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  /**
   * The project's quota: from /quotas (system access), else from the summary; undefined when
   * neither shows it (Harbor with per-project quotas off, or a caller who may not read them).
   */
  const readQuota = async (
    conn: HarborConnectionHandle,
    projectId: number,
    signal: AbortSignal,
  ): Promise<ObservedQuota | undefined> => {
    try {
      const quota = await conn.client.quotas.ofProject(projectId, { signal });
      return quota && quotaFromList(quota);
    } catch (e) {
      if (!isHarborError(e, "forbidden")) throw e;
    }
    return readSummaryQuota(conn, projectId, signal);
  };

  const observeProject = async (
    conn: HarborConnectionHandle,
    ref: number | string,
    signal: AbortSignal,
  ): Promise<ObservedProject | undefined> => {
    const project = await getProject(conn, ref, signal);
    if (!project) return undefined;
    const quota = await readQuota(conn, project.project_id, signal);
    return quota ? { ...project, quota } : project;
  };

  /**
   * A new project as status needs it. Its quota's reference carries the project's id, name and
   * owner, so with system access one read shows both (a new project holds no repositories); the
   * project's settings are compared from the next reconcile on. Without it: the project and its
   * quota as observe reads them.
   */
  const readBack = async (
    conn: HarborConnectionHandle,
    id: number,
    signal: AbortSignal,
  ): Promise<ObservedProject | undefined> => {
    try {
      const quota = await conn.client.quotas.ofProject(id, { signal });
      if (!quota) return observeProject(conn, id, signal);
      const ref = quota.ref ?? {};
      return {
        project_id: id,
        ...(typeof ref.name === "string" ? { name: ref.name } : {}),
        ...(typeof ref.owner_name === "string" ? { owner_name: ref.owner_name } : {}),
        repo_count: 0,
        quota: quotaFromList(quota),
      };
    } catch (e) {
      if (!isHarborError(e, "forbidden")) throw e;
    }
    return observeProject(conn, id, signal);
  };

  /** PUT /quotas/{id} with the spec's limit; what Harbor refuses names the field. */
  const applyStorageLimit = async (
    conn: HarborConnectionHandle,
    project: ObservedProject,
    bytes: number,
    signal: AbortSignal,
  ): Promise<ObservedQuota> => {
    const projectId = project.project_id;
    try {
      const id = project.quota?.id ?? (await conn.client.quotas.ofProject(projectId, { signal }))?.id;
      if (id === undefined)
        throw new Error(`Harbor has no quota for project ${project.name} (id ${projectId})`);
      await conn.client.quotas.update(id, { storage: bytes }, { signal });
      return { ...project.quota, id, hard: bytes };
    } catch (e) {
      throw new NotApplied("storageLimit", e, isHarborError(e, "forbidden") ? QUOTA_ACCESS : undefined);
    }
  };

  /** The scanner Harbor answers for the project: its own, else the default; null for none at all. */
  const readScanner = async (
    conn: HarborConnectionHandle,
    projectId: number,
    signal?: AbortSignal,
  ): Promise<ObservedProjectScanner | null> => {
    const r = await conn.client.scanners.getOfProject(projectId, signal ? { signal } : {});
    if (!r?.uuid) return null;
    return { uuid: r.uuid, name: r.name, isDefault: r.is_default === true };
  };

  /**
   * Sets the project's scanner: the referenced registration, or Harbor's default one (Harbor
   * cannot unset a project's own scanner, so following the default means setting it); what the
   * project scans with then. What Harbor refuses names the field.
   */
  const applyScanner = async (
    conn: HarborConnectionHandle,
    projectId: number,
    wanted: ObservedProjectScanner | undefined,
    signal: AbortSignal,
  ): Promise<ObservedProjectScanner | null> => {
    try {
      let target = wanted;
      if (!target) {
        // The candidates are every registration, for the project's own admins too.
        const all = await conn.client.scanners.listCandidatesOfProject(projectId, {}, { signal });
        const d = all.find((r) => r.is_default === true && r.uuid);
        if (!d?.uuid) return null;
        target = { uuid: d.uuid, name: d.name, isDefault: true };
      }
      await conn.client.scanners.setOfProject(projectId, target.uuid, { signal });
      return target;
    } catch (e) {
      throw new NotApplied("scanner", e);
    }
  };

  return {
    async prepare({ resource, spec, conn, harborName }) {
      requireProjects(conn, [harborName]);
      // The registry only matters for creation; a project being deleted must not wait on it (the
      // registry may be going too, and Harbor keeps it while this proxy project exists). Nor on its
      // scanner.
      if (resource.metadata.deletionTimestamp) return {};
      const extra: ProjectExtra = {};
      if (spec.proxyCache) {
        const registry = resolveReference(
          deps.registries,
          resource,
          spec.proxyCache.registryRef,
          spec.connectionRef,
          conn.harbor,
        );
        extra.registryId = registry.harborId;
      }
      const scannerRef = spec.scanner?.registrationRef;
      if (scannerRef) {
        const r = resolveReference<string>(
          deps.scanners,
          resource,
          scannerRef,
          spec.connectionRef,
          conn.harbor,
        );
        extra.scanner = {
          uuid: r.harborId,
          name: r.harborName,
          isDefault: r.object.status?.isDefault === true,
        };
      }
      return extra;
    },

    async observe({ resource, conn, knownId, harborName, spec, signal }) {
      // A project being deleted needs only its id and name: its quota and scanner are not read.
      if (resource.metadata.deletionTimestamp) return getProject(conn, knownId ?? harborName, signal);
      const project = await observeProject(conn, knownId ?? harborName, signal);
      if (project && spec.scanner) project.scanner = await readScanner(conn, project.project_id, signal);
      return project;
    },

    // Harbor refuses a taken project name (409), and a user who may not create projects (403) may
    // still adopt one: a new project is created without a lookup first.
    refusedAsExisting: (e) => isHarborError(e, "conflict") || isHarborError(e, "forbidden"),

    async create({ conn, spec: asked, harborName, extra, signal }) {
      const spec = forRelease(asked, conn.harborVersion);
      const id = await conn.client.projects.create(createRequest(spec, harborName, extra.registryId), {
        signal,
      });
      // Harbor gives a proxy-cache project a retention policy of its own (images not pulled for 7 days).
      deps.fresh?.created(conn.harbor, id, spec.proxyCache ? [RETENTION_POLICY] : []);
      // Harbor ignores a CVE allowlist on create.
      if (spec.cveAllowlist) await conn.client.projects.update(id, updateRequest(spec, id), { signal });
      const created = await readBack(conn, id, signal);
      if (!created) throw new Error(`project ${harborName} (id ${id}) vanished right after creation`);
      // Harbor puts its default limit in place of a non-admin's: set it, or say why not.
      const want = storageLimitBytes(spec);
      if (want !== undefined && created.quota?.hard !== want) {
        created.quota = await applyStorageLimit(conn, created, want, signal);
      }
      // A new project has no scanner of its own: it scans with Harbor's default.
      if (spec.scanner?.registrationRef)
        created.scanner = await applyScanner(conn, id, extra.scanner, signal);
      else if (spec.scanner) created.scanner = await readScanner(conn, id, signal);
      return created;
    },

    async update({ conn, spec: asked, extra, signal }, current, drift) {
      const spec = forRelease(asked, conn.harborVersion);
      const problem = unchangeable(spec, current, drift);
      if (problem) {
        throw new Stalled(drift.includes("proxyCache") ? "ProxyCacheMismatch" : INVALID_SPEC, problem);
      }
      const id = current.project_id;
      let observed = current;
      if (drift.some((f) => f !== "storageLimit" && f !== "scanner")) {
        await conn.client.projects.update(id, updateRequest(spec, id), { signal });
        observed = {
          ...((await getProject(conn, id, signal)) ?? current),
          quota: current.quota,
          ...(current.scanner === undefined ? {} : { scanner: current.scanner }),
        };
      }
      if (drift.includes("scanner"))
        observed = { ...observed, scanner: await applyScanner(conn, id, extra.scanner, signal) };
      const want = storageLimitBytes(spec);
      if (drift.includes("storageLimit") && want !== undefined) {
        // Harbor stores the number as sent: no read-back needed.
        observed = { ...observed, quota: await applyStorageLimit(conn, observed, want, signal) };
      }
      return observed;
    },

    async delete({ conn, signal }, current) {
      try {
        await conn.client.projects.delete(current.project_id, { signal });
      } catch (e) {
        if (isHarborError(e, "notFound")) return;
        if (isHarborError(e, "precondition")) {
          throw new DeletionBlocked(
            `Harbor keeps the project: ${e.harborMessage ?? "it is not empty"}. Empty it, or set deletionPolicy: Orphan`,
          );
        }
        throw e;
      }
    },

    diff: ({ spec, extra, conn }, observed) => [
      ...diff(forRelease(spec, conn.harborVersion), observed, extra.registryId),
      ...scannerDrift(spec, observed.scanner, extra.scanner?.uuid),
    ],
    id: (observed) => observed.project_id,
    identifies: ({ harborName }, observed) => observed.name === harborName,
    status: ({ spec }, observed) => ({ ...status(observed), ...scannerStatus(spec, observed.scanner) }),

    async observeMany(conn, inputs) {
      const ids = inputs.map((i) => i.knownId).filter((id): id is number => id !== undefined);
      const found = new Map<number, ObservedProject>();
      for (let i = 0; i < ids.length; i += 100) {
        const chunk = ids.slice(i, i + 100);
        for (const p of await conn.client.projects.list({ q: q().union("project_id", chunk) })) {
          found.set(p.project_id, p);
        }
      }
      let quotas = await quotasOf(conn, [...found.keys()]);
      if (quotas === "forbidden") {
        // Without system access: the summaries of the projects whose limit the spec sets.
        quotas = new Map();
        for (const i of inputs) {
          const id = i.knownId;
          if (id === undefined || i.spec.storageLimit === undefined || !found.has(id)) continue;
          const quota = await readSummaryQuota(conn, id);
          if (quota) quotas.set(id, quota);
        }
      }
      for (const [id, quota] of quotas) {
        const p = found.get(id);
        if (p) found.set(id, { ...p, quota });
      }
      // Harbor has no list of project scanners: one read for each project whose spec names one.
      for (const i of inputs) {
        const p = i.knownId === undefined ? undefined : found.get(i.knownId);
        if (p && i.spec.scanner)
          found.set(p.project_id, { ...p, scanner: await readScanner(conn, p.project_id) });
      }
      // A project whose limit the spec sets is not reported without its quota (it would count as
      // drift): left out, its reconcile reads it afresh, and says why if it still cannot.
      for (const i of inputs) {
        const id = i.knownId;
        if (id !== undefined && i.spec.storageLimit !== undefined && found.get(id)?.quota === undefined)
          found.delete(id);
      }
      return found;
    },

    claim: (_spec, harborName) => `project:${harborName}`,
  };
}

/**
 * The quotas of these projects in as few reads as the API allows. Harbor filters its quota list
 * by one project at a time, so the list of every project quota is read page by page (oldest first,
 * so that projects created meanwhile do not shift earlier pages); once the projects still missing
 * are no more than the pages already read, one lookup each is cheaper than reading on.
 * "forbidden" without system access.
 */
async function quotasOf(
  conn: HarborConnectionHandle,
  ids: number[],
): Promise<Map<number, ObservedQuota> | "forbidden"> {
  const out = new Map<number, ObservedQuota>();
  if (ids.length === 0) return out;
  const wanted = new Set(ids);
  const missing = () => ids.filter((id) => !out.has(id));
  try {
    let pages = 0;
    for await (const page of conn.client.quotas.pages({ reference: "project", sort: "creation_time" })) {
      pages++;
      for (const quota of page) {
        const id = quotaProjectId(quota);
        if (id !== undefined && wanted.has(id)) out.set(id, quotaFromList(quota));
      }
      if (missing().length <= pages) break;
    }
    const rest = missing();
    if (rest.length > pages) return out;
    for (const id of rest) {
      const quota = await conn.client.quotas.ofProject(id);
      if (quota) out.set(id, quotaFromList(quota));
    }
  } catch (e) {
    if (isHarborError(e, "forbidden")) return "forbidden";
    throw e;
  }
  return out;
}

/** The quota as the project summary shows it to project members; undefined when it does not. */
async function readSummaryQuota(
  conn: HarborConnectionHandle,
  projectId: number,
  signal?: AbortSignal,
): Promise<ObservedQuota | undefined> {
  try {
    return quotaFromSummary(await conn.client.projects.summary(projectId, signal ? { signal } : {}));
  } catch (e) {
    if (isHarborError(e, "forbidden")) return undefined;
    throw e;
  }
}
