// What the benchmark does to the cluster, the way a user's tooling would: objects created, edited
// and deleted through the Kubernetes API a few at a time, each action timed on the benchmark's
// clock (performance.now()) so that the tracker's times can be subtracted from it.
import type { KubeClient } from "../../src/kube/client.ts";
import { type BenchObject, editOf, keyOf, TYPES } from "./workload.ts";

/** Runs `fn` over the items with at most `concurrency` at a time; the first failure rejects. */
export async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}

export class Driver {
  readonly #kube: KubeClient;
  readonly #namespace: string;
  readonly #concurrency: number;

  constructor(kube: KubeClient, namespace: string, concurrency: number) {
    this.#kube = kube;
    this.#namespace = namespace;
    this.#concurrency = concurrency;
  }

  /** Creates the objects; returns when each create was answered, by key. */
  async create(objects: readonly BenchObject[]): Promise<Map<string, number>> {
    const at = new Map<string, number>();
    await pool(objects, this.#concurrency, async (b) => {
      await this.#kube.create(TYPES[b.kind], {
        ...b.manifest,
        metadata: { ...b.manifest.metadata, namespace: this.#namespace },
      });
      at.set(keyOf(b.kind, b.name), performance.now());
    });
    return at;
  }

  /**
   * Applies each object's edit (see editOf); returns when each was answered and the generation
   * it produced, by key. `generation` is updated as answers arrive.
   */
  async edit(objects: readonly BenchObject[], generation: Map<string, number>): Promise<Map<string, number>> {
    const at = new Map<string, number>();
    await pool(objects, this.#concurrency, async (b) => {
      const after = await this.#kube.mergePatch(TYPES[b.kind], this.#namespace, b.name, editOf(b));
      const key = keyOf(b.kind, b.name);
      at.set(key, performance.now());
      if (after.metadata.generation !== undefined) generation.set(key, after.metadata.generation);
    });
    return at;
  }

  /** Deletes the objects (without waiting for finalizers); returns when each was answered. */
  async delete(objects: readonly BenchObject[]): Promise<Map<string, number>> {
    const at = new Map<string, number>();
    await pool(objects, this.#concurrency, async (b) => {
      await this.#kube.delete(TYPES[b.kind], this.#namespace, b.name);
      at.set(keyOf(b.kind, b.name), performance.now());
    });
    return at;
  }
}
