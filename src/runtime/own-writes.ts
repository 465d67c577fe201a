// What our own last writes to a resource returned, kept until the informer has caught up with them:
// a reconcile that follows quickly must not mistake its own fresh finalizer or Harbor id for missing
// ones. A written copy is used while the informer still shows a version our writes replaced, or one
// older than our write: a status write is not guarded by a version, so it may land on a change the
// informer has not shown yet (a deletion), and its answer already holds that change. Anything else
// the informer shows (our write's echo, or a newer change by someone else) wins. Versions are
// ordered as Kubernetes 1.35 lets clients order them (KEP-5504); where they cannot be, only the
// versions our writes replaced count as older.
import { type KubeObject, objectKey } from "../kube/types.ts";

export class OwnWrites<T extends KubeObject> {
  readonly #written = new Map<string, { stale: Set<string>; object: T }>();

  /** This reconcile's own copy of the resource: the cached one, or our newer write. */
  current(key: string, cached: T): T {
    const w = this.#written.get(key);
    const rv = cached.metadata.resourceVersion;
    if (w && rv !== undefined && olderThanWritten(w, rv)) return structuredClone(w.object);
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
    if (w && rv !== undefined && !olderThanWritten(w, rv)) this.#written.delete(key);
  }

  forget(key: string): void {
    this.#written.delete(key);
  }

  /** Whether a written copy of `key` is kept (tests). */
  has(key: string): boolean {
    return this.#written.has(key);
  }
}

/** Whether version `rv` of the resource is older than what our writes left. */
function olderThanWritten(w: { stale: Set<string>; object: KubeObject }, rv: string): boolean {
  if (w.stale.has(rv)) return true;
  const ours = w.object.metadata.resourceVersion;
  return ours !== undefined && (compareResourceVersions(rv, ours) ?? 0) < 0;
}

/**
 * Orders two resourceVersions of one resource type: negative when `a` is older. Kubernetes 1.35
 * and later guarantee (KEP-5504) that they are decimal integers without leading zeros, so the
 * longer one is newer and equal lengths compare as text; undefined when either is not of that
 * form (an older or an aggregated apiserver), where only equality means anything.
 */
export function compareResourceVersions(a: string, b: string): number | undefined {
  const wellFormed = (v: string) => /^[1-9][0-9]*$/.test(v);
  if (!wellFormed(a) || !wellFormed(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
