// HarborReplicationRun's Harbor side: how one execution of a replication policy is started, found
// again, read and stopped. Choices where Harbor leaves room:
// - The policy is a HarborReplicationPolicy reference: the run waits (DependencyNotReady) until it
//   is Ready; once the execution exists, the recorded policy id is enough.
// - Harbor refuses to start a disabled policy (412): the run waits with reason PolicyDisabled and
//   looks again, instead of failing. It reads the policy first, so a disabled one costs no refusal.
// - After an interrupted start the run looks for a manual execution of the policy above the newest
//   id it recorded that no other run owns.
// - An execution Harbor marks Failed with "Execution skipped…" (single active replication, 2.13+)
//   ends the run as Skipped: it did not run, it did not fail.
// - When the execution has ended with failed tasks, the newest of them (at most 5) and the end of
//   their logs are read once, for status.failedTasks.
import type { HarborReplicationRunSpec, HarborReplicationRunStatus } from "../../api/replication-run.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { PersistedReplicationExecution } from "../../harbor/replication.ts";
import { type ManagedObject, NotReady } from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import { DEPENDENCY_NOT_READY } from "../../runtime/managed.ts";
import type { RunExternal } from "../../runtime/run-external.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { crashPoint } from "../shared/crash.ts";
import { resolveReference } from "../shared/references.ts";
import { FAILED_TASKS, failedTask, replicationOutcome } from "./mapping.ts";

/** The reason of a run whose policy Harbor will not run now: it is disabled. */
export const POLICY_DISABLED = "PolicyDisabled";

export interface ReplicationRunExtra {
  /**
   * The policy's Harbor id. Undefined only for a run being deleted whose policy is gone and that
   * recorded none: nothing of it can be found then (Harbor deletes a policy's executions with it).
   */
  policyId: number | undefined;
}

type External = RunExternal<
  HarborReplicationRunSpec,
  PersistedReplicationExecution,
  HarborConnectionHandle,
  ReplicationRunExtra,
  HarborReplicationRunStatus
>;

/** The policy id, which only a deletion may go without. */
function required(extra: ReplicationRunExtra): number {
  if (extra.policyId === undefined) throw new Error("the policy reference was not resolved");
  return extra.policyId;
}

export function replicationRunExternal(deps: { policies: Informer<ManagedObject> }): External {
  const policyName = (spec: HarborReplicationRunSpec) => `"${spec.policyRef.name}"`;
  const disabled = (spec: HarborReplicationRunSpec, why: string) =>
    new NotReady(
      POLICY_DISABLED,
      `HarborReplicationPolicy ${policyName(spec)} is disabled in Harbor (${why}): this run starts once the policy is enabled`,
    );

  return {
    async prepare({ resource, spec, conn }) {
      const recorded = resource.status?.policyId;
      // Once Harbor has the execution (or is being asked to stop it), its policy id is enough.
      if (
        typeof recorded === "number" &&
        (resource.status?.harborId !== undefined || resource.metadata.deletionTimestamp)
      )
        return { policyId: recorded };
      const policy = resolveReference(
        deps.policies,
        resource,
        spec.policyRef,
        spec.connectionRef,
        conn.harbor,
      );
      return { policyId: policy.harborId };
    },

    async blocker({ spec, conn, extra, signal }) {
      const policyId = required(extra);
      try {
        const policy = await conn.client.replication.getPolicy(policyId, { signal });
        if (policy.enabled !== true)
          return { reason: POLICY_DISABLED, message: disabled(spec, "enabled: false").message };
        return undefined;
      } catch (e) {
        if (!isHarborError(e, "notFound")) throw e;
        return {
          reason: DEPENDENCY_NOT_READY,
          message: `HarborReplicationPolicy ${policyName(spec)} (id ${policyId}) is not in Harbor: it is being created again`,
        };
      }
    },

    async newestId({ conn, extra, signal }) {
      const recent = await conn.client.replication.listExecutions(
        { policyId: required(extra), limit: 10 },
        { signal },
      );
      return Math.max(0, ...recent.map((e) => e.id));
    },

    async startedAfter({ conn, extra, signal }, afterId) {
      if (extra.policyId === undefined) return [];
      const recent = await conn.client.replication.listExecutions(
        { policyId: extra.policyId, trigger: "manual", limit: 100 },
        { signal },
      );
      return recent.filter((e) => e.id > afterId && (e.trigger ?? "manual") === "manual");
    },

    async start({ spec, conn, extra, signal }) {
      let id: number;
      try {
        id = await conn.client.replication.start(required(extra), { signal });
      } catch (e) {
        if (isHarborError(e, "precondition"))
          throw disabled(spec, e.harborMessage ?? "Harbor refused to start it");
        throw e;
      }
      crashPoint("after-replication-run-start");
      return id;
    },

    async get({ conn, signal }, id) {
      try {
        return await conn.client.replication.getExecution(id, { signal });
      } catch (e) {
        if (isHarborError(e, "notFound")) return undefined;
        throw e;
      }
    },

    id: (e) => e.id,
    outcome: ({ spec }, e) => replicationOutcome(e, policyName(spec)),

    async details({ conn, signal }, e) {
      if (!e.failed) return {};
      const tasks = await conn.client.replication.listTasks(
        e.id,
        { status: "Failed", sort: "-end_time,-id", limit: FAILED_TASKS },
        { signal },
      );
      const failedTasks = [];
      for (const t of tasks) {
        let log: string | undefined;
        try {
          log = await conn.client.replication.getTaskLog(e.id, t.id, { signal });
        } catch (err) {
          if (!isHarborError(err, "notFound")) throw err;
        }
        failedTasks.push(failedTask(t, log));
      }
      return { failedTasks };
    },

    async stop({ conn, signal }, e) {
      try {
        await conn.client.replication.stop(e.id, { signal });
      } catch (err) {
        if (!isHarborError(err, "notFound")) throw err;
      }
    },

    name: ({ spec }, id) =>
      id === undefined
        ? `the execution of replication policy ${policyName(spec)} this run asked for`
        : `replication execution ${id} of policy ${policyName(spec)}`,
  };
}
