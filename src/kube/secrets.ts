// Writes Secrets the operator owns. A Secret is written only when its content differs, carries
// the operator's label and its owner's identity, and an existing Secret that belongs to someone
// else is never overwritten: that is an error the caller reports, not something to fix silently.
// Values are handled as bytes and never logged or put into errors.
import type { KubeClient } from "./client.ts";
import { KubeError } from "./errors.ts";
import { type KubeObject, type OwnerReference, type SecretObject, Secrets } from "./types.ts";

export const OWNER_ANNOTATION = "harborconfig.io/owner";

export interface DesiredSecret {
  namespace: string;
  name: string;
  type: string;
  /** Plain values; encoded here. */
  data: Record<string, string>;
  labels: Record<string, string>;
}

export type SecretWrite = "created" | "updated" | "unchanged";

/** The Secret exists and belongs to someone else. */
export class SecretConflictError extends Error {
  override readonly name = "SecretConflictError";
}

/** Identifies the owning resource: kind/namespace/name/uid. */
export function ownerIdentity(owner: KubeObject): string {
  return `${owner.kind}/${owner.metadata.namespace ?? ""}/${owner.metadata.name}/${owner.metadata.uid}`;
}

/** How many of its own writes a writer remembers (a watch reports them within moments). */
const REMEMBERED_WRITES = 10_000;

export class SecretWriter {
  readonly #kube: KubeClient;
  /** namespace/name → the resourceVersion this writer produced, or "deleted:<uid>". */
  readonly #own = new Map<string, string>();
  /** namespace/name → the write under way (its watch event may arrive before its answer). */
  readonly #writing = new Map<string, Promise<unknown>>();

  constructor(kube: KubeClient) {
    this.#kube = kube;
  }

  /**
   * Whether a watch event shows this writer's own last change of the Secret, so that watchers can
   * skip reconciling what they themselves just wrote. The watch can report a write before the
   * write's own answer arrives: a write of the same Secret still under way is waited for first.
   */
  async isOwnChange(secret: SecretObject, deleted: boolean): Promise<boolean> {
    const key = `${secret.metadata.namespace}/${secret.metadata.name}`;
    const writing = this.#writing.get(key);
    if (writing) await writing;
    const mark = this.#own.get(key);
    return (
      mark !== undefined &&
      mark === (deleted ? `deleted:${secret.metadata.uid}` : secret.metadata.resourceVersion)
    );
  }

  /** Runs one write of a Secret and remembers the mark it left (see isOwnChange). */
  async #write<T>(
    namespace: string,
    name: string,
    write: () => Promise<T>,
    markOf: (result: T) => string | undefined,
  ): Promise<T> {
    const key = `${namespace}/${name}`;
    const done = write().then((result) => {
      const mark = markOf(result);
      if (mark !== undefined) {
        this.#own.delete(key); // re-insert: the map's order is the age of the last write
        this.#own.set(key, mark);
        if (this.#own.size > REMEMBERED_WRITES) this.#own.delete(this.#own.keys().next().value as string);
      }
      return result;
    });
    const settled = done.catch(() => undefined);
    this.#writing.set(key, settled);
    try {
      return await done;
    } finally {
      if (this.#writing.get(key) === settled) this.#writing.delete(key);
    }
  }

  /**
   * Makes the Secret hold exactly `desired`. In the owner's namespace the Secret gets an
   * ownerReference (Kubernetes deletes it with the owner); copies elsewhere are identified by the
   * owner annotation and removed by the caller. `seen` is the Secret as the caller has just read
   * it (null: absent), which spares another read; a change since then fails the write (a create
   * finds it exists, a replace carries the resourceVersion read) instead of being overwritten.
   */
  async apply(owner: KubeObject, desired: DesiredSecret, seen?: SecretObject | null): Promise<SecretWrite> {
    const identity = ownerIdentity(owner);
    const sameNamespace = owner.metadata.namespace === desired.namespace;
    const ownerRefs: OwnerReference[] = sameNamespace
      ? [
          {
            apiVersion: owner.apiVersion ?? "",
            kind: owner.kind ?? "",
            name: owner.metadata.name,
            uid: owner.metadata.uid ?? "",
            controller: true,
            blockOwnerDeletion: true,
          },
        ]
      : [];
    const data = encode(desired.data);
    const existing =
      seen !== undefined
        ? seen
        : await this.#kube.find<SecretObject>(Secrets, desired.namespace, desired.name);
    if (!existing) {
      await this.#write(
        desired.namespace,
        desired.name,
        () =>
          this.#kube.create<SecretObject>(Secrets, {
            metadata: {
              name: desired.name,
              namespace: desired.namespace,
              labels: desired.labels,
              annotations: { [OWNER_ANNOTATION]: identity },
              ...(ownerRefs.length ? { ownerReferences: ownerRefs } : {}),
            },
            type: desired.type,
            data,
          }),
        (created) => created.metadata.resourceVersion,
      );
      return "created";
    }
    if (existing.metadata.annotations?.[OWNER_ANNOTATION] !== identity) {
      throw new SecretConflictError(
        `Secret ${desired.namespace}/${desired.name} exists and is not managed by this resource; rename the secret or remove it`,
      );
    }
    if (existing.type !== desired.type) {
      // A Secret's type cannot change: replace it.
      await this.#write(
        desired.namespace,
        desired.name,
        () => this.#kube.delete(Secrets, desired.namespace, desired.name, existing.metadata.uid),
        () => `deleted:${existing.metadata.uid}`,
      );
      return this.apply(owner, desired);
    }
    const labelsMatch = Object.entries(desired.labels).every(([k, v]) => existing.metadata.labels?.[k] === v);
    if (sameData(existing.data ?? {}, data) && labelsMatch) return "unchanged";
    try {
      await this.#write(
        desired.namespace,
        desired.name,
        () =>
          this.#kube.replace<SecretObject>(Secrets, {
            ...existing,
            metadata: { ...existing.metadata, labels: { ...existing.metadata.labels, ...desired.labels } },
            data,
          }),
        (replaced) => replaced.metadata.resourceVersion,
      );
    } catch (e) {
      // A concurrent edit: the next reconcile reads it again.
      if (e instanceof KubeError && e.kind === "conflict")
        throw new KubeError(
          "conflict",
          `Secret ${desired.namespace}/${desired.name} changed while writing; retrying`,
          409,
        );
      throw e;
    }
    return "updated";
  }

  /** Reads a Secret's plain values, or undefined when it does not exist. */
  async read(
    namespace: string,
    name: string,
  ): Promise<{ object: SecretObject; values: Record<string, string> } | undefined> {
    const s = await this.#kube.find<SecretObject>(Secrets, namespace, name);
    if (!s) return undefined;
    return { object: s, values: decode(s.data ?? {}) };
  }

  /** Deletes the Secret if this owner wrote it. */
  async deleteOwned(owner: KubeObject, namespace: string, name: string): Promise<boolean> {
    const existing = await this.#kube.find<SecretObject>(Secrets, namespace, name);
    if (!existing || existing.metadata.annotations?.[OWNER_ANNOTATION] !== ownerIdentity(owner)) return false;
    await this.#write(
      namespace,
      name,
      () => this.#kube.delete(Secrets, namespace, name, existing.metadata.uid),
      () => `deleted:${existing.metadata.uid}`,
    );
    return true;
  }
}

function encode(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, Buffer.from(v, "utf8").toString("base64")]),
  );
}

function decode(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
  );
}

function sameData(a: Record<string, string>, b: Record<string, string>): boolean {
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => a[k] === b[k]);
}
