// Pure functions over status conditions, following the Kubernetes API conventions and kstatus:
// lastTransitionTime changes only when a condition's status flips, every condition carries the
// observedGeneration it was computed for, and conditions are kept in a stable order. Every message
// is made safe here (see kube/text.ts): it often repeats what Harbor said.
import { safeText } from "../kube/text.ts";
import type { Condition } from "../kube/types.ts";

export interface ConditionInput {
  type: string;
  status: Condition["status"];
  reason: string;
  message?: string;
}

/**
 * Returns the new conditions list with `input` set. The transition time is carried over when the
 * status did not change, so re-asserting a condition never looks like a transition. The message is
 * cleaned and capped (safeText).
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  observedGeneration: number | undefined,
  now: () => string = () => new Date().toISOString(),
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === input.type);
  const previous = i >= 0 ? list[i] : undefined;
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: safeText(input.message ?? ""),
    lastTransitionTime:
      previous && previous.status === input.status
        ? previous.lastTransitionTime
        : now().replace(/\.\d+Z$/, "Z"),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === "True";
}

/** Structural equality of JSON values (status comparisons before writing). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) {
    if (ao[k] === undefined && bo[k] === undefined) continue;
    if (!jsonEqual(ao[k], bo[k])) return false;
  }
  return true;
}

/**
 * Adds kstatus's `Reconciling` condition (what Flux and cli-utils read) from Ready and Stalled:
 * True while the resource is neither Ready nor Stalled, absent otherwise.
 */
export function withReconciling(
  conditions: readonly Condition[],
  observedGeneration: number | undefined,
  now?: () => string,
): Condition[] {
  const ready = findCondition(conditions, "Ready");
  if (isTrue(conditions, "Stalled") || !ready || ready.status === "True")
    return removeCondition(conditions, "Reconciling");
  return setCondition(
    conditions,
    { type: "Reconciling", status: "True", reason: ready.reason, message: ready.message },
    observedGeneration,
    now,
  );
}
