// What our own last writes to a resource returned, kept until the informer has caught up with them:
// a reconcile that follows quickly must not mistake its own fresh finalizer or Harbor id for missing
// ones. A written copy is used only while the informer still shows a version our writes replaced;
// anything else it shows (our write's echo, or a newer change by someone else) wins.
import { type KubeObject, objectKey } from "../kube/types.ts";

export class OwnWrites<T extends KubeObject> {
  readonly #written = new Map<string, { stale: Set<string>; object: T }>();

  /** This reconcile's own copy of the resource: the cached one, or our newer write. */
  current(key: string, cached: T): T {
    const w = this.#written.get(key);
    const rv = cached.metadata.resourceVersion;
    if (w && rv !== undefined && w.stale.has(rv)) return structuredClone(w.object);
    this.#written.delete(key);
    // A copy: the informer's object is shared, and its handlers compare old and new.
    return structuredClone(cached);
  }

  /** Records a write that replaced version `before` of the resource with `updated`. */
  remember(before: string | undefined, updated: T): void {
    const key = objectKey(updated);
    const w = this.#written.get(key) ?? { stale: new Set<string>(), object: updated };
    if (before !== undefined) w.stale.add(before);
    w.object = updated;
    this.#written.set(key, w);
  }

  /** The informer now shows `obj`: when that is our last write or newer, our copy is forgotten. */
  caughtUp(obj: T): void {
    const key = objectKey(obj);
    const w = this.#written.get(key);
    const rv = obj.metadata.resourceVersion;
    if (w && rv !== undefined && !w.stale.has(rv)) this.#written.delete(key);
  }

  forget(key: string): void {
    this.#written.delete(key);
  }

  /** Whether a written copy of `key` is kept (tests). */
  has(key: string): boolean {
    return this.#written.has(key);
  }
}
