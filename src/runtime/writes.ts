// The Kubernetes writes both lifecycles make on their own resources (managed.ts and run.ts): the
// finalizer added and released with a merge patch guarded by the version read, and the status
// written through its subresource. Each write is remembered in the lifecycle's OwnWrites, so that
// the next reconcile reads what was written even before the informer shows it. (controller-runtime's
// controllerutil plays this part for Go controllers.)
import { FINALIZER } from "../api/common.ts";
import type { KubeClient } from "../kube/client.ts";
import { isKubeError } from "../kube/errors.ts";
import type { ResourceType } from "../kube/types.ts";
import type { ManagedObject } from "./external-client.ts";
import type { OwnWrites } from "./own-writes.ts";

/**
 * The merge patch that turns status `old` into `next`: `next` whole, and null for each key of `old`
 * that `next` no longer has (a merge patch removes a key only when told so).
 */
export function statusPatch(
  old: Readonly<Record<string, unknown>>,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...next };
  for (const k of Object.keys(old)) if (!(k in next)) patch[k] = null;
  return patch;
}

export class ResourceWrites {
  readonly #kube: Pick<KubeClient, "mergePatch" | "patchStatus">;
  readonly #type: ResourceType;
  readonly #written: OwnWrites<ManagedObject>;

  constructor(o: {
    kube: Pick<KubeClient, "mergePatch" | "patchStatus">;
    type: ResourceType;
    written: OwnWrites<ManagedObject>;
  }) {
    this.#kube = o.kube;
    this.#type = o.type;
    this.#written = o.written;
  }

  /** The resource with the operator's finalizer (written only when it lacks it). */
  async ensureFinalizer(r: ManagedObject): Promise<ManagedObject> {
    const finalizers = r.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER)) return r;
    const updated = await this.#kube.mergePatch<ManagedObject>(
      this.#type,
      r.metadata.namespace,
      r.metadata.name,
      { metadata: { finalizers: [...finalizers, FINALIZER] } },
      r.metadata.resourceVersion,
    );
    this.#written.remember(r.metadata.resourceVersion, updated);
    return { ...r, metadata: { ...r.metadata, ...updated.metadata } };
  }

  /** The resource without the operator's finalizer (written only when it has it). */
  async dropFinalizer(r: ManagedObject): Promise<ManagedObject> {
    const finalizers = r.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return r;
    const updated = await this.#kube.mergePatch<ManagedObject>(
      this.#type,
      r.metadata.namespace,
      r.metadata.name,
      { metadata: { finalizers: finalizers.filter((f) => f !== FINALIZER) } },
      r.metadata.resourceVersion,
    );
    this.#written.remember(r.metadata.resourceVersion, updated);
    return { ...r, metadata: { ...r.metadata, ...updated.metadata } };
  }

  /** Lets the resource go: false when it had no finalizer of ours or is gone already. */
  async releaseFinalizer(r: ManagedObject): Promise<boolean> {
    if (!r.metadata.finalizers?.includes(FINALIZER)) return false;
    try {
      await this.dropFinalizer(r);
      return true;
    } catch (e) {
      if (isKubeError(e, "notFound")) return false;
      throw e;
    }
  }

  /**
   * Writes a status merge patch through the status subresource; `guarded`: only against the version
   * read (a stale view fails instead of writing). Returns the resource as written.
   */
  async patchStatus(
    r: ManagedObject,
    patch: Record<string, unknown>,
    guarded = false,
  ): Promise<ManagedObject> {
    const updated = await this.#kube.patchStatus<ManagedObject>(
      this.#type,
      r.metadata.namespace,
      r.metadata.name,
      patch,
      guarded ? r.metadata.resourceVersion : undefined,
    );
    this.#written.remember(r.metadata.resourceVersion, updated);
    return { ...r, metadata: { ...r.metadata, ...updated.metadata }, status: updated.status ?? {} };
  }
}
