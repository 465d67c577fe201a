// The status a managed resource is given after a reconcile, as a pure function of what it had, the
// Ready verdict and the kind's fields: Ready, Synced and Stalled (with Reconciling for kstatus) at
// the generation it describes, the kind's fields, and status.harborName; and, as pure, how long a
// resource has waited and whether the wait is reported Stalled.

import { safeText } from "../kube/text.ts";
import type { Condition } from "../kube/types.ts";
import { setCondition, withReconciling } from "./conditions.ts";
import type { ManagedObject, ManagedStatus } from "./external-client.ts";

/** The Ready condition a reconcile ends with. */
export type Ready = { status: Condition["status"]; reason: string; message: string };

export interface StatusChange {
  /** The kind's own status fields; one set to undefined is removed. */
  fields?: Record<string, unknown>;
  stalled?: boolean;
  /** Synced=True although Ready is not (the spec is applied; something after it waits). */
  synced?: boolean;
  /** The generation the status describes, when not the current one (a paused resource). */
  generation?: number | undefined;
}

/** The resource's next status; `now` gives condition times (RFC 3339, whole seconds). */
export function nextStatus(
  resource: ManagedObject,
  ready: Ready,
  o: StatusChange,
  now: () => string,
): ManagedStatus {
  const generation = "generation" in o ? o.generation : resource.metadata.generation;
  const old = resource.status ?? {};
  let conditions = setCondition(old.conditions, { type: "Ready", ...ready }, generation, now);
  const synced = o.synced ?? ready.status === "True";
  conditions = setCondition(
    conditions,
    synced
      ? { type: "Synced", status: "True", reason: "Synced", message: "" }
      : { type: "Synced", status: "False", reason: ready.reason, message: ready.message },
    generation,
    now,
  );
  conditions = o.stalled
    ? setCondition(
        conditions,
        { type: "Stalled", status: "True", reason: ready.reason, message: ready.message },
        generation,
        now,
      )
    : conditions.filter((c) => c.type !== "Stalled");
  conditions = withReconciling(conditions, generation, now);
  const next: ManagedStatus = {
    ...old,
    ...o.fields,
    ...harborNameField(resource),
    observedGeneration: generation,
    conditions,
  };
  for (const [k, v] of Object.entries(next)) if (v === undefined) delete next[k];
  return next;
}

/**
 * status.harborName, for `kubectl get -o wide`: spec.name or, when unset, metadata.name — known
 * before anything reached Harbor, so the column is never empty once the operator has looked.
 */
function harborNameField(resource: ManagedObject): { harborName?: string } {
  const name = (resource.spec as { name?: unknown } | undefined)?.name;
  const harborName = typeof name === "string" ? name : resource.metadata.name;
  // A name with hidden characters is refused (InvalidSpec); it is not printed.
  return harborName === safeText(harborName) ? { harborName } : {};
}

/** How often a wait that is reported Stalled is retried (events of what it waits on come sooner). */
const STALLED_WAIT_RETRY_MS = 60_000;

/** How long a resource has waited, whether it is reported Stalled, and when to look again. */
export type Wait = { stalled: boolean; waited: number; retryMs: number };

/**
 * How long the resource has been not-Ready (at `now`), whether that is past the wait timeout, and
 * when to look again. A wait is bounded: past the timeout it is reported Stalled too (Argo CD:
 * Degraded, kstatus: Failed), with what it waits on, and it goes on retrying.
 */
export function waitOf(resource: ManagedObject, now: number, timeoutMs: number, retryMs: number): Wait {
  const ready = resource.status?.conditions?.find((c) => c.type === "Ready");
  const since = ready?.status === "False" ? Date.parse(ready.lastTransitionTime) : now;
  const waited = Number.isNaN(since) ? 0 : now - since;
  const stalled = waited >= timeoutMs;
  return {
    stalled,
    waited,
    retryMs: stalled ? STALLED_WAIT_RETRY_MS : Math.max(1000, Math.min(retryMs, timeoutMs - waited)),
  };
}
