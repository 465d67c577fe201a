// Watches the workload's objects the way `kubectl get -w` would (one list+watch per kind) and
// records, on the benchmark's own clock, when each object turned Ready for the generation asked of
// it and when it disappeared. Timestamps in status have one-second resolution; this does not.
import pino from "pino";
import type { KubeClient } from "../../src/kube/client.ts";
import type { ManagedObject } from "../../src/runtime/external-client.ts";
import { Informer } from "../../src/runtime/informer.ts";
import { KIND_NAMES, type KindName } from "./types.ts";
import { keyOf, TYPES } from "./workload.ts";

interface Wait {
  keys: Set<string>;
  /** The generation each key must be Ready for (default: its current one). */
  generation: Map<string, number>;
  done: Map<string, number>;
  gone: boolean;
  resolve: () => void;
}

export class Tracker {
  readonly #informers = new Map<KindName, Informer<ManagedObject>>();
  readonly #namespace: string;
  #wait: Wait | undefined;

  constructor(kube: KubeClient, namespace: string) {
    this.#namespace = namespace;
    for (const [kind, informer] of workloadInformers(kube, namespace)) {
      const seen = (o: ManagedObject) => this.#check(keyOf(kind, o.metadata.name), o);
      informer.on({
        add: seen,
        update: (_old, o) => seen(o),
        delete: (o) => this.#deleted(keyOf(kind, o.metadata.name)),
      });
      this.#informers.set(kind, informer);
    }
  }

  async start(timeoutMs: number): Promise<void> {
    for (const i of this.#informers.values()) i.start();
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(signal)));
    } catch {
      throw new Error(`could not list the workload's kinds within ${timeoutMs / 1000} s`);
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }

  get(key: string): ManagedObject | undefined {
    const [kind, name] = key.split("/") as [KindName, string];
    return this.#informers.get(kind)?.get(`${this.#namespace}/${name}`);
  }

  /**
   * Records when each key is Ready for its generation (or for `generation`'s), until all are or the
   * deadline passes. Returns performance.now() times by key; missing keys did not make it.
   */
  waitReady(keys: Iterable<string>, timeoutMs: number, generation = new Map<string, number>()) {
    return this.#waitFor({ keys: new Set(keys), generation, gone: false }, timeoutMs);
  }

  /** Records when each key disappears from the API. */
  waitGone(keys: Iterable<string>, timeoutMs: number) {
    return this.#waitFor({ keys: new Set(keys), generation: new Map(), gone: true }, timeoutMs);
  }

  /** Why the keys are not Ready: their Ready reason ("NoStatus", "Missing"), counted. */
  reasons(keys: Iterable<string>): Record<string, number> {
    const out: Record<string, number> = {};
    for (const key of keys) {
      const o = this.get(key);
      const ready = o?.status?.conditions?.find((c) => c.type === "Ready");
      const reason = !o
        ? "Missing"
        : o.metadata.deletionTimestamp
          ? `Deleting/${ready?.reason ?? "NoStatus"}`
          : (ready?.reason ?? "NoStatus");
      out[`${key.split("/")[0]}: ${reason}`] = (out[`${key.split("/")[0]}: ${reason}`] ?? 0) + 1;
    }
    return out;
  }

  async #waitFor(w: Omit<Wait, "done" | "resolve">, timeoutMs: number): Promise<Map<string, number>> {
    if (this.#wait) throw new Error("one wait at a time");
    let resolve: () => void = () => {};
    const finished = new Promise<void>((r) => {
      resolve = r;
    });
    const wait: Wait = { ...w, done: new Map(), resolve };
    this.#wait = wait;
    // What is already true counts from now.
    for (const key of wait.keys) {
      const o = this.get(key);
      if (wait.gone ? !o : o && this.#ready(key, o)) wait.done.set(key, performance.now());
    }
    if (wait.done.size >= wait.keys.size) resolve();
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    await finished;
    clearTimeout(timer);
    this.#wait = undefined;
    return wait.done;
  }

  #ready(key: string, o: ManagedObject): boolean {
    const want = this.#wait?.generation.get(key) ?? o.metadata.generation ?? 0;
    const ready = o.status?.conditions?.find((c) => c.type === "Ready");
    return (
      ready?.status === "True" &&
      (o.status?.observedGeneration ?? 0) >= want &&
      (o.metadata.generation ?? 0) >= want
    );
  }

  #check(key: string, o: ManagedObject): void {
    const w = this.#wait;
    if (!w || w.gone || !w.keys.has(key) || w.done.has(key)) return;
    if (!this.#ready(key, o)) return;
    w.done.set(key, performance.now());
    if (w.done.size >= w.keys.size) w.resolve();
  }

  #deleted(key: string): void {
    const w = this.#wait;
    if (!w?.gone || !w.keys.has(key) || w.done.has(key)) return;
    w.done.set(key, performance.now());
    if (w.done.size >= w.keys.size) w.resolve();
  }
}

/** One informer per kind of the workload, on its namespace, not started yet (warnings to stderr). */
export function workloadInformers(
  kube: KubeClient,
  namespace: string,
): Map<KindName, Informer<ManagedObject>> {
  const logger = pino({ level: "warn" }, pino.destination(2));
  return new Map(
    KIND_NAMES.map((kind) => [
      kind,
      new Informer<ManagedObject>({ client: kube, type: TYPES[kind], logger, namespaces: [namespace] }),
    ]),
  );
}
