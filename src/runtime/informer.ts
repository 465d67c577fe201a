// An informer: a local cache of one resource type kept current by list + watch, with handlers
// called on every change. Its guarantees:
// - it lists in pages, then watches from the list's resourceVersion with bookmarks and a server
//   timeout; a clean close resumes from the last resourceVersion seen (bookmarks included);
// - a 410 Gone relists, and the relist is diffed against the cache so deletions missed while
//   disconnected are still reported;
// - any other failure backs off (exponential, jittered, capped) and retries forever;
// - a watch that stays silent longer than the idle limit is restarted;
// - a handler that throws is logged and never stops the informer.
import type { Logger } from "pino";
import type { KubeClient } from "../kube/client.ts";
import { isKubeError } from "../kube/errors.ts";
import { type KubeObject, objectKey, type ResourceType } from "../kube/types.ts";

export interface InformerHandlers<T> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  delete?(obj: T): void;
}

export interface InformerOptions {
  client: KubeClient;
  type: ResourceType;
  logger: Logger;
  /** Watch these namespaces only (one list+watch each, one cache); default all. */
  namespaces?: readonly string[];
  /**
   * Decides the namespaces when the informer starts, in place of `namespaces` (undefined or empty:
   * all); if it fails, `namespaces` stand.
   */
  resolveNamespaces?: () => Promise<readonly string[] | undefined>;
  labelSelector?: string;
  /** Server-side watch timeout; each watch gets ±10 % jitter. Default 300 s. */
  watchTimeoutSeconds?: number;
  /** Restart a watch that delivered nothing for this long. Default 2× the watch timeout. */
  idleTimeoutMs?: number;
  /**
   * Trims each object before it is cached (what the controllers never read costs memory for every
   * object). `metadata.managedFields` is always dropped.
   */
  transform?: (obj: KubeObject) => KubeObject;
  /** Backoff after failures. Defaults 500 ms doubling to 30 s. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
}

export class Informer<T extends KubeObject> {
  readonly #o: Required<
    Omit<InformerOptions, "namespaces" | "resolveNamespaces" | "labelSelector" | "transform">
  > &
    Pick<InformerOptions, "resolveNamespaces" | "labelSelector" | "transform">;
  /** undefined = all namespaces. */
  #scopes: ReadonlyArray<string | undefined>;
  readonly #cache = new Map<string, T>();
  /** Indexes by name: each object's value, and the keys of the objects with each value. */
  readonly #indexes = new Map<
    string,
    { by: (obj: T) => string | undefined; keys: Map<string, Set<string>>; valueOf: Map<string, string> }
  >();
  readonly #handlers: InformerHandlers<T>[] = [];
  readonly #syncWaiters: Array<() => void> = [];
  readonly #resourceVersions = new Map<string | undefined, string>();
  readonly #syncedScopes = new Set<string | undefined>();
  #synced = false;
  #running: Promise<void> | undefined;
  #abort: AbortController | undefined;

  constructor(o: InformerOptions) {
    const watchTimeoutSeconds = o.watchTimeoutSeconds ?? 300;
    this.#o = {
      ...o,
      watchTimeoutSeconds,
      idleTimeoutMs: o.idleTimeoutMs ?? watchTimeoutSeconds * 2000,
      backoffBaseMs: o.backoffBaseMs ?? 500,
      backoffMaxMs: o.backoffMaxMs ?? 30_000,
    };
    this.#scopes = scopesOf(o.namespaces);
  }

  get type(): ResourceType {
    return this.#o.type;
  }

  /** True once the first list has filled the cache. */
  get synced(): boolean {
    return this.#synced;
  }

  /** The resourceVersion the watch of `namespace` (undefined: all) resumes from. */
  resourceVersion(namespace?: string): string {
    return this.#resourceVersions.get(namespace) ?? "";
  }

  on(handlers: InformerHandlers<T>): void {
    this.#handlers.push(handlers);
  }

  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  /**
   * Keeps the objects findable by a value derived from each (`by`; undefined: not indexed), as
   * client-go's indexers do, so that "who points at this?" is a lookup rather than a scan of the
   * cache. Add indexes before the informer starts.
   */
  addIndex(name: string, by: (obj: T) => string | undefined): void {
    const index = { by, keys: new Map<string, Set<string>>(), valueOf: new Map<string, string>() };
    this.#indexes.set(name, index);
    for (const [key, obj] of this.#cache) this.#index(key, obj);
  }

  /** The cached objects whose value in the index `name` is `value`. */
  byIndex(name: string, value: string): T[] {
    const keys = this.#indexes.get(name)?.keys.get(value);
    if (!keys) return [];
    return [...keys].map((k) => this.#cache.get(k)).filter((o): o is T => o !== undefined);
  }

  list(): T[] {
    return [...this.#cache.values()];
  }

  keys(): string[] {
    return [...this.#cache.keys()];
  }

  get size(): number {
    return this.#cache.size;
  }

  start(): void {
    if (this.#running) return;
    this.#abort = new AbortController();
    const signal = this.#abort.signal;
    this.#running = (async () => {
      const resolve = this.#o.resolveNamespaces;
      if (resolve) {
        try {
          this.#scopes = scopesOf(await resolve());
        } catch (e) {
          this.#o.logger.warn(
            { err: errText(e), informer: this.#o.type.plural },
            "could not decide which namespaces to watch; watching the configured ones",
          );
        }
      }
      await Promise.all(this.#scopes.map((ns) => this.#run(ns, signal)));
    })();
  }

  /** The namespaces watched (undefined: all); decided at start when resolveNamespaces is given. */
  get namespaces(): ReadonlyArray<string> | undefined {
    return this.#scopes[0] === undefined ? undefined : (this.#scopes as string[]);
  }

  async stop(): Promise<void> {
    this.#abort?.abort();
    await this.#running;
    this.#running = undefined;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.#syncWaiters.indexOf(done);
        if (i >= 0) this.#syncWaiters.splice(i, 1);
        reject(signal?.reason);
      };
      this.#syncWaiters.push(done);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** List+watch of one scope (a namespace, or all), forever until stopped. */
  async #run(namespace: string | undefined, signal: AbortSignal): Promise<void> {
    const log = this.#o.logger.child({ informer: this.#o.type.plural, ...(namespace ? { namespace } : {}) });
    const scope = {
      ...(namespace ? { namespace } : {}),
      ...(this.#o.labelSelector ? { labelSelector: this.#o.labelSelector } : {}),
    };
    let needList = true;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.#relist(namespace, scope, signal);
          needList = false;
        }
        const jitter = 0.9 + Math.random() * 0.2;
        const end = await this.#o.client.watch<T>(
          this.#o.type,
          {
            ...scope,
            resourceVersion: this.resourceVersion(namespace),
            timeoutSeconds: Math.round(this.#o.watchTimeoutSeconds * jitter),
            idleTimeoutMs: this.#o.idleTimeoutMs,
            signal,
          },
          (e) => this.#onEvent(namespace, e.type, this.#trim(e.object)),
        );
        const resourceVersion = this.resourceVersion(namespace);
        if (end === "idle") log.warn({ resourceVersion }, "watch was silent too long; restarting it");
        else log.debug({ end, resourceVersion }, "watch ended; resuming");
        failures = 0;
      } catch (e) {
        if (signal.aborted) break;
        if (isKubeError(e, "gone")) {
          log.info(
            { resourceVersion: this.resourceVersion(namespace) },
            "resourceVersion too old; listing again",
          );
          needList = true;
          continue;
        }
        failures++;
        const delay = Math.min(this.#o.backoffMaxMs, this.#o.backoffBaseMs * 2 ** (failures - 1));
        const wait = Math.round(delay * (0.8 + Math.random() * 0.4));
        log.warn({ err: errText(e), attempt: failures, retryInMs: wait }, "list/watch failed; retrying");
        await sleep(wait, signal);
      }
    }
  }

  async #relist(
    namespace: string | undefined,
    scope: { namespace?: string; labelSelector?: string },
    signal: AbortSignal,
  ): Promise<void> {
    const result = await this.#o.client.list<T>(this.#o.type, scope, signal);
    const seen = new Set<string>();
    for (const listed of result.items) {
      const obj = this.#trim(listed);
      const key = objectKey(obj);
      seen.add(key);
      this.#upsert(key, obj);
    }
    // Objects of this scope that the list no longer has were deleted while nobody watched.
    for (const [key, old] of [...this.#cache]) {
      if (seen.has(key) || (namespace !== undefined && old.metadata.namespace !== namespace)) continue;
      this.#cache.delete(key);
      this.#index(key, undefined);
      this.#notify((h) => h.delete?.(old));
    }
    this.#resourceVersions.set(namespace, result.resourceVersion);
    this.#syncedScopes.add(namespace);
    if (!this.#synced && this.#syncedScopes.size === this.#scopes.length) {
      this.#synced = true;
      for (const resolve of this.#syncWaiters.splice(0)) resolve();
    }
  }

  #onEvent(namespace: string | undefined, type: string, obj: T): void {
    const rv = obj.metadata.resourceVersion;
    if (rv) this.#resourceVersions.set(namespace, rv);
    if (type === "BOOKMARK") return;
    const key = objectKey(obj);
    if (type === "DELETED") {
      const old = this.#cache.get(key) ?? obj;
      this.#cache.delete(key);
      this.#index(key, undefined);
      this.#notify((h) => h.delete?.(old));
      return;
    }
    this.#upsert(key, obj);
  }

  #trim(obj: T): T {
    if (obj.metadata.managedFields !== undefined) {
      const { managedFields: _dropped, ...metadata } = obj.metadata;
      obj = { ...obj, metadata };
    }
    return (this.#o.transform ? this.#o.transform(obj) : obj) as T;
  }

  #upsert(key: string, obj: T): void {
    const old = this.#cache.get(key);
    if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return;
    this.#cache.set(key, obj);
    this.#index(key, obj);
    if (old) this.#notify((h) => h.update?.(old, obj));
    else this.#notify((h) => h.add?.(obj));
  }

  /** Moves `key` to `obj`'s value in every index (undefined: the object is gone). */
  #index(key: string, obj: T | undefined): void {
    for (const index of this.#indexes.values()) {
      const before = index.valueOf.get(key);
      let after: string | undefined;
      try {
        after = obj ? index.by(obj) : undefined;
      } catch {
        after = undefined; // a spec the schema would refuse: not indexed
      }
      if (before === after) continue;
      if (before !== undefined) {
        const keys = index.keys.get(before);
        keys?.delete(key);
        if (keys?.size === 0) index.keys.delete(before);
        index.valueOf.delete(key);
      }
      if (after !== undefined) {
        let keys = index.keys.get(after);
        if (!keys) {
          keys = new Set();
          index.keys.set(after, keys);
        }
        keys.add(key);
        index.valueOf.set(key, after);
      }
    }
  }

  #notify(call: (h: InformerHandlers<T>) => void): void {
    for (const h of this.#handlers) {
      try {
        call(h);
      } catch (e) {
        this.#o.logger.error({ err: errText(e), informer: this.#o.type.plural }, "informer handler failed");
      }
    }
  }
}

function scopesOf(namespaces: readonly string[] | undefined): ReadonlyArray<string | undefined> {
  return namespaces?.length ? [...new Set(namespaces)] : [undefined];
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
