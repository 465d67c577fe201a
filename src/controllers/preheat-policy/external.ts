// HarborPreheatPolicy's ExternalClient: how a project's preheat policy is observed, created, updated
// and deleted in Harbor. Choices where Harbor leaves room:
// - A policy is found by its name in its project (Harbor's path names both); its id is recorded,
//   and an object of that name with another id is another policy now.
// - The provider is a HarborPreheatInstance referenced in the same namespace and through the same
//   connection: the policy waits (DependencyNotReady) until the instance is Ready, and sends its id.
//   The instance's deletion waits for the policies that use it (Harbor refuses it, 412).
// - Harbor's update replaces every field: what the spec leaves unset (description) is sent as Harbor
//   has it. Create and update are read back for the id and Harbor's encoding of the trigger.
// - Deleting a policy while one of its executions runs is refused by Harbor (412): the deletion
//   waits with Harbor's message. Deleting the project deletes its policies in Harbor.
// - Tenancy: through a ClusterHarborConnection, the project must be in tenancy.projects.
// - The scope is sent and compared where the connected release keeps it (mapping.ts); a scope the
//   release does not have (all_seed_peers before 2.13) is Stalled by name (UnsupportedByHarbor).
//
// Harbor requests: a new policy converges in two (the create, then the read-back); only a create
// refused for a taken name is followed by the lookup. One in sync costs one read; the drift sweep
// lists the policies once per project.

import type { HarborPreheatPolicySpec, HarborPreheatPolicyStatus } from "../../api/preheat-policy.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { forEachBounded, SWEEP_CONCURRENCY } from "../../runtime/bounded.ts";
import {
  DeletionBlocked,
  type ExternalClient,
  type ManagedObject,
  NotReady,
  Stalled,
} from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { harborRelease, UNSUPPORTED_BY_HARBOR } from "../shared/harbor-release.ts";
import { resolveReference } from "../shared/references.ts";
import { requireProjects } from "../shared/tenancy.ts";
import { diff, type ObservedPolicy, policyRequest, unsupportedScope } from "./mapping.ts";

export interface PreheatPolicyExtra {
  /** The project's Harbor name and id. */
  project: { name: string; id: number };
  /** The instance's Harbor id; absent while the resource is being deleted and the instance is gone. */
  instanceId?: number;
}

type Client = ExternalClient<
  HarborPreheatPolicySpec,
  ObservedPolicy,
  HarborConnectionHandle,
  PreheatPolicyExtra,
  HarborPreheatPolicyStatus
>;

export interface PreheatPolicyExternalDeps {
  projects: Informer<ManagedObject>;
  instances: Informer<ManagedObject>;
}

const withId = (p: { id?: number | undefined }): p is ObservedPolicy => typeof p.id === "number";

export function preheatPolicyExternal(deps: PreheatPolicyExternalDeps): Client {
  const get = async (conn: HarborConnectionHandle, project: string, name: string, signal: AbortSignal) => {
    try {
      const p = await conn.client.preheat.getPolicy(project, name, { signal });
      return withId(p) ? p : undefined;
    } catch (e) {
      // A project that is gone has no policies (Harbor deleted them with it).
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  return {
    async prepare({ resource, spec, conn }) {
      const deleting = resource.metadata.deletionTimestamp !== undefined;
      const recorded = resource.status as HarborPreheatPolicyStatus | undefined;
      const unsupported = deleting ? undefined : unsupportedScope(spec, harborRelease(conn));
      if (unsupported) throw new Stalled(UNSUPPORTED_BY_HARBOR, unsupported);
      let project: PreheatPolicyExtra["project"];
      try {
        const p = resolveReference(deps.projects, resource, spec.projectRef, spec.connectionRef, conn.harbor);
        project = { name: p.harborName, id: p.harborId };
      } catch (e) {
        // Being deleted with its project gone first: the names status recorded still find it.
        if (
          !deleting ||
          !(e instanceof NotReady) ||
          !recorded?.projectName ||
          recorded.projectId === undefined
        )
          throw e;
        project = { name: recorded.projectName, id: recorded.projectId };
      }
      requireProjects(conn, [project.name]);
      try {
        const i = resolveReference(
          deps.instances,
          resource,
          spec.instanceRef,
          spec.connectionRef,
          conn.harbor,
        );
        return { project, instanceId: i.harborId };
      } catch (e) {
        // The instance is not needed to delete the policy.
        if (deleting && e instanceof NotReady) return { project };
        throw e;
      }
    },

    async observe({ conn, harborName, extra, signal }) {
      return get(conn, extra.project.name, harborName, signal);
    },

    // Harbor refuses a name taken in the project (409): a new policy is created without a lookup.
    refusedAsExisting: (e) => isHarborError(e, "conflict"),

    async create({ conn, spec, harborName, extra, signal }) {
      const instanceId = requireInstance(extra);
      await conn.client.preheat.createPolicy(
        extra.project.name,
        policyRequest(spec, harborName, instanceId, harborRelease(conn)),
        {
          signal,
        },
      );
      const created = await get(conn, extra.project.name, harborName, signal);
      if (!created) throw new Error(`Harbor created preheat policy "${harborName}" but does not show it`);
      return created;
    },

    async update({ conn, spec, harborName, extra, signal }, current) {
      const instanceId = requireInstance(extra);
      await conn.client.preheat.updatePolicy(
        extra.project.name,
        harborName,
        policyRequest(spec, harborName, instanceId, harborRelease(conn), current),
        { signal },
      );
      return (await get(conn, extra.project.name, harborName, signal)) ?? current;
    },

    async delete({ conn, harborName, extra, signal }) {
      try {
        await conn.client.preheat.deletePolicy(extra.project.name, harborName, { signal });
      } catch (e) {
        if (isHarborError(e, "notFound")) return;
        if (isHarborError(e, "precondition"))
          throw new DeletionBlocked(
            `Harbor keeps the policy while one of its preheat executions runs (${e.harborMessage ?? "412"}); it proceeds when that ends`,
          );
        throw e;
      }
    },

    diff: ({ spec, harborName, extra, conn }, o) =>
      diff(spec, harborName, extra.instanceId, harborRelease(conn), o),
    identifies: ({ harborName, extra }, o) =>
      o.name === harborName && (o.project_id ?? extra.project.id) === extra.project.id,
    id: (o) => o.id,
    status: ({ extra }, o) => ({
      projectId: extra.project.id,
      projectName: extra.project.name,
      ...(o.provider_id === undefined ? {} : { instanceId: o.provider_id }),
    }),

    async observeMany(conn, inputs) {
      const found = new Map<number, ObservedPolicy>();
      const projects = new Set(inputs.map((i) => i.extra.project.name));
      await forEachBounded(projects, SWEEP_CONCURRENCY, async (project) => {
        try {
          for (const p of await conn.client.preheat.listPolicies(project)) if (withId(p)) found.set(p.id, p);
        } catch (e) {
          // The project is gone: its policies are missing, which their reconciles handle.
          if (isHarborError(e, "notFound") || isHarborError(e, "forbidden")) return;
          throw e;
        }
      });
      return found;
    },

    // Unique per project.
    claim: (spec, harborName, namespace) =>
      `preheat-policy:${namespace}/${spec.projectRef.name}/${harborName}`,
  };
}

function requireInstance(extra: PreheatPolicyExtra): number {
  if (extra.instanceId === undefined)
    throw new NotReady("DependencyNotReady", "the HarborPreheatInstance is not Ready");
  return extra.instanceId;
}
