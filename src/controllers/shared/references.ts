// References from one resource to another of our kinds (a robot's project, a policy's registry):
// the target must exist in the same namespace, be Ready, use the same connection, and have a
// Harbor id in the Harbor that connection reaches now. Until then the referencing resource waits
// with reason DependencyNotReady. A paused target counts as Ready once it has its Harbor object:
// the pause holds back the target's own changes, not the use of what it already made, so a
// paused project's robots keep working and take their own changes (GitOps tools then see one
// Suspended resource, not a chain of waiting ones).
import { FINALIZER, PAUSED_ANNOTATION } from "../../api/common.ts";
import { type HarborId, type ManagedObject, NotReady, Stalled } from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import { DEPENDENCY_NOT_READY } from "../../runtime/managed.ts";

/** `Id` is the referenced kind's id type (a scanner registration's is its UUID). */
export interface Referenced<Id extends HarborId = number> {
  object: ManagedObject;
  harborId: Id;
  /** The target's Harbor name (spec.name or metadata.name). */
  harborName: string;
}

export function resolveReference<Id extends HarborId = number>(
  informer: Informer<ManagedObject>,
  from: ManagedObject,
  ref: { name: string },
  connectionRef: { kind: string; name: string },
  /** The Harbor the referencing resource's connection reaches (HarborConnectionHandle.harbor). */
  harbor: string,
): Referenced<Id> {
  const kind = informer.type.kind;
  const ns = from.metadata.namespace ?? "";
  const target = informer.get(`${ns}/${ref.name}`);
  if (!target) throw new NotReady(DEPENDENCY_NOT_READY, `${kind} ${ref.name} does not exist`);
  if (target.metadata.deletionTimestamp)
    throw new NotReady(DEPENDENCY_NOT_READY, `${kind} ${ref.name} is being deleted`);
  const spec = (target.spec ?? {}) as { connectionRef?: { kind?: string; name?: string }; name?: string };
  const targetConn = { kind: spec.connectionRef?.kind ?? "HarborConnection", name: spec.connectionRef?.name };
  if (targetConn.kind !== connectionRef.kind || targetConn.name !== connectionRef.name) {
    throw new Stalled("InvalidReference", `${kind} ${ref.name} uses another Harbor connection`);
  }
  const ready = target.status?.conditions?.find((c) => c.type === "Ready");
  const harborId = target.status?.harborId;
  const recordedIn = target.status?.harborUrl;
  if (harborId !== undefined && recordedIn !== undefined && recordedIn !== harbor) {
    throw new NotReady(DEPENDENCY_NOT_READY, `${kind} ${ref.name} is still recorded in Harbor ${recordedIn}`);
  }
  const paused = ready?.reason === "Paused" && target.metadata.annotations?.[PAUSED_ANNOTATION] === "true";
  if (
    (ready?.status !== "True" && !paused) ||
    harborId === undefined ||
    !target.metadata.finalizers?.includes(FINALIZER)
  ) {
    throw new NotReady(
      DEPENDENCY_NOT_READY,
      `${kind} ${ref.name} is not Ready${ready?.message ? `: ${ready.message}` : ""}`,
    );
  }
  // The target's CRD types status.harborId as its kind's ids are.
  return { object: target, harborId: harborId as Id, harborName: spec.name ?? target.metadata.name };
}
