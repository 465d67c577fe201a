// HarborReplicationPolicy's ExternalClient: how a replication policy is observed, created, updated
// and deleted in Harbor, and how its last execution reaches the status. Choices where Harbor
// leaves room:
// - The remote side is a HarborRegistry reference that waits (DependencyNotReady) until the registry
//   is Ready; the local side is Harbor itself (registry id 0). A resource being deleted does not
//   need its registry (it may be going away at the same time), only the policy's id.
// - runOnCreate starts one execution right after the policy is created, at most once: a start that
//   fails is not repeated (Harbor cannot tell whether a lost start went through), and an adopted
//   policy is never started.
// - status.lastExecution comes from one list call for the policy after each sync. While that
//   execution is InProgress the resource is looked at again after a quarter of its running time
//   (1 s to 15 s) until it ends, and its end is an Event (ReplicationSucceeded, ReplicationFailed,
//   ReplicationStopped) with the task counts. A policy that Harbor runs by itself (scheduled,
//   event_based) is looked at every --status-refresh-interval as well, so the end of such a run
//   reaches the status and an Event within that interval.
// - Harbor refuses to delete a policy while an execution runs (412). Users expect delete to work,
//   so the running executions are stopped first and the delete is tried again; if Harbor still
//   refuses (stopping takes effect asynchronously), the deletion waits with Harbor's message.
// - A new value of the annotation harborconfig.io/runRequestedAt starts one execution, exactly once
//   even across crashes (see shared/run-now.ts); on a disabled policy it is refused (Harbor would
//   answer 412) and recorded as such, never deferred to a later enable. A policy created with
//   runOnCreate whose manifest also carries the annotation starts one execution for both.
// - Harbor requests: a new policy converges in two (the create, which Harbor refuses for a taken
//   name, and its read-back for Harbor's encoding of filters and trigger); only a refused create is
//   followed by the lookup by name, and then the usual adoption rules decide.
import type { HarborReplicationPolicySpec, HarborReplicationPolicyStatus } from "../../api/replication.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { q } from "../../harbor/query.ts";
import type { PersistedReplicationExecution, PersistedReplicationPolicy } from "../../harbor/replication.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { ResourceType } from "../../kube/types.ts";
import {
  type AfterSync,
  DeletionBlocked,
  type ExternalClient,
  type ManagedObject,
} from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { resolveReference } from "../shared/references.ts";
import { handleRunRequest, pendingRunRequest } from "../shared/run-now.ts";
import { requireProjects } from "../shared/tenancy.ts";
import {
  diff,
  executionOutcome,
  executionStatus,
  followDelayMs,
  isRunning,
  policyRequest,
  replicatedProjects,
} from "./mapping.ts";

export interface ReplicationExtra {
  /** The remote registry's Harbor id; absent while the resource is being deleted. */
  registryId?: number;
}

export interface ReplicationExternalDeps {
  registries: Informer<ManagedObject>;
  events: EventRecorder;
  /** For the run-now record, written before the run starts. */
  kube: Pick<KubeClient, "patchStatus">;
  type: ResourceType;
  /** How often a policy Harbor runs by itself is looked at for new executions. */
  statusRefreshMs: number;
  now?: () => number;
}

type Client = ExternalClient<
  HarborReplicationPolicySpec,
  PersistedReplicationPolicy,
  HarborConnectionHandle,
  ReplicationExtra,
  HarborReplicationPolicyStatus
>;

export function replicationExternal(deps: ReplicationExternalDeps): Client {
  const now = deps.now ?? Date.now;
  const get = async (conn: HarborConnectionHandle, id: number, signal: AbortSignal) => {
    try {
      return await conn.client.replication.getPolicy(id, { signal });
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  /** The remote registry's id; only prepare leaves it unset, for a resource being deleted. */
  const registryIdOf = (extra: ReplicationExtra) => {
    if (extra.registryId === undefined) throw new Error("the registry reference was not resolved");
    return extra.registryId;
  };

  /** Stops the policy's running executions; true when there were any. */
  const stopRunning = async (conn: HarborConnectionHandle, id: number, signal: AbortSignal) => {
    const running = await conn.client.replication.listExecutions(
      { policyId: id, status: "InProgress" },
      { signal },
    );
    for (const e of running) await conn.client.replication.stop(e.id, { signal });
    return running.length > 0;
  };

  return {
    async prepare({ resource, spec, conn }) {
      requireProjects(conn, replicatedProjects(spec));
      if (resource.metadata.deletionTimestamp) return {};
      const registry = resolveReference(
        deps.registries,
        resource,
        spec.registryRef,
        spec.connectionRef,
        conn.harbor,
      );
      return { registryId: registry.harborId };
    },

    async observe({ conn, knownId, harborName, signal }) {
      if (knownId !== undefined) return get(conn, knownId, signal);
      // Harbor's `name` filter matches any name (q cannot express a comma); the exact one is picked here.
      const found = await conn.client.replication.listPolicies({ name: harborName }, { signal });
      return found.find((p) => p.name === harborName);
    },

    // Harbor refuses a taken policy name (409): a new policy is created without a lookup first.
    refusedAsExisting: (e) => isHarborError(e, "conflict"),

    async create({ conn, spec, harborName, extra, signal }) {
      const id = await conn.client.replication.createPolicy(
        policyRequest(spec, harborName, registryIdOf(extra)),
        { signal },
      );
      const created = await get(conn, id, signal);
      if (!created)
        throw new Error(`replication policy ${harborName} (id ${id}) vanished right after creation`);
      return created;
    },

    async update({ conn, spec, harborName, extra, signal }, current) {
      const id = current.id;
      await conn.client.replication.updatePolicy(
        id,
        policyRequest(spec, harborName, registryIdOf(extra), current),
        { signal },
      );
      return (await get(conn, id, signal)) ?? current;
    },

    async delete({ conn, signal }, current) {
      const id = current.id;
      const attempt = async () => {
        try {
          await conn.client.replication.deletePolicy(id, { signal });
          return undefined;
        } catch (e) {
          if (isHarborError(e, "notFound")) return undefined;
          if (isHarborError(e, "precondition")) return e.harborMessage ?? "an execution is still running";
          throw e;
        }
      };
      const refused = await attempt();
      if (refused === undefined) return;
      const stillRefused = (await stopRunning(conn, id, signal)) ? await attempt() : refused;
      if (stillRefused !== undefined) {
        throw new DeletionBlocked(
          `Harbor keeps the replication policy while an execution runs: ${stillRefused}. Its running executions were asked to stop; retrying`,
        );
      }
    },

    diff: ({ spec, harborName, extra }, observed) => diff(spec, harborName, registryIdOf(extra), observed),
    id: (observed) => observed.id,
    identifies: ({ harborName }, observed) => observed.name === harborName,

    // The return type is declared so that the status literal below is checked field by field.
    async afterSync(
      { conn, spec, signal, resource },
      observed,
      created,
    ): Promise<AfterSync<HarborReplicationPolicyStatus>> {
      // Runs Harbor starts by itself are found by looking again now and then.
      const refresh =
        spec.trigger.type === "manual"
          ? {}
          : { requeueAfterMs: Math.round(deps.statusRefreshMs * (0.9 + Math.random() * 0.2)) };
      const client = conn.client;
      const newest = async () =>
        (
          await client.replication.listExecutions(
            { policyId: observed.id, sort: "-start_time,-id", limit: 1 },
            { signal },
          )
        )[0];
      let last: PersistedReplicationExecution | undefined;
      let requested: Awaited<ReturnType<typeof handleRunRequest>> = {};
      if (created) {
        // A new policy has no executions; only the one runOnCreate starts, which begins InProgress.
        if (!spec.runOnCreate) {
          if (pendingRunRequest(resource) === undefined) return refresh;
        } else {
          const id = await client.replication.start(observed.id, { signal });
          last = { id, policy_id: observed.id, status: "InProgress", trigger: "manual" };
        }
      }
      const startedOnCreate = last?.id;
      requested = await handleRunRequest(deps, resource, {
        what: "a replication",
        // Below the run runOnCreate started, so that a crash before its record finds that run.
        newestId: async () =>
          startedOnCreate !== undefined ? startedOnCreate - 1 : ((await newest())?.id ?? 0),
        startedAfter: async (afterId) => {
          const recent = await client.replication.listExecutions(
            { policyId: observed.id, trigger: "manual", sort: "-start_time,-id", limit: 10 },
            { signal },
          );
          return recent
            .map((e) => e.id)
            .filter((id) => id > afterId)
            .sort((a, b) => a - b)[0];
        },
        // The run runOnCreate just started serves a request made in the same manifest.
        start: async () => startedOnCreate ?? (await client.replication.start(observed.id, { signal })),
        refusal: spec.enabled
          ? undefined
          : "the policy is disabled (spec.enabled: false), and Harbor runs no disabled policy; enable it and set a new value",
      });
      if (requested.executionId !== undefined && requested.executionId !== startedOnCreate)
        last = await client.replication.getExecution(requested.executionId, { signal });
      // The newest execution only: one page of one, however long the history.
      if (!last) last = await newest();
      if (!last) return requested.status ? { ...refresh, status: requested.status } : refresh;
      const outcome = executionOutcome(
        resource.status?.lastExecution as { id?: number; status?: string } | undefined,
        last,
      );
      if (outcome) deps.events.record(resource, outcome.type, outcome.reason, outcome.message);
      return {
        status: { ...requested.status, lastExecution: executionStatus(last) },
        ...(isRunning(last) ? { requeueAfterMs: followDelayMs(last, now()) } : refresh),
      };
    },

    async observeMany(conn, inputs) {
      const ids = inputs.map((i) => i.knownId).filter((id): id is number => id !== undefined);
      const found = new Map<number, PersistedReplicationPolicy>();
      for (let i = 0; i < ids.length; i += 100) {
        const chunk = ids.slice(i, i + 100);
        for (const p of await conn.client.replication.listPolicies({ q: q().union("id", chunk) })) {
          found.set(p.id, p);
        }
      }
      return found;
    },

    claim: (_spec, harborName) => `replication:${harborName}`,
  };
}
