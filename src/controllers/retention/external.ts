// HarborRetentionPolicy's ExternalClient. Choices where Harbor leaves room:
// - Harbor keeps one policy per project, named by the project's metadata retention_id; the policy
//   is found through the project (one project read and one policy read), and the claim is the
//   project, so a second resource for the same project gets Conflict. A project the operator has
//   just created (not a proxy cache, which Harbor gives a policy) holds none: no read before the create.
// - A policy with no rules and no schedule is what Harbor's UI leaves when every rule is removed:
//   it counts as no policy. Creating onto it updates it (Harbor refuses a second POST for the
//   project), and deletion leaves the policy that way rather than DELETE /retentions/{id}, which
//   leaves the project's retention_id naming nothing: Harbor then refuses every new policy for the
//   project and answers 500 for the one named.
// - A project whose retention_id names a policy Harbor no longer has (500 on GET, 400 on its
//   executions) waits with reason RetentionPolicyLost, saying which metadata key to remove. A
//   resource being deleted has nothing left to delete then, nor when its project went meanwhile
//   (a bulk delete, where Harbor deletes the project first): it goes without a wait.
// - Status shows the newest execution; one that runs is looked at again every 1–5 s. The annotation
//   harborconfig.io/runRequestedAt starts one run, a dry run with spec.dryRun (see shared/run-now.ts).
//
// Harbor requests: observing costs three reads (the project, the policy, the newest execution), two
// for a resource being deleted (its executions do not matter then); the drift sweep one per policy
// (by its id, without the executions).

import type { HarborRetentionPolicySpec, HarborRetentionPolicyStatus } from "../../api/retention.ts";
import type { HarborClient } from "../../harbor/client.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { RetentionPolicy } from "../../harbor/retention.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { ResourceType } from "../../kube/types.ts";
import { forEachBounded, SWEEP_CONCURRENCY } from "../../runtime/bounded.ts";
import {
  type AfterSync,
  type ExternalClient,
  type ManagedObject,
  NotReady,
} from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { followDelayMs } from "../shared/executions.ts";
import { type FreshProjects, RETENTION_POLICY } from "../shared/fresh-projects.ts";
import { type ProjectScope, projectScope } from "../shared/project-scope.ts";
import { handleRunRequest } from "../shared/run-now.ts";
import {
  describe,
  diff,
  emptyRequest,
  isEmpty,
  isRunning,
  type ObservedRetention,
  policyRequest,
  runStatus,
  status,
  stored,
} from "./mapping.ts";

export interface RetentionExternalDeps {
  projects: Informer<ManagedObject>;
  kube: Pick<KubeClient, "patchStatus">;
  events: EventRecorder;
  type: ResourceType;
  now?: () => number;
  fresh?: FreshProjects;
}

/** The project names a policy Harbor no longer has. */
export const POLICY_LOST = "RetentionPolicyLost";

type Client = ExternalClient<
  HarborRetentionPolicySpec,
  ObservedRetention,
  HarborConnectionHandle,
  ProjectScope,
  HarborRetentionPolicyStatus
>;

export function retentionExternal(deps: RetentionExternalDeps): Client {
  const now = deps.now ?? Date.now;
  /** Resources whose last observe took "no policy" from a new project without asking Harbor. */
  const skipped = new Set<string>();
  const newestRun = async (client: HarborClient, id: number, signal: AbortSignal) =>
    (await client.retention.listExecutions(id, 1, { signal }))[0];

  /** The project's policy (with an empty one when `includeEmpty`), or undefined. */
  const projectPolicy = async (
    client: HarborClient,
    projectId: number,
    signal: AbortSignal,
  ): Promise<ObservedRetention | undefined> => {
    let project: Awaited<ReturnType<HarborClient["projects"]["get"]>>;
    try {
      project = await client.projects.get(projectId, { signal });
    } catch (e) {
      // The project is gone, and Harbor deleted its policy with it.
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
    const id = Number(project.metadata?.retention_id ?? "");
    if (!Number.isInteger(id) || id <= 0) return undefined;
    try {
      return { id, projectId, policy: await client.retention.get(id, { signal }) };
    } catch (e) {
      // Harbor answers 500 for a policy it does not have; its executions' listing says so with a 400.
      if (!isHarborError(e, "server")) throw e;
      const gone = await client.retention.listExecutions(id, 1, { signal }).then(
        () => false,
        (e2: unknown) => isHarborError(e2, "invalid"),
      );
      if (!gone) throw e;
      throw new NotReady(
        POLICY_LOST,
        `the project's metadata retention_id names retention policy ${id}, which Harbor no longer has (it was deleted with DELETE /retentions/${id}, which leaves retention_id behind); Harbor refuses every new policy for the project until that key is removed: DELETE /api/v2.0/projects/${projectId}/metadatas/retention_id, then this resource creates the policy`,
      );
    }
  };

  const withLastRun = async (client: HarborClient, o: ObservedRetention, signal: AbortSignal) => {
    const lastRun = await newestRun(client, o.id, signal);
    return lastRun ? { ...o, lastRun } : o;
  };

  return {
    async prepare({ resource, spec, conn }) {
      return projectScope(deps.projects, resource, spec, conn);
    },

    async observe({ resource, conn, knownId, extra, signal }) {
      const uid = resource.metadata.uid ?? "";
      skipped.delete(uid);
      if (knownId === undefined && deps.fresh?.firstLookup(conn.harbor, extra.projectId, RETENTION_POLICY)) {
        skipped.add(uid);
        return undefined;
      }
      const deleting = resource.metadata.deletionTimestamp !== undefined;
      let found: ObservedRetention | undefined;
      try {
        found = await projectPolicy(conn.client, extra.projectId, signal);
      } catch (e) {
        if (deleting && e instanceof NotReady && e.reason === POLICY_LOST) return undefined;
        throw e;
      }
      // Not managed yet: an empty policy is no policy.
      if (!found || (knownId === undefined && isEmpty(found.policy))) return undefined;
      return deleting ? found : withLastRun(conn.client, found, signal);
    },

    async create({ resource, conn, spec, extra, signal }) {
      const request = policyRequest(spec, extra.projectId);
      // The lookup the observe just skipped (a project of ours, new) is not made here either.
      const unlooked = skipped.delete(resource.metadata.uid ?? "");
      let existing = unlooked ? undefined : await projectPolicy(conn.client, extra.projectId, signal);
      if (!existing) {
        try {
          const id = await conn.client.retention.create(request, { signal });
          return { id, projectId: extra.projectId, policy: stored(id, request) };
        } catch (e) {
          // The new project got a policy while this one was being created, and Harbor refuses a
          // second: it is taken as this resource's, as the lifecycle takes any object found where
          // a create of its own may have happened (the finalizer is on, no id recorded yet).
          if (!unlooked || !isHarborError(e, "invalid")) throw e;
          existing = await projectPolicy(conn.client, extra.projectId, signal);
          if (!existing) throw e;
        }
      }
      await conn.client.retention.update(existing.id, request, { signal });
      return withLastRun(conn.client, { ...existing, policy: stored(existing.id, request) }, signal);
    },

    async update({ conn, spec, extra, signal }, current) {
      const request = policyRequest(spec, extra.projectId);
      await conn.client.retention.update(current.id, request, { signal });
      return { ...current, policy: stored(current.id, request) };
    },

    async delete({ conn, extra, signal }, current) {
      if (isEmpty(current.policy)) return;
      try {
        await conn.client.retention.update(current.id, emptyRequest(extra.projectId), { signal });
      } catch (e) {
        // Refused because the project went meanwhile, and its policy with it: nothing is left.
        const left = await projectPolicy(conn.client, extra.projectId, signal).then(
          (p) => p !== undefined,
          (e2: unknown) => !(e2 instanceof NotReady && e2.reason === POLICY_LOST),
        );
        if (left) throw e;
        return;
      }
      // What every deletion of a policy does (see the kind's docs): logged, not an Event.
      return {
        note: "Harbor keeps the project's policy record, with no rules and no schedule",
        routine: true,
      };
    },

    diff: ({ spec }, observed) => diff(spec, observed),
    id: (observed) => observed.id,
    identifies: ({ extra }, observed) => observed.projectId === extra.projectId,
    describe,
    status: (_input, observed) => status(observed),

    async afterSync(
      { conn, spec, resource, signal },
      observed,
    ): Promise<AfterSync<HarborRetentionPolicyStatus>> {
      const client = conn.client;
      const run = await handleRunRequest(deps, resource, {
        what: spec.dryRun ? "a tag-retention dry run" : "tag retention",
        newestId: async () => (await newestRun(client, observed.id, signal))?.id ?? 0,
        startedAfter: async (afterId) => {
          const recent = await client.retention.listExecutions(observed.id, 10, { signal });
          return recent
            .filter((e) => e.id > afterId && e.trigger === "MANUAL")
            .map((e) => e.id)
            .sort((a, b) => a - b)[0];
        },
        start: () => client.retention.trigger(observed.id, spec.dryRun, { signal }),
      });
      let lastRun = status(observed).lastRun;
      if (run.executionId !== undefined) {
        const found = (await client.retention.listExecutions(observed.id, 10, { signal })).find(
          (e) => e.id === run.executionId,
        );
        if (found) lastRun = runStatus(found);
      }
      return {
        status: { ...run.status, ...(lastRun ? { lastRun } : {}) },
        ...(isRunning(lastRun) ? { requeueAfterMs: followDelayMs(lastRun?.startTime, now()) } : {}),
      };
    },

    // The sweep reads each policy by its recorded id (one read per project; the project read that
    // finds a policy without its id is the reconcile's), and no executions: status.lastRun stays as
    // the last reconcile saw it.
    async observeMany(conn, inputs) {
      const out = new Map<number, ObservedRetention>();
      const known = inputs.filter((i) => i.knownId !== undefined);
      await forEachBounded(known, SWEEP_CONCURRENCY, async (i) => {
        const id = i.knownId as number;
        let policy: RetentionPolicy;
        try {
          policy = await conn.client.retention.get(id, { signal: i.signal });
        } catch (e) {
          // Gone with its project, or lost (Harbor's 500): its own reconcile says which.
          if (isHarborError(e, "server") || isHarborError(e, "notFound") || isHarborError(e, "forbidden"))
            return;
          throw e;
        }
        out.set(id, { id, projectId: policy.scope?.ref ?? i.extra.projectId, policy, runsRead: false });
      });
      return out;
    },

    // One policy per project.
    claim: (spec, _harborName, namespace) => `retention:${namespace}/${spec.projectRef.name}`,
  };
}
