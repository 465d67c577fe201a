// What the lifecycle unit tables (managed-lifecycle, run-lifecycle) share: the Harbors they talk to,
// the start of their clock, the connectionRef of their specs, and Kubernetes as the reconcilers see
// it (the API server's merge patches, the informer's cache fed by hand).
import { z } from "zod";
import type { KubeClient } from "../../../src/kube/client.ts";
import { KubeError } from "../../../src/kube/errors.ts";
import type { KubeObject, ResourceType } from "../../../src/kube/types.ts";
import { jsonEqual } from "../../../src/runtime/conditions.ts";
import type { ManagedCache, ManagedObject } from "../../../src/runtime/external-client.ts";
import type { InformerHandlers } from "../../../src/runtime/informer.ts";

export const NS = "team";
export const ONE = "https://one.example";
export const TWO = "https://two.example";
export const START = Date.parse("2025-06-01T12:00:00Z");

/** spec.connectionRef as every kind has it. */
export const ConnectionRef = z.object({
  kind: z.enum(["HarborConnection", "ClusterHarborConnection"]).default("HarborConnection"),
  name: z.string(),
});

/** RFC 7386 JSON merge patch. */
export function merge(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === "object" && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

/** The informer's cache: shows the server's objects when told to, calling handlers as a watch does. */
export class FakeCache implements ManagedCache {
  readonly #objects = new Map<string, ManagedObject>();
  readonly #handlers: InformerHandlers<ManagedObject>[] = [];

  get(key: string): ManagedObject | undefined {
    return this.#objects.get(key);
  }

  list(): ManagedObject[] {
    return [...this.#objects.values()];
  }

  on(handlers: InformerHandlers<ManagedObject>): void {
    this.#handlers.push(handlers);
  }

  show(server: ReadonlyMap<string, ManagedObject>): void {
    for (const [key, obj] of server) {
      const old = this.#objects.get(key);
      if (old?.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
      const copy = structuredClone(obj);
      this.#objects.set(key, copy);
      for (const h of this.#handlers) old ? h.update?.(old, copy) : h.add?.(copy);
    }
    for (const [key, old] of [...this.#objects]) {
      if (server.has(key)) continue;
      this.#objects.delete(key);
      for (const h of this.#handlers) h.delete?.(old);
    }
  }
}

/** The API server's timestamps: RFC 3339 to the second. */
const timestamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

export type KubeWriteOp = "mergePatch" | "patchStatus";

/** A request the API server accepted, as a table logs it among the other calls. */
export type KubeRequest =
  | { op: KubeWriteOp; name: string; patch: Record<string, unknown>; guarded: boolean }
  | { op: "delete"; name: string; uid: string | undefined };

/**
 * The API server, holding one kind's resources in namespace NS as the reconcilers write them: merge
 * patches of metadata and status, each a new resourceVersion; 409 for a write made against an
 * older one; 404 for a resource that is gone; a resource being deleted goes once its last finalizer
 * does. `fails` makes a write fail until it is cleared. The test's own changes (apply, annotate,
 * setStatus, delete) are what kubectl would do.
 */
export class FakeApiServer {
  /** By namespace/name, as FakeCache.show() reads them. */
  readonly objects = new Map<string, ManagedObject>();
  /** Writes that fail until cleared. */
  readonly fails = new Map<KubeWriteOp, KubeError>();
  /** What the reconcilers get. */
  readonly client: Pick<KubeClient, "mergePatch" | "patchStatus" | "delete">;
  readonly #kind: string;
  readonly #now: () => number;
  readonly #log: (r: KubeRequest) => void;
  #rv = 1;
  #uids = 0;

  constructor(o: { kind: string; now: () => number; log: (r: KubeRequest) => void }) {
    this.#kind = o.kind;
    this.#now = o.now;
    this.#log = o.log;
    this.client = {
      mergePatch: async <T extends KubeObject>(
        _t: ResourceType,
        _ns: string | undefined,
        name: string,
        patch: Record<string, unknown>,
        resourceVersion?: string,
      ) => this.#write("mergePatch", name, patch, resourceVersion) as unknown as T,
      patchStatus: async <T extends KubeObject>(
        _t: ResourceType,
        _ns: string | undefined,
        name: string,
        status: unknown,
        resourceVersion?: string,
      ) =>
        this.#write("patchStatus", name, status as Record<string, unknown>, resourceVersion) as unknown as T,
      delete: async (_t: ResourceType, _ns: string | undefined, name: string, uid?: string) => {
        this.#log({ op: "delete", name, uid });
        this.objects.delete(`${NS}/${name}`);
      },
    };
  }

  get(name: string): ManagedObject | undefined {
    return this.objects.get(`${NS}/${name}`);
  }

  /** kubectl apply: creates the resource, or replaces its spec (a new generation if it changed). */
  apply(
    name: string,
    spec: Record<string, unknown>,
    meta: {
      finalizers?: string[];
      status?: Record<string, unknown>;
      annotations?: Record<string, string>;
    } = {},
  ): void {
    const existing = this.get(name);
    if (existing) {
      if (!jsonEqual(existing.spec, spec)) {
        existing.spec = spec;
        existing.metadata.generation = (existing.metadata.generation ?? 1) + 1;
      }
      this.#bump(existing);
      return;
    }
    this.objects.set(`${NS}/${name}`, {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: this.#kind,
      metadata: {
        namespace: NS,
        name,
        uid: `uid-${++this.#uids}`,
        generation: 1,
        resourceVersion: String(++this.#rv),
        creationTimestamp: timestamp(this.#now()),
        ...(meta.finalizers ? { finalizers: meta.finalizers } : {}),
        ...(meta.annotations ? { annotations: meta.annotations } : {}),
      },
      spec,
      ...(meta.status ? { status: meta.status } : {}),
    });
  }

  /** kubectl annotate (undefined removes the annotation). */
  annotate(name: string, key: string, value: string | undefined): void {
    const obj = this.#existing(name);
    const annotations = { ...obj.metadata.annotations };
    if (value === undefined) delete annotations[key];
    else annotations[key] = value;
    obj.metadata.annotations = annotations;
    this.#bump(obj);
  }

  /** kubectl patch --subresource=status. */
  setStatus(name: string, status: Record<string, unknown>): void {
    const obj = this.#existing(name);
    obj.status = merge(obj.status, status) as ManagedObject["status"];
    this.#bump(obj);
  }

  /** kubectl delete: a deletionTimestamp while finalizers remain, else gone. */
  delete(name: string): void {
    const obj = this.#existing(name);
    if (obj.metadata.finalizers?.length) {
      obj.metadata.deletionTimestamp = timestamp(this.#now());
      this.#bump(obj);
    } else this.objects.delete(`${NS}/${name}`);
  }

  #existing(name: string): ManagedObject {
    const obj = this.get(name);
    if (!obj) throw new Error(`${name} does not exist`);
    return obj;
  }

  #bump(obj: ManagedObject): void {
    obj.metadata.resourceVersion = String(++this.#rv);
  }

  #write(
    op: KubeWriteOp,
    name: string,
    patch: Record<string, unknown>,
    resourceVersion?: string,
  ): ManagedObject {
    const fail = this.fails.get(op);
    if (fail) throw fail;
    const obj = this.get(name);
    if (!obj) throw new KubeError("notFound", `${name} not found`, 404);
    if (resourceVersion !== undefined && resourceVersion !== obj.metadata.resourceVersion)
      throw new KubeError("conflict", `${name}: the object has been modified`, 409, "Conflict");
    this.#log({ op, name, patch, guarded: resourceVersion !== undefined });
    if (op === "patchStatus") obj.status = merge(obj.status, patch) as ManagedObject["status"];
    else obj.metadata = merge(obj.metadata, patch.metadata) as ManagedObject["metadata"];
    this.#bump(obj);
    if (obj.metadata.deletionTimestamp && !obj.metadata.finalizers?.length)
      this.objects.delete(`${NS}/${name}`);
    return structuredClone(obj);
  }
}

/** How the tables log a finalizer write: the list it sets. */
export const finalizersWritten = (patch: Record<string, unknown>): string =>
  `kube finalizers ${JSON.stringify((patch.metadata as { finalizers?: string[] } | undefined)?.finalizers)}`;
