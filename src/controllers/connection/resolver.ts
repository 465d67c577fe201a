// Connections: the live Harbor clients of every connection and the answer to "may this namespace
// use that connection now?". The connection controllers build and refresh the clients and report
// each check here; managed resources ask through the runtime's ConnectionResolver interface and get
// a handle only for a connection that exists, allows their namespace and is Ready.
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { ClusterHarborConnectionSpec } from "../../api/connection.ts";
import { HarborClient } from "../../harbor/client.ts";
import type { EndpointRegistry } from "../../harbor/endpoints.ts";
import type { KubeObject } from "../../kube/types.ts";
import type { ConnectionResolver, ManagedSpec } from "../../runtime/external-client.ts";
import { NotReady } from "../../runtime/external-client.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import { connectionKey, type HarborConnectionHandle } from "./handle.ts";
import { harborIdentity, namespaceAllowed } from "./mapping.ts";
import { tenancyFor } from "./tenancy.ts";

export interface ConnectionObject extends KubeObject {
  spec?: unknown;
  status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } & Record<
    string,
    unknown
  >;
}

/** Where the resolver finds the connection objects (the connection informers' caches). */
export interface ConnectionLookup {
  namespaced(namespace: string, name: string): ConnectionObject | undefined;
  cluster(name: string): ConnectionObject | undefined;
  /** Every connection of both kinds, or undefined until both caches have their first list. */
  list(): ConnectionObject[] | undefined;
}

/** Everything a client is built from; a change of any of it builds a new client. */
export interface ClientSettings {
  url: string;
  caBundle?: string | undefined;
  caBundleOnly?: boolean | undefined;
  insecureSkipTLSVerify: boolean;
  requestsPerSecond: number;
  burst: number;
  maxConcurrency: number;
  username: string;
  password: string;
}

/** What the connection controller found in its last check. */
export interface ConnectionState {
  ready: boolean;
  reason: string;
  message: string;
  /** The metadata.generation the check was made for. */
  generation: number | undefined;
  url: string;
  registryHost: string;
  harborVersion?: string | undefined;
}

interface Entry {
  client?: HarborClient;
  fingerprint?: string;
  state?: ConnectionState;
  handle?: HarborConnectionHandle;
  /** A ClusterHarborConnection's handle per namespace, with that namespace's tenancy. */
  tenants?: {
    base: HarborConnectionHandle;
    generation: number | undefined;
    byNamespace: Map<string, HarborConnectionHandle>;
  };
}

export interface ConnectionsOptions {
  logger: Logger;
  metrics?: Metrics;
  /** Pools, rate limiters and concurrency caps shared per Harbor URL; default the process-wide one. */
  endpoints?: EndpointRegistry;
  /** Options for every client, e.g. a shorter timeout in tests. */
  clientDefaults?: { timeoutMs?: number; maxRetries?: number };
}

/** How long resources wait without a word for a connection's check (a probe takes at most 20 s). */
const QUIET_CHECK_WAIT_MS = 60_000;

export class Connections implements ConnectionResolver<HarborConnectionHandle> {
  readonly #o: ConnectionsOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Set<(key: string) => void>();
  /** Since when resources have been waiting for a connection's check, by connection key. */
  readonly #pendingSince = new Map<string, number>();
  #lookup: ConnectionLookup = {
    namespaced: () => undefined,
    cluster: () => undefined,
    list: () => undefined,
  };

  constructor(o: ConnectionsOptions) {
    this.#o = o;
  }

  /** Set by the wiring once the informers exist. */
  setLookup(lookup: ConnectionLookup): void {
    this.#lookup = lookup;
  }

  /**
   * The Harbor a reference points at, by the connection object's URL (whether or not it has been
   * checked): claims are keyed by it. A connection that does not exist stands for itself.
   */
  harborKey(namespace: string, ref: ManagedSpec["connectionRef"]): string {
    const obj = this.#object(namespace, ref);
    const url = (obj?.spec as { url?: unknown } | undefined)?.url;
    return typeof url === "string" ? identityOf(url) : connectionKey(namespace, ref);
  }

  harborOf(conn: HarborConnectionHandle): string {
    return conn.harbor;
  }

  mayAdopt(conn: HarborConnectionHandle): { allowed: true } | { allowed: false; why: string } {
    if (!conn.tenancy || conn.tenancy.allowAdoption) return { allowed: true };
    return {
      allowed: false,
      why: `${conn.tenancy.connection} does not let namespace ${conn.tenancy.namespace} adopt Harbor objects that exist already (spec.tenancy.allowAdoption)`,
    };
  }

  async resolve(namespace: string, ref: ManagedSpec["connectionRef"]): Promise<HarborConnectionHandle> {
    const cluster = ref.kind === "ClusterHarborConnection";
    const what = cluster
      ? `ClusterHarborConnection "${ref.name}"`
      : `HarborConnection "${ref.name}" in namespace "${namespace}"`;
    const obj = this.#object(namespace, ref);
    if (!obj) throw new NotReady("ConnectionNotReady", `${what} does not exist`);
    if (cluster) {
      const allowed = allowedNamespacesOf(obj);
      if (!namespaceAllowed(allowed, namespace)) {
        throw new NotReady(
          "ConnectionNotAllowed",
          `${what} does not allow namespace "${namespace}" (allowedNamespaces: ${allowed.join(", ") || "none"})`,
        );
      }
    }
    const entry = this.#entries.get(connectionKey(namespace, ref));
    const state = entry?.state;
    // The first check, or the check of a changed spec, is on its way and its outcome queues every
    // resource of the connection: wait quietly for it (after a restart, a Ready resource stays so),
    // unless it takes so long that something must be wrong with the check itself.
    const key = connectionKey(namespace, ref);
    if (!state) throw this.#pending(key, `${what} has not been checked yet`);
    if (!state.ready)
      throw new NotReady("ConnectionNotReady", `${what} is not Ready: ${state.reason}: ${state.message}`);
    if (state.generation !== obj.metadata.generation || !entry.handle) {
      throw this.#pending(key, `${what} changed and is being checked again`);
    }
    this.#pendingSince.delete(key);
    return cluster ? this.#tenantHandle(entry, entry.handle, obj, namespace, ref.name) : entry.handle;
  }

  /** A wait for a check in progress: quiet for a while, then reported like any other wait. */
  #pending(key: string, message: string): NotReady {
    const now = Date.now();
    const since = this.#pendingSince.get(key) ?? now;
    this.#pendingSince.set(key, since);
    return new NotReady("ConnectionNotReady", message, { quiet: now - since < QUIET_CHECK_WAIT_MS });
  }

  #object(namespace: string, ref: ManagedSpec["connectionRef"]): ConnectionObject | undefined {
    return ref.kind === "ClusterHarborConnection"
      ? this.#lookup.cluster(ref.name)
      : this.#lookup.namespaced(namespace, ref.name);
  }

  /** The handle with what this namespace may do through the shared connection (one per namespace). */
  #tenantHandle(
    entry: Entry,
    base: HarborConnectionHandle,
    obj: ConnectionObject,
    namespace: string,
    name: string,
  ): HarborConnectionHandle {
    const generation = obj.metadata.generation;
    if (entry.tenants?.base !== base || entry.tenants.generation !== generation) {
      entry.tenants = { base, generation, byNamespace: new Map() };
    }
    let handle = entry.tenants.byNamespace.get(namespace);
    if (!handle) {
      const parsed = ClusterHarborConnectionSpec.safeParse(obj.spec ?? {});
      // A stored object always parses (the CRD schema checks it first); refuse everything if not.
      const tenancy = parsed.success
        ? parsed.data.tenancy
        : { projects: [], allowAdoption: false, allowSystemRobots: false, allowSystemSettings: false };
      handle = { ...base, tenancy: tenancyFor(tenancy, name, namespace) };
      entry.tenants.byNamespace.set(namespace, handle);
    }
    return handle;
  }

  /**
   * Whether the Secret holds the credentials of a connection: a HarborConnection of its namespace or
   * a ClusterHarborConnection naming it, Ready or not. Such a Secret is never sent elsewhere (see
   * controllers/shared/secret-uses.ts). Answered from the informers' caches; until they have listed,
   * NotReady, so nothing is sent on a guess.
   */
  isCredentialsSecret(namespace: string, name: string): boolean {
    const all = this.#lookup.list();
    if (!all) throw new NotReady("ConnectionNotReady", "the connections are still being listed");
    return all.some((obj) => {
      const ref = credentialsSecretOf(obj);
      return ref?.namespace === namespace && ref.name === name;
    });
  }

  /** Whether the connection with this key has been checked at this generation (Ready or not). */
  isChecked(key: string, generation: number | undefined): boolean {
    const state = this.#entries.get(key)?.state;
    return state !== undefined && state.generation === generation;
  }

  /** Called with a connection's key when it turns Ready or not Ready, gets a new client, or goes away. */
  onChange(listener: (key: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The client for these settings: the current one while nothing changed, else a new one (the old
   * one is closed; its requests in flight finish, later calls on it fail and are retried by their
   * reconcile with the new handle).
   */
  clientFor(key: string, settings: ClientSettings): HarborClient {
    const entry = this.#entry(key);
    const fingerprint = fingerprintOf(settings);
    if (entry.client && entry.fingerprint === fingerprint) return entry.client;
    const old = entry.client;
    // Closing first lets the new client get a fresh endpoint, so changed rate limits take effect.
    if (old) this.#close(key, old);
    const client = new HarborClient({
      ...this.#o.clientDefaults,
      ...settings,
      logger: this.#o.logger.child({ connection: key }),
      ...(this.#o.endpoints ? { endpoints: this.#o.endpoints } : {}),
      onCall: (e) => {
        const m = this.#o.metrics;
        if (!m) return;
        m.harborRequests.inc({
          connection: key,
          operation: e.operation,
          method: e.method,
          code: String(e.status ?? 0),
        });
        m.harborRequestDuration.observe(
          { connection: key, operation: e.operation, method: e.method },
          e.durationMs / 1000,
        );
      },
    });
    entry.client = client;
    entry.fingerprint = fingerprint;
    entry.handle = undefined;
    // Until the new client has been checked, resources wait quietly (see resolve).
    if (entry.state) entry.state = { ...entry.state, generation: undefined };
    this.#o.logger.info(
      { connection: key, url: settings.url, replaced: old !== undefined },
      "Harbor client created",
    );
    return client;
  }

  /** Records a check's outcome; listeners hear of it when it changes what resolve() answers. */
  report(key: string, state: ConnectionState): void {
    this.#pendingSince.delete(key);
    const entry = this.#entry(key);
    const before = entry.state;
    const hadHandle = entry.handle;
    entry.state = state;
    if (state.ready && entry.client) {
      const same =
        hadHandle &&
        hadHandle.client === entry.client &&
        hadHandle.url === state.url &&
        hadHandle.registryHost === state.registryHost &&
        hadHandle.harborVersion === state.harborVersion;
      entry.handle = same
        ? hadHandle
        : {
            key,
            client: entry.client,
            url: state.url,
            harbor: identityOf(state.url),
            registryHost: state.registryHost,
            ...(state.harborVersion ? { harborVersion: state.harborVersion } : {}),
          };
    }
    const changed =
      before?.ready !== state.ready ||
      before.reason !== state.reason ||
      before.generation !== state.generation ||
      hadHandle !== entry.handle;
    if (changed) this.#emit(key);
  }

  /** The connection is gone: its client is closed and resources using it wait. */
  forget(key: string): void {
    this.#pendingSince.delete(key);
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    if (entry.client) this.#close(key, entry.client);
    this.#emit(key);
  }

  /** Closes every client (shutdown). */
  async close(): Promise<void> {
    const clients = [...this.#entries.values()].flatMap((e) => (e.client ? [e.client] : []));
    this.#entries.clear();
    await Promise.allSettled(clients.map((c) => c.close()));
  }

  #entry(key: string): Entry {
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = {};
      this.#entries.set(key, entry);
    }
    return entry;
  }

  #close(key: string, client: HarborClient): void {
    client.close().catch((e: unknown) => {
      this.#o.logger.warn(
        { connection: key, err: e instanceof Error ? e.message : String(e) },
        "closing a Harbor client failed",
      );
    });
  }

  #emit(key: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(key);
      } catch (e) {
        this.#o.logger.error(
          { connection: key, err: e instanceof Error ? e.message : String(e) },
          "connection listener failed",
        );
      }
    }
  }
}

/** harborIdentity, or the URL as written when it cannot be parsed (the CRD schema checks it first). */
function identityOf(url: string): string {
  try {
    return harborIdentity(url);
  } catch {
    return url;
  }
}

function allowedNamespacesOf(obj: ConnectionObject): string[] {
  const list = (obj.spec as { allowedNamespaces?: unknown } | undefined)?.allowedNamespaces;
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === "string") : [];
}

/** A connection's credentials Secret: a HarborConnection's is in its own namespace. */
function credentialsSecretOf(obj: ConnectionObject): { namespace: string; name: string } | undefined {
  const ref = (obj.spec as { credentialsSecretRef?: { name?: unknown; namespace?: unknown } } | undefined)
    ?.credentialsSecretRef;
  const namespace = obj.metadata.namespace || ref?.namespace;
  if (typeof ref?.name !== "string" || typeof namespace !== "string") return undefined;
  return { namespace, name: ref.name };
}

/** A digest, so the password is not kept a second time in the clear. */
function fingerprintOf(s: ClientSettings): string {
  return createHash("sha256")
    .update(
      JSON.stringify([
        s.url,
        s.caBundle ?? "",
        s.caBundleOnly,
        s.insecureSkipTLSVerify,
        s.requestsPerSecond,
        s.burst,
        s.maxConcurrency,
        s.username,
        s.password,
      ]),
    )
    .digest("hex");
}
