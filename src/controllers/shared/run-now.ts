// "Run now" (the harborconfig.io/runRequestedAt annotation): a new value starts exactly one run of
// the resource's Harbor job, and status.lastHandledRunAt records the value handled (Flux's
// requestedAt convention). Exactly one, even across crashes of the operator:
//
// 1. Before anything is started, status.runRequest records the value and the newest execution Harbor
//    has (afterExecutionId), written with the resourceVersion the decision was made on: a reconcile
//    that judged from an outdated copy of the resource fails there (409) and tries again on fresh
//    state, so two reconciles never both decide to start.
// 2. Then the run is started, and its id recorded with lastHandledRunAt.
// 3. A record without an execution id is a start that may have happened (a crash between 1 and 2, or
//    an answer lost on the way): the first manual execution after afterExecutionId is taken as the
//    one started, and another is started only when Harbor has none.
//
// A start Harbor refuses for good (400, 409, 412: a disabled replication policy, say) is recorded
// as refused, with a Warning Event; a new value asks again. Errors a retry may fix (a network
// error, a 5xx, missing permissions) leave the record pending and are retried like any other.
import { RUN_REQUESTED_ANNOTATION, type RunRequest } from "../../api/run-now.ts";
import { HarborError } from "../../harbor/errors.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { ResourceType } from "../../kube/types.ts";
import type { ManagedObject } from "../../runtime/external-client.ts";
import { crashPoint } from "./crash.ts";

/** Harbor refuses these starts for good: the same request again gets the same answer. */
const REFUSALS = new Set(["invalid", "conflict", "precondition"]);

export interface RunNowDeps {
  kube: Pick<KubeClient, "patchStatus">;
  events: EventRecorder;
  type: ResourceType;
  now?: () => number;
}

/** What the helper needs of one kind's job. */
export interface RunNowJob {
  /** What Events call the job, e.g. "garbage collection". */
  what: string;
  /** The id of the newest execution Harbor has of this job (0 when none). */
  newestId(): Promise<number>;
  /** The first manual execution whose id is above `afterId`, if Harbor has one. */
  startedAfter(afterId: number): Promise<number | undefined>;
  /** Starts one run; its execution id. */
  start(): Promise<number>;
  /** Why no run may start at all now, known without asking Harbor (a disabled policy). */
  refusal?: string | undefined;
}

export interface RunNowOutcome {
  /** Status fields to write (absent: nothing to say). */
  status?: { lastHandledRunAt: string; runRequest: RunRequest };
  /** The execution started or found for a new value now. */
  executionId?: number;
}

interface RunStatus {
  lastHandledRunAt?: string;
  runRequest?: RunRequest;
}

/** The annotation's value, when it asks for a run this resource has not handled. */
export function pendingRunRequest(resource: ManagedObject): string | undefined {
  const value = resource.metadata.annotations?.[RUN_REQUESTED_ANNOTATION];
  if (value === undefined || value === "") return undefined;
  const st = (resource.status ?? {}) as RunStatus;
  return st.lastHandledRunAt === value ? undefined : value;
}

export async function handleRunRequest(
  deps: RunNowDeps,
  resource: ManagedObject,
  job: RunNowJob,
): Promise<RunNowOutcome> {
  const value = pendingRunRequest(resource);
  if (value === undefined) return {};
  const now = () => new Date((deps.now ?? Date.now)()).toISOString().replace(/\.\d+Z$/, "Z");
  const st = (resource.status ?? {}) as RunStatus;
  let record = st.runRequest?.requestedAt === value ? st.runRequest : undefined;
  // Handled, but the final status write did not happen: say so now.
  if (record && (record.executionId !== undefined || record.refused !== undefined))
    return { status: { lastHandledRunAt: value, runRequest: record } };

  if (job.refusal !== undefined) {
    const refused: RunRequest = {
      requestedAt: value,
      afterExecutionId: record?.afterExecutionId ?? 0,
      time: now(),
      refused: job.refusal,
    };
    deps.events.record(
      resource,
      "Warning",
      "RunNotStarted",
      `No ${job.what} started for ${RUN_REQUESTED_ANNOTATION} "${value}": ${job.refusal}`,
    );
    return { status: { lastHandledRunAt: value, runRequest: refused } };
  }

  let executionId: number | undefined;
  if (record) {
    // A start that may have happened: look before starting another.
    executionId = await job.startedAfter(record.afterExecutionId);
    if (executionId !== undefined)
      deps.events.record(
        resource,
        "Normal",
        "RunStarted",
        `Found ${job.what} (execution ${executionId}) started earlier for ${RUN_REQUESTED_ANNOTATION} "${value}"; no other is started`,
      );
  } else {
    record = { requestedAt: value, afterExecutionId: await job.newestId() };
    await recordPending(deps, resource, record);
    crashPoint("after-run-request-recorded");
  }
  if (executionId === undefined) {
    try {
      executionId = await job.start();
    } catch (e) {
      if (!(e instanceof HarborError) || !REFUSALS.has(e.kind)) throw e;
      const why = e.harborMessage ?? e.message;
      deps.events.record(
        resource,
        "Warning",
        "RunNotStarted",
        `Harbor refused to start ${job.what} for ${RUN_REQUESTED_ANNOTATION} "${value}": ${why}`,
      );
      return {
        status: {
          lastHandledRunAt: value,
          runRequest: { ...record, time: now(), refused: `Harbor: ${why}` },
        },
      };
    }
    crashPoint("after-run-start");
    deps.events.record(
      resource,
      "Normal",
      "RunStarted",
      `Started ${job.what} (execution ${executionId}) for ${RUN_REQUESTED_ANNOTATION} "${value}"`,
    );
  }
  return {
    status: { lastHandledRunAt: value, runRequest: { ...record, executionId, time: now() } },
    executionId,
  };
}

/**
 * Writes the record before the start, on the resourceVersion the decision was made on: a stale
 * copy fails with a conflict instead of starting a second run. Every other field of an older
 * record is cleared (a merge patch keeps keys it does not name).
 */
async function recordPending(deps: RunNowDeps, resource: ManagedObject, record: RunRequest): Promise<void> {
  const updated = await deps.kube.patchStatus<ManagedObject>(
    deps.type,
    resource.metadata.namespace,
    resource.metadata.name,
    { runRequest: { ...record, executionId: null, time: null, refused: null } },
    resource.metadata.resourceVersion,
  );
  // The lifecycle's final status write builds on this one.
  resource.status = updated.status ?? resource.status;
  resource.metadata.resourceVersion = updated.metadata.resourceVersion;
}
