// A small, generic Kubernetes REST client. kubeconfig.ts supplies the apiserver and credentials
// (handing exec plugins and auth providers to @kubernetes/client-node, loaded only for those),
// while requests go through node:https with one keep-alive agent, so every resource
// (our CRDs, Secrets, Events, Leases, ServiceAccounts) is read and written the same way and every
// failure becomes one KubeError. Watches stream newline-delimited JSON events.
import http from "node:http";
import https from "node:https";
import { createInterface } from "node:readline";
import { KubeError, kubeErrorFromStatus } from "./errors.ts";
import { type KubeAuth, loadKubeAuth } from "./kubeconfig.ts";
import { apiVersionOf, type KubeObject, type ListResult, type ResourceType } from "./types.ts";

export interface KubeClientOptions {
  /** A kubeconfig file; default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account. */
  kubeconfig?: string;
  /** Deadline for non-watch requests. Default 30 s. */
  timeoutMs?: number;
  /** Sent as the User-Agent and as the field manager of patches. */
  userAgent?: string;
  /** The kubeconfig context to use instead of its current-context (kubectl's --context). */
  context?: string;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface WatchOptions extends ListOptions {
  resourceVersion: string;
  /** Ask the apiserver to close the watch after this long (a clean close, resumed by the caller). */
  timeoutSeconds?: number;
  /** Abort when nothing (not even a bookmark) arrives for this long. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
export interface WatchEvent<T> {
  type: WatchEventType;
  object: T;
}
/** Why a watch ended without an error. */
export type WatchEnd = "closed" | "idle" | "aborted";

interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

const MERGE_PATCH = "application/merge-patch+json";
const PAGE_LIMIT = 500;

export class KubeClient {
  readonly #auth: KubeAuth;
  readonly #server: URL;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  #agent: http.Agent | undefined;
  #watchAgent: http.Agent | undefined;

  constructor(auth: KubeAuth, options: Omit<KubeClientOptions, "kubeconfig"> = {}) {
    this.#auth = auth;
    this.#server = auth.server;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#userAgent = options.userAgent ?? "harbor-config-operator";
  }

  /** A client of this class (or of a subclass it is called on) for a kubeconfig file or the default. */
  static fromOptions(o: KubeClientOptions = {}): KubeClient {
    return new this(loadKubeAuth(o.kubeconfig, undefined, o.context), o);
  }

  /** The namespace of the kubeconfig's current context, when it names one (kubectl's default). */
  get contextNamespace(): string | undefined {
    return this.#auth.namespace;
  }

  /** The apiserver URL, e.g. for log lines and status. */
  get server(): string {
    return this.#server.toString();
  }

  // -------------------------------------------------------------------------------------------
  // typed verbs

  async get<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<T> {
    return this.#request<T>({ method: "GET", path: resourcePath(type, namespace, name) });
  }

  /** Get, or undefined when the object does not exist. */
  async find<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<T | undefined> {
    try {
      return await this.get<T>(type, namespace, name);
    } catch (e) {
      if (e instanceof KubeError && e.kind === "notFound") return undefined;
      throw e;
    }
  }

  /** Every object, read in pages of 500; the result's resourceVersion starts a watch. */
  async list<T extends KubeObject>(
    type: ResourceType,
    o: ListOptions = {},
    signal?: AbortSignal,
  ): Promise<ListResult<T>> {
    const items: T[] = [];
    let cont: string | undefined;
    let resourceVersion = "";
    do {
      const page = await this.#request<{
        items: T[];
        metadata: { resourceVersion: string; continue?: string };
      }>({
        method: "GET",
        path: resourcePath(type, o.namespace),
        query: {
          labelSelector: o.labelSelector,
          fieldSelector: o.fieldSelector,
          limit: PAGE_LIMIT,
          continue: cont,
        },
        ...(signal ? { signal } : {}),
      });
      // The kind is implied by the list; fill it in so cached objects are self-describing.
      for (const item of page.items) items.push({ apiVersion: apiVersionOf(type), kind: type.kind, ...item });
      resourceVersion = page.metadata.resourceVersion;
      cont = page.metadata.continue || undefined;
    } while (cont);
    return { items, resourceVersion };
  }

  async create<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    return this.#request<T>({
      method: "POST",
      path: resourcePath(type, object.metadata.namespace),
      body: { apiVersion: apiVersionOf(type), kind: type.kind, ...object },
    });
  }

  /**
   * JSON merge patch. With `resourceVersion` the write only succeeds against that version
   * (409 conflict otherwise), which makes read-modify-write of lists such as finalizers safe.
   */
  async mergePatch<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: Record<string, unknown>,
    resourceVersion?: string,
  ): Promise<T> {
    return this.#request<T>({
      method: "PATCH",
      path: resourcePath(type, namespace, name),
      body: withResourceVersion(patch, resourceVersion),
      contentType: MERGE_PATCH,
    });
  }

  /** Merge patch of the status subresource. */
  async patchStatus<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    status: unknown,
    resourceVersion?: string,
  ): Promise<T> {
    return this.#request<T>({
      method: "PATCH",
      path: `${resourcePath(type, namespace, name)}/status`,
      body: withResourceVersion({ status }, resourceVersion),
      contentType: MERGE_PATCH,
    });
  }

  async replace<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    return this.#request<T>({
      method: "PUT",
      path: resourcePath(type, object.metadata.namespace, object.metadata.name),
      body: { apiVersion: apiVersionOf(type), kind: type.kind, ...object },
    });
  }

  /** Deletes; a missing object counts as deleted. `uid` guards against deleting a newer namesake. */
  async delete(type: ResourceType, namespace: string | undefined, name: string, uid?: string): Promise<void> {
    try {
      await this.#request({
        method: "DELETE",
        path: resourcePath(type, namespace, name),
        ...(uid ? { body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid } } } : {}),
      });
    } catch (e) {
      if (e instanceof KubeError && e.kind === "notFound") return;
      throw e;
    }
  }

  /**
   * Streams watch events to `onEvent` until the apiserver closes the watch ("closed"), nothing
   * arrives for idleTimeoutMs ("idle"), or the signal fires ("aborted"). An ERROR event or a
   * failed request rejects with a KubeError (kind "gone" for 410: the caller must list again).
   */
  async watch<T extends KubeObject>(
    type: ResourceType,
    o: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
  ): Promise<WatchEnd> {
    const url = this.#url(resourcePath(type, o.namespace), {
      watch: 1,
      allowWatchBookmarks: true,
      resourceVersion: o.resourceVersion,
      timeoutSeconds: o.timeoutSeconds,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
    });
    const options = await this.#options("GET", undefined, { watch: true });
    return new Promise<WatchEnd>((resolve, reject) => {
      let settled = false;
      let idleTimer: NodeJS.Timeout | undefined;
      const finish = (end: WatchEnd | KubeError) => {
        if (settled) return;
        settled = true;
        if (idleTimer) clearTimeout(idleTimer);
        o.signal?.removeEventListener("abort", onAbort);
        req.destroy();
        if (end instanceof KubeError) reject(end);
        else resolve(end);
      };
      const touch = () => {
        if (!o.idleTimeoutMs) return;
        if (idleTimer) clearTimeout(idleTimer);
        idleTimer = setTimeout(() => finish("idle"), o.idleTimeoutMs);
      };
      const onAbort = () => finish("aborted");
      if (o.signal?.aborted) return resolve("aborted");
      o.signal?.addEventListener("abort", onAbort, { once: true });

      const req = this.#transport(url).request(url, options, (res) => {
        if (res.statusCode !== 200) {
          readAll(res).then(
            (body) => finish(kubeErrorFromStatus(res.statusCode ?? 0, body, `watch ${type.plural}`)),
            (e: unknown) => finish(networkError(`watch ${type.plural}`, e)),
          );
          return;
        }
        touch();
        res.on("data", touch);
        const lines = createInterface({ input: res, crlfDelay: Number.POSITIVE_INFINITY });
        // readline re-emits the response's errors (e.g. "aborted" when the watch is stopped); unheard, they crash the process.
        lines.on("error", (e) => finish(networkError(`watch ${type.plural}`, e)));
        lines.on("line", (line) => {
          if (settled || line.trim() === "") return;
          let event: { type: string; object: unknown };
          try {
            event = JSON.parse(line) as { type: string; object: unknown };
          } catch {
            finish(new KubeError("server", `watch ${type.plural}: malformed event`));
            return;
          }
          if (event.type === "ERROR") {
            const s = event.object as { code?: number; message?: string; reason?: string };
            finish(kubeErrorFromStatus(s.code ?? 500, JSON.stringify(s), `watch ${type.plural}`));
            return;
          }
          const obj = event.object as T;
          onEvent({
            type: event.type as WatchEventType,
            object: { apiVersion: apiVersionOf(type), kind: type.kind, ...obj },
          });
        });
        res.on("end", () => finish("closed"));
        res.on("error", (e) => finish(networkError(`watch ${type.plural}`, e)));
      });
      req.on("error", (e) => finish(networkError(`watch ${type.plural}`, e)));
      req.end();
    });
  }

  // -------------------------------------------------------------------------------------------
  // plumbing

  async #request<T>(r: RequestSpec): Promise<T> {
    const url = this.#url(r.path, r.query);
    const options = await this.#options(
      r.method,
      r.contentType ?? (r.body === undefined ? undefined : "application/json"),
    );
    const what = `${r.method} ${r.path}`;
    // A timer cleared when the request ends, rather than AbortSignal.timeout, which would keep
    // every request's objects alive for the whole timeout.
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException("timed out", "TimeoutError")),
      this.#timeoutMs,
    );
    const signal = r.signal ? AbortSignal.any([r.signal, deadline.signal]) : deadline.signal;
    const body = r.body === undefined ? undefined : JSON.stringify(r.body);
    // Without a length, a DELETE's body would be read as the start of the next request on the
    // same keep-alive connection.
    if (body !== undefined)
      options.headers = { ...options.headers, "content-length": String(Buffer.byteLength(body)) };
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = this.#transport(url).request(url, { ...options, signal }, (res) => {
        readAll(res).then((t) => resolve({ status: res.statusCode ?? 0, text: t }), reject);
      });
      req.on("error", (e) => reject(networkError(what, e)));
      req.end(body);
    }).finally(() => clearTimeout(timer));
    if (status < 200 || status >= 300) throw kubeErrorFromStatus(status, text, what);
    try {
      return (text ? JSON.parse(text) : undefined) as T;
    } catch (e) {
      throw new KubeError(
        "server",
        `${what}: the apiserver answered ${status} with a body that is not JSON`,
        status,
        undefined,
        e,
      );
    }
  }

  #url(path: string, query?: RequestSpec["query"]): URL {
    const url = new URL(this.#server.pathname.replace(/\/+$/, "") + path, this.#server);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  #transport(url: URL): typeof https | typeof http {
    return url.protocol === "http:" ? http : https;
  }

  /**
   * Request options with fresh credentials (tokens may rotate) and a shared keep-alive agent: one
   * for requests, capped, and one for watches, which hold their connection for as long as they run
   * (one per kind and watched namespace, and more with every kind and --namespace). Watches on the
   * capped agent would take its every socket once they outnumber the cap, and leave lists, patches
   * and status writes waiting for ever.
   */
  async #options(
    method: string,
    contentType?: string,
    o: { watch?: boolean } = {},
  ): Promise<https.RequestOptions> {
    const opts: https.RequestOptions = {
      method,
      headers: {
        accept: "application/json",
        "user-agent": this.#userAgent,
        ...(contentType ? { "content-type": contentType } : {}),
      },
    };
    await this.#auth.apply(opts);
    // Watches: no cap (each is one long request); requests: at most REQUEST_SOCKETS at once.
    const newAgent = (maxSockets: number): http.Agent =>
      this.#server.protocol === "https:"
        ? new https.Agent({
            keepAlive: true,
            maxSockets,
            ...(opts.ca ? { ca: opts.ca } : {}),
            ...(opts.cert ? { cert: opts.cert } : {}),
            ...(opts.key ? { key: opts.key } : {}),
            ...(opts.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: opts.rejectUnauthorized }),
          })
        : new http.Agent({ keepAlive: true, maxSockets });
    if (o.watch) {
      this.#watchAgent ??= newAgent(Number.POSITIVE_INFINITY);
      opts.agent = this.#watchAgent;
    } else {
      this.#agent ??= newAgent(REQUEST_SOCKETS);
      opts.agent = this.#agent;
    }
    return opts;
  }

  /** Closes idle keep-alive connections (shutdown). */
  close(): void {
    this.#agent?.destroy();
    this.#watchAgent?.destroy();
  }
}

/** Requests (not watches) in flight at once to the apiserver. */
const REQUEST_SOCKETS = 32;

export function resourcePath(type: ResourceType, namespace?: string, name?: string): string {
  const base = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  const ns = type.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${base}${ns}/${type.plural}${name ? `/${encodeURIComponent(name)}` : ""}`;
}

function withResourceVersion(
  patch: Record<string, unknown>,
  resourceVersion?: string,
): Record<string, unknown> {
  if (!resourceVersion) return patch;
  const metadata = (patch.metadata ?? {}) as Record<string, unknown>;
  return { ...patch, metadata: { ...metadata, resourceVersion } };
}

function readAll(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.on("error", reject);
  });
}

function networkError(what: string, e: unknown): KubeError {
  const detail = e instanceof Error ? e.message : String(e);
  return new KubeError("network", `${what}: ${detail}`, undefined, undefined, e);
}
