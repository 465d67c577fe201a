// HarborProject's ExternalClient: how a project is observed, created, updated and deleted in Harbor.
import type { HarborProjectSpec } from "../../api/project.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { Project, ProjectSummary } from "../../harbor/projects.ts";
import { q } from "../../harbor/query.ts";
import type { Informer } from "../../runtime/informer.ts";
import { DeletionBlocked, type ExternalClient, type ManagedObject, Stalled } from "../../runtime/managed.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { resolveReference } from "../shared/references.ts";
import { requireProjects } from "../shared/tenancy.ts";
import {
  createRequest,
  diff,
  formatStorage,
  parseStorageQuantity,
  status,
  unsupportedFields,
  updateRequest,
} from "./mapping.ts";

/** Ready=False (Stalled) reason: the spec asks for what this Harbor release cannot store. */
export const UNSUPPORTED_BY_HARBOR = "UnsupportedByHarbor";

export interface ProjectExtra {
  /** The Harbor id of the proxy-cache registry, when the project is a proxy cache. */
  registryId?: number;
}

type Client = ExternalClient<HarborProjectSpec, Project, HarborConnectionHandle, ProjectExtra>;

export function projectExternal(deps: { registries: Informer<ManagedObject> }): Client {
  const get = async (conn: HarborConnectionHandle, ref: number | string, signal: AbortSignal) => {
    try {
      return await conn.client.projects.get(ref, { signal });
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  return {
    async prepare({ resource, spec, conn, harborName }) {
      requireProjects(conn, [harborName]);
      const unsupported = resource.metadata.deletionTimestamp
        ? []
        : unsupportedFields(spec, conn.harborVersion);
      if (unsupported.length) {
        const what = unsupported.map((u) => `spec.${u.field} needs Harbor ${u.since} or later`).join("; ");
        throw new Stalled(UNSUPPORTED_BY_HARBOR, `${what}; this Harbor is ${conn.harborVersion}`);
      }
      // The registry only matters for creation; a project being deleted must not wait on it (the
      // registry may be going too, and Harbor keeps it while this proxy project exists).
      if (!spec.proxyCache || resource.metadata.deletionTimestamp) return {};
      const registry = resolveReference(
        deps.registries,
        resource,
        spec.proxyCache.registryRef,
        spec.connectionRef,
        conn.harbor,
      );
      return { registryId: registry.harborId };
    },

    observe({ conn, knownId, harborName, signal }) {
      return get(conn, knownId ?? harborName, signal);
    },

    async create({ conn, spec, harborName, extra, signal }) {
      const id = await conn.client.projects.create(createRequest(spec, harborName, extra.registryId), {
        signal,
      });
      // Harbor ignores a CVE allowlist on create.
      if (spec.cveAllowlist) await conn.client.projects.update(id, updateRequest(spec, id), { signal });
      const created = await get(conn, id, signal);
      if (!created) throw new Error(`project ${harborName} (id ${id}) vanished right after creation`);
      return created;
    },

    async update({ conn, spec, signal }, current) {
      const id = current.project_id as number;
      await conn.client.projects.update(id, updateRequest(spec, id), { signal });
      return (await get(conn, id, signal)) ?? current;
    },

    async delete({ conn, signal }, current) {
      try {
        await conn.client.projects.delete(current.project_id as number, { signal });
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

    diff: ({ spec }, observed) => diff(spec, observed),
    id: (observed) => observed.project_id as number,
    identifies: ({ harborName }, observed) => observed.name === harborName,
    status: (_input, observed) => status(observed, undefined),

    async afterSync({ conn, spec, signal }, observed, created) {
      // Quota lives in the summary: one more read, skipped right after creation where the spec says it.
      if (created) {
        return {
          status: {
            quota: {
              hard: formatStorage(spec.storageLimit ? parseStorageQuantity(spec.storageLimit) : -1),
              used: "0",
            },
          },
        };
      }
      let summary: ProjectSummary | undefined;
      try {
        summary = await conn.client.projects.summary(observed.project_id as number, { signal });
      } catch (e) {
        if (!isHarborError(e, "forbidden")) throw e;
      }
      return { status: status(observed, summary) };
    },

    async observeMany(conn, inputs) {
      const ids = inputs.map((i) => i.knownId).filter((id): id is number => id !== undefined);
      const found = new Map<number, Project>();
      for (let i = 0; i < ids.length; i += 100) {
        const chunk = ids.slice(i, i + 100);
        for (const p of await conn.client.projects.list({ q: q().union("project_id", chunk) })) {
          if (p.project_id !== undefined) found.set(p.project_id, p);
        }
      }
      return found;
    },

    claim: (_spec, harborName) => `project:${harborName}`,
  };
}
