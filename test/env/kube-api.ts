// Reading the cluster from a test without a process per read: what `kubectl get -o json` shows,
// fetched over the apiserver's REST API, and waits that follow a watch instead of polling. Tests
// still act as users do, with kubectl (apply, delete, the printed tables, `kubectl wait` where that
// is the subject); only their looking and waiting goes through here, since a kubectl process per
// look was the largest cost of the suite (about 170 ms of CPU each, four a second while waiting).
//
// Resource names are the ones kubectl takes ("harborproject", "harborprojects", "secret",
// "deploy", "lease.coordination.k8s.io"), resolved through the apiserver's aggregated discovery.
import https from "node:https";
import { KubeClient, resourcePath } from "../../src/kube/client.ts";
import { KubeError } from "../../src/kube/errors.ts";
import { loadKubeAuth } from "../../src/kube/kubeconfig.ts";
import type { ResourceType } from "../../src/kube/types.ts";
import { budget } from "./budget.ts";
import type { KubeObject } from "./kubectl.ts";

/** A resource of aggregated discovery (apidiscovery.k8s.io/v2). */
interface DiscoveredResource {
  resource: string;
  singularResource?: string;
  shortNames?: string[];
  scope: "Namespaced" | "Cluster";
  responseKind?: { kind: string };
}
interface DiscoveryList {
  items: Array<{
    metadata: { name?: string };
    versions: Array<{ version: string; resources?: DiscoveredResource[] }>;
  }>;
}

const AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

export class ClusterApi {
  readonly client: KubeClient;
  readonly #kubeconfigPath: string;
  #auth: ReturnType<typeof loadKubeAuth> | undefined;
  #types: Promise<Array<{ group: string; type: ResourceType; names: string[] }>> | undefined;

  constructor(kubeconfigPath: string) {
    this.#kubeconfigPath = kubeconfigPath;
    this.client = KubeClient.fromOptions({
      kubeconfig: kubeconfigPath,
      timeoutMs: budget.requestMs,
      userAgent: "harbor-config-operator-tests",
    });
  }

  /** The REST resource behind a name as kubectl takes it. */
  async resolve(resource: string): Promise<ResourceType> {
    const wanted = resource.toLowerCase();
    const dot = wanted.indexOf(".");
    const name = dot < 0 ? wanted : wanted.slice(0, dot);
    const group = dot < 0 ? undefined : wanted.slice(dot + 1);
    // As kubectl: the core group first, then the groups in discovery order.
    const lookup = async () => {
      this.#types ??= this.#discover();
      return (await this.#types).find(
        (t) => (group === undefined || t.group === group) && t.names.includes(name),
      );
    };
    let found = await lookup();
    if (!found) {
      // A CRD installed since the last look: discover again, once.
      this.#types = undefined;
      found = await lookup();
    }
    if (!found) throw new Error(`the apiserver serves no resource "${resource}"`);
    return found.type;
  }

  /** The object as `kubectl get -o json` shows it; rejects with KubeError (kind notFound) when absent. */
  async get<T = KubeObject>(resource: string, namespace: string | undefined, name: string): Promise<T> {
    const type = await this.resolve(resource);
    return withKind(type, await this.client.get(type, type.namespaced ? namespace : undefined, name)) as T;
  }

  /** The object, or undefined when it does not exist. */
  async find<T = KubeObject>(
    resource: string,
    namespace: string | undefined,
    name: string,
  ): Promise<T | undefined> {
    try {
      return await this.get<T>(resource, namespace, name);
    } catch (e) {
      if (e instanceof KubeError && e.kind === "notFound") return undefined;
      throw e;
    }
  }

  /** Every object of the resource in the namespace (every namespace for cluster-scoped ones). */
  async list<T = KubeObject>(
    resource: string,
    namespace: string | undefined,
    o: { labelSelector?: string; fieldSelector?: string } = {},
  ): Promise<{ items: T[] }> {
    const type = await this.resolve(resource);
    const r = await this.client.list(type, { ...(type.namespaced && namespace ? { namespace } : {}), ...o });
    return { items: r.items as T[] };
  }

  /**
   * Takes the operator's finalizers (every `harborconfig.io/…` one) off what is left in the
   * namespace, its kinds and Secrets: for a test file's namespace once its operator has stopped.
   * Without them the namespace's deletion would wait forever, and kube-controller-manager would go
   * over every resource type of the namespace again and again for the rest of the run.
   */
  async releaseFinalizers(namespace: string): Promise<void> {
    this.#types ??= this.#discover();
    const types = (await this.#types)
      .map((t) => t.type)
      .filter(
        (t) => t.namespaced && (t.group === "harborconfig.io" || (t.group === "" && t.plural === "secrets")),
      );
    const ours = (f: string) => f.startsWith("harborconfig.io/");
    await Promise.all(
      types.map(async (type) => {
        for (const o of (await this.client.list(type, { namespace })).items) {
          const finalizers = o.metadata.finalizers ?? [];
          if (!finalizers.some(ours)) continue;
          await this.client
            .mergePatch(type, namespace, o.metadata.name, {
              metadata: { finalizers: finalizers.filter((f) => !ours(f)) },
            })
            .catch((e: unknown) => {
              if (!(e instanceof KubeError && e.kind === "notFound")) throw e;
            });
        }
      }),
    );
  }

  /**
   * Follows the object until `predicate` holds for it, and returns it then: one read, then a watch
   * of that one object. The predicate sees each version the apiserver sends; an absent object is
   * never passed to it. Rejects after `timeoutMs` (the budget's operator wait by default), naming
   * the object and showing the last version seen.
   */
  async waitFor<T = KubeObject>(
    resource: string,
    namespace: string | undefined,
    name: string,
    predicate: (o: T) => boolean,
    timeoutMs: number = budget.operatorMs,
  ): Promise<T> {
    const type = await this.resolve(resource);
    const ns = type.namespaced ? namespace : undefined;
    const selector = { ...(ns ? { namespace: ns } : {}), fieldSelector: `metadata.name=${name}` };
    const deadline = Date.now() + timeoutMs;
    let last: T | undefined;
    for (;;) {
      const listed = await this.client.list(type, selector);
      last = listed.items[0] as T | undefined;
      if (last !== undefined && predicate(last)) return last;
      const left = deadline - Date.now();
      if (left <= 0) break;
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), left);
      let met: T | undefined;
      try {
        await this.client.watch<never>(
          type,
          {
            ...selector,
            resourceVersion: listed.resourceVersion,
            timeoutSeconds: Math.max(1, Math.ceil(Math.min(left, 30_000) / 1000)),
            signal: stop.signal,
          },
          (e) => {
            if (met !== undefined || e.type === "BOOKMARK") return;
            if (e.type === "DELETED") {
              last = undefined;
              return;
            }
            last = e.object as T;
            if (predicate(last)) {
              met = last;
              stop.abort();
            }
          },
        );
      } catch (e) {
        // 410 Gone or a dropped connection: read again and watch from there.
        if (!(e instanceof KubeError)) throw e;
      } finally {
        clearTimeout(timer);
      }
      if (met !== undefined) return met;
    }
    const where = ns ? `${ns}/${name}` : name;
    throw new Error(
      `timed out after ${timeoutMs} ms waiting for ${resource} ${where}; last seen: ${JSON.stringify(last)}`,
    );
  }

  /** Resolves once the object is gone (its finalizers done). */
  async waitGone(
    resource: string,
    namespace: string | undefined,
    name: string,
    timeoutMs: number = budget.operatorMs,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // A deleted object produces no version the predicate could see: look between short watches.
    while ((await this.find(resource, namespace, name)) !== undefined) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${resource} ${name} to go`);
      await this.waitFor(resource, namespace, name, () => false, Math.min(left, 1_000)).catch(
        () => undefined,
      );
    }
  }

  /**
   * Whether the apiserver admits the object as `kubectl apply` would send it (a create, or a merge
   * patch over the object of that name if there is one), without storing anything: undefined when
   * it does, else the message kubectl prints (the CRD schema's or a CEL rule's words, naming the
   * field). A server-side dry run with strict field validation, as kubectl apply validates.
   */
  async admit(
    object: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } },
    namespace?: string,
  ): Promise<string | undefined> {
    const slash = object.apiVersion.indexOf("/");
    const type = await this.resolve(
      slash < 0 ? object.kind : `${object.kind}.${object.apiVersion.slice(0, slash)}`,
    );
    const ns = type.namespaced ? (object.metadata.namespace ?? namespace) : undefined;
    // As kubectl's (client-side) apply: a create when there is no such object, else a merge patch
    // that also removes what the last apply set and this one leaves out.
    const current = await this.find<KubeObject>(
      type.group ? `${type.plural}.${type.group}` : type.plural,
      ns,
      object.metadata.name,
    );
    const query = "?dryRun=All&fieldManager=kubectl-client-side-apply&fieldValidation=Strict";
    const lastApplied = current?.metadata.annotations?.[LAST_APPLIED];
    const r = current
      ? await this.#raw(
          "PATCH",
          `${resourcePath(type, ns, object.metadata.name)}${query}`,
          "application/json",
          withRemovals(lastApplied ? (JSON.parse(lastApplied) as unknown) : {}, object),
          "application/merge-patch+json",
        )
      : await this.#raw("POST", `${resourcePath(type, ns)}${query}`, "application/json", object);
    if (r.status >= 200 && r.status < 300) return undefined;
    const status = JSON.parse(r.body) as {
      message?: string;
      reason?: string;
      details?: { kind?: string; name?: string };
    };
    const message = status.message ?? r.body;
    // kubectl words an Invalid answer as `The <Kind> "<name>" is invalid: …`; the causes are the same.
    const invalid = / is invalid: ([\s\S]*)$/.exec(message);
    return status.reason === "Invalid" && invalid && status.details?.kind
      ? `The ${status.details.kind} "${status.details.name}" is invalid: ${invalid[1]}`
      : message;
  }

  /**
   * Asks once for the OpenAPI documents kubectl reads before its first apply over an existing
   * object: the apiserver builds them on the first request (seconds of CPU with the CRDs), and a
   * test whose kubectl happened to ask first would pay for it against its own timeout.
   */
  async warmOpenApi(): Promise<void> {
    for (const path of ["/openapi/v2", "/openapi/v3", "/openapi/v3/apis/harborconfig.io/v1alpha1"])
      await this.#raw("GET", path, "application/json").catch(() => undefined);
  }

  async #discover(): Promise<Array<{ group: string; type: ResourceType; names: string[] }>> {
    const out: Array<{ group: string; type: ResourceType; names: string[] }> = [];
    for (const path of ["/api", "/apis"]) {
      const list = await this.#rawGet<DiscoveryList>(path, AGGREGATED);
      for (const g of list.items) {
        const group = g.metadata.name ?? "";
        // The first version listed is the preferred one.
        const v = g.versions[0];
        for (const r of v?.resources ?? []) {
          if (!v || !r.responseKind) continue;
          const kind = r.responseKind.kind;
          out.push({
            group,
            type: {
              group,
              version: v.version,
              plural: r.resource,
              kind,
              namespaced: r.scope === "Namespaced",
            },
            names: [r.resource, r.singularResource ?? "", kind.toLowerCase(), ...(r.shortNames ?? [])].filter(
              Boolean,
            ),
          });
        }
      }
    }
    return out;
  }

  async #rawGet<T>(path: string, accept: string): Promise<T> {
    const r = await this.#raw("GET", path, accept);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body.slice(0, 200)}`);
    return JSON.parse(r.body) as T;
  }

  /** One request outside KubeClient's verbs (discovery, a dry run), with the same credentials. */
  async #raw(
    method: string,
    path: string,
    accept: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<{ status: number; body: string }> {
    this.#auth ??= loadKubeAuth(this.#kubeconfigPath);
    const url = new URL(path, this.#auth.server);
    const headers: Record<string, string> = {
      accept,
      ...(body === undefined ? {} : { "content-type": contentType }),
    };
    const options: https.RequestOptions = { method, headers };
    await this.#auth.apply(options);
    return new Promise((resolve, reject) => {
      const req = https.request(url, options, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.setTimeout(budget.requestMs, () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** `modified`, with null for every field `last` has and `modified` leaves out (a merge patch removes those). */
function withRemovals(last: unknown, modified: unknown): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(last) || !isObject(modified)) return modified;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(last)) if (!(key in modified)) out[key] = null;
  for (const [key, value] of Object.entries(modified)) out[key] = withRemovals(last[key], value);
  return out;
}

/** Lists and single objects carry apiVersion and kind, as kubectl prints them. */
function withKind(type: ResourceType, o: unknown): unknown {
  const apiVersion = type.group ? `${type.group}/${type.version}` : type.version;
  return { apiVersion, kind: type.kind, ...(o as object) };
}

const apis = new Map<string, ClusterApi>();

/** One reader per kubeconfig file in a process (its discovery read once). */
export function clusterApi(kubeconfigPath: string): ClusterApi {
  let api = apis.get(kubeconfigPath);
  if (!api) {
    api = new ClusterApi(kubeconfigPath);
    apis.set(kubeconfigPath, api);
  }
  return api;
}

interface WithReady {
  metadata: { generation?: number };
  status?: {
    observedGeneration?: number;
    conditions?: Array<{ type: string; status: string; observedGeneration?: number }>;
  };
}

/**
 * What `kubectl wait --for=condition=Ready` waits for: a Ready condition with status True that does
 * not describe an older generation (the condition's observedGeneration, else the status's).
 */
export function readyAsKubectlWaits(o: WithReady): boolean {
  const c = o.status?.conditions?.find((x) => x.type.toLowerCase() === "ready");
  if (!c) return false;
  const generation = o.metadata.generation;
  const observed = c.observedGeneration ?? o.status?.observedGeneration;
  if (generation !== undefined && observed !== undefined && observed < generation) return false;
  return c.status.toLowerCase() === "true";
}
