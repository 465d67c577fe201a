// HarborLabel's ExternalClient: how a global or project label is observed, created, updated and
// deleted in Harbor.
// - A label is found by its exact name within its scope (global, or its project): Harbor's `name`
//   filter matches parts of names, so the exact one is picked from the answer.
// - Harbor stores a label as sent, so create and update need no read-back: a new label costs two
//   requests (the lookup and the create), a change one (the update).
// - Harbor's update replaces name, description and colour together: what the spec leaves unset is
//   sent as Harbor has it, so that it is not cleared.
// - A global label that a HarborReplicationPolicy of the cluster filters on (through a connection
//   to the same Harbor) is not deleted while the policy does: the deletion waits (DeletionBlocked),
//   naming the policies, and proceeds when they go or drop the label (the kind wiring queues it).
// - Tenancy: a project label needs its project; a global label is offered in every project, so
//   through a ClusterHarborConnection it needs every project (tenancy.projects "*").
// - The drift sweep reads one list per project with labels, and one list of the global labels.
import type { HarborLabelSpec, HarborLabelStatus } from "../../api/label.ts";
import type { HarborReplicationPolicySpec } from "../../api/replication.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { Label } from "../../harbor/labels.ts";
import { forEachBounded, SWEEP_CONCURRENCY } from "../../runtime/bounded.ts";
import {
  type ConnectionResolver,
  DeletionBlocked,
  type ExternalClient,
  type ManagedObject,
} from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import type { FreshProjects } from "../shared/fresh-projects.ts";
import { projectScope } from "../shared/project-scope.ts";
import { requireProjects } from "../shared/tenancy.ts";
import {
  created,
  createRequest,
  diff,
  identifies,
  type LabelPlace,
  type ObservedLabel,
  placeOf,
  policiesUsing,
  status,
  updated,
  updateRequest,
} from "./mapping.ts";

export interface LabelExtra {
  place: LabelPlace;
}

type Client = ExternalClient<
  HarborLabelSpec,
  ObservedLabel,
  HarborConnectionHandle,
  LabelExtra,
  HarborLabelStatus
>;

export interface LabelExternalDeps {
  projects: Informer<ManagedObject>;
  policies: Informer<ManagedObject>;
  connections: Pick<ConnectionResolver<HarborConnectionHandle>, "harborKey">;
  /** Projects just created: their first label lookup needs no list. */
  fresh?: FreshProjects;
}

/** Labels Harbor listed, those with an id (every stored one has). */
const stored = (labels: Label[]): ObservedLabel[] =>
  labels.filter((l): l is ObservedLabel => typeof l.id === "number");

export function labelExternal(deps: LabelExternalDeps): Client {
  const get = async (conn: HarborConnectionHandle, id: number, signal: AbortSignal) => {
    try {
      return { ...(await conn.client.labels.get(id, { signal })), id };
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  return {
    async prepare({ resource, spec, conn }) {
      const { projectRef, connectionRef } = spec;
      if (!projectRef) {
        requireProjects(conn, "all");
        return { place: placeOf(undefined) };
      }
      const { projectId } = projectScope(deps.projects, resource, { projectRef, connectionRef }, conn);
      return { place: placeOf(projectId) };
    },

    async observe({ conn, knownId, harborName, extra, signal }) {
      if (knownId !== undefined) return get(conn, knownId, signal);
      const { scope, projectId } = extra.place;
      if (scope === "p" && deps.fresh?.firstLookup(conn.harbor, projectId, "label")) return undefined;
      const found = await conn.client.labels.list(
        { scope, ...(scope === "p" ? { projectId } : {}), name: harborName },
        { signal },
      );
      return stored(found).find((l) => l.name === harborName);
    },

    async create({ conn, spec, harborName, extra, signal }) {
      const request = createRequest(spec, harborName, extra.place);
      const id = await conn.client.labels.create(request, { signal });
      return created(id, request);
    },

    async update({ conn, spec, harborName, signal }, current) {
      const request = updateRequest(spec, harborName, current);
      await conn.client.labels.update(current.id, request, { signal });
      return updated(current, request);
    },

    async delete({ conn, harborName, extra, signal }, current) {
      const users = policiesUsing(
        harborName,
        extra.place,
        deps.policies.list().map((p) => {
          const spec = (p.spec ?? {}) as HarborReplicationPolicySpec;
          const ns = p.metadata.namespace ?? "";
          return {
            key: `${ns}/${p.metadata.name}`,
            spec,
            sameHarbor: deps.connections.harborKey(ns, spec.connectionRef) === conn.harbor,
          };
        }),
      );
      if (users.length) {
        throw new DeletionBlocked(
          `the label filter of HarborReplicationPolicy ${users.join(", ")} names the label, and deleting it (Harbor takes it off every artifact) would change what the policy replicates. Remove it from the filter or delete the policy, and this deletion proceeds; or set deletionPolicy: Orphan`,
        );
      }
      try {
        await conn.client.labels.delete(current.id, { signal });
      } catch (e) {
        if (!isHarborError(e, "notFound")) throw e;
      }
      return { note: "Harbor also removed it from every artifact that carried it" };
    },

    diff: ({ spec }, observed) => diff(spec, observed),
    id: (observed) => observed.id,
    identifies: ({ harborName, extra }, observed) => identifies(harborName, extra.place, observed),
    status: (_input, observed) => status(observed),

    async observeMany(conn, inputs) {
      const found = new Map<number, ObservedLabel>();
      const places = new Map<string, LabelPlace>();
      for (const i of inputs) places.set(`${i.extra.place.scope}/${i.extra.place.projectId}`, i.extra.place);
      await forEachBounded(places.values(), SWEEP_CONCURRENCY, async ({ scope, projectId }) => {
        let labels: Label[];
        try {
          labels = await conn.client.labels.list({ scope, ...(scope === "p" ? { projectId } : {}) });
        } catch (e) {
          // The project is gone: its labels are missing, which their reconciles handle.
          if (scope === "p" && (isHarborError(e, "notFound") || isHarborError(e, "forbidden"))) return;
          throw e;
        }
        for (const l of stored(labels)) found.set(l.id, l);
      });
      return found;
    },

    // Unique per scope: global names once per Harbor, project names once per project.
    claim: (spec, harborName, namespace) =>
      spec.projectRef
        ? `label:p:${namespace}/${spec.projectRef.name}/${harborName}`
        : `label:g:${harborName}`,
  };
}
