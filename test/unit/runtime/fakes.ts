// What the lifecycle unit tables (managed-lifecycle, run-lifecycle) share: the Harbors they talk to,
// the start of their clock, the connectionRef of their specs, and Kubernetes as the reconcilers see
// it (merge patches, the informer's cache fed by hand).
import { z } from "zod";
import type { InformerHandlers } from "../../../src/runtime/informer.ts";
import type { ManagedCache, ManagedObject } from "../../../src/runtime/managed.ts";

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
