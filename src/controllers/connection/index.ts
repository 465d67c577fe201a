// Wiring of the two connection kinds: informers (HarborConnection in the watched namespaces,
// ClusterHarborConnection always cluster-wide), a Controller per kind, and the Connections
// resolver that managed kinds resolve their spec.connectionRef against.
import type { Logger } from "pino";
import { GROUP, VERSION } from "../../api/common.ts";
import { clusterHarborConnection, harborConnection } from "../../api/connection.ts";
import type { EndpointRegistry } from "../../harbor/endpoints.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import { SecretWriter } from "../../kube/secrets.ts";
import { type KubeObject, objectKey, type ResourceType } from "../../kube/types.ts";
import { Controller } from "../../runtime/controller.ts";
import { Informer } from "../../runtime/informer.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import { ConnectionReconciler } from "./controller.ts";
import { connectionKey } from "./handle.ts";
import type { ConnectionKind } from "./mapping.ts";
import { type ConnectionObject, Connections } from "./resolver.ts";

export { connectionKey, type HarborConnectionHandle } from "./handle.ts";
export { Connections } from "./resolver.ts";

export const HarborConnections: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: harborConnection.plural,
  kind: harborConnection.kind,
  namespaced: true,
};
export const ClusterHarborConnections: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: clusterHarborConnection.plural,
  kind: clusterHarborConnection.kind,
  namespaced: false,
};

export interface ConnectionControllersOptions {
  kube: KubeClient;
  logger: Logger;
  events: EventRecorder;
  metrics?: Metrics;
  /** Namespaces whose HarborConnections are watched; empty or absent: all. */
  namespaces?: readonly string[];
  /** Applies to both kinds: only connections with matching labels are checked and resolvable. */
  labelSelector?: string;
  /** Workers per kind. Default 2. */
  workers?: number;
  /** How often a Ready connection is checked again. */
  driftIntervalMs: number;
  /** Where ClusterHarborConnections' Secrets may be ("*": anywhere); see ConnectionReconcilerOptions. */
  clusterResourceNamespace?: string;
  reconcileTimeoutMs?: number;
  /** Backoff of a connection that is not Ready (defaults 2 s doubling to 30 s). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** How stale status.lastCheckTime may get while nothing else changes (default 10 min). */
  lastCheckRefreshMs?: number;
  /** Per Harbor URL pools and limits; default the process-wide registry. */
  endpoints?: EndpointRegistry;
  /** Options for every Harbor client (tests: shorter timeouts, fewer retries). */
  clientDefaults?: { timeoutMs?: number; maxRetries?: number };
  probeDeadlineMs?: number;
  callTimeoutMs?: number;
}

export interface ConnectionControllers {
  connections: Connections;
  informers: Informer<ConnectionObject>[];
  controllers: Controller[];
  /**
   * Checks again, now, the connections whose credentials are in this Secret. Connections never
   * watch Secrets themselves; the composition root calls this for the Secrets it does watch.
   */
  secretChanged(namespace: string, name: string): void;
  /**
   * Tells the connections who uses them (the managed kinds, set by the composition root): a
   * connection being deleted stays until nothing uses it.
   */
  setUsers(usersOf: (key: string) => string[]): void;
  /** A resource stopped using the connection with this key (it went, or now uses another one). */
  userGone(key: string): void;
  start(): void;
  /** Resolves once every informer has listed. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  /**
   * Resolves once every connection has been checked once (Ready or not), or after `maxMs`: the
   * managed kinds start their workers then, so that a restart does not judge resources against
   * connections nobody has looked at yet.
   */
  waitForFirstChecks(signal: AbortSignal, maxMs: number): Promise<void>;
  /** Stops controllers and informers, then closes every Harbor client. */
  stop(): Promise<void>;
}

export function createConnectionControllers(o: ConnectionControllersOptions): ConnectionControllers {
  const logger = o.logger.child({ component: "connections" });
  const connections = new Connections({
    logger,
    ...(o.metrics ? { metrics: o.metrics } : {}),
    ...(o.endpoints ? { endpoints: o.endpoints } : {}),
    ...(o.clientDefaults ? { clientDefaults: o.clientDefaults } : {}),
  });
  const informer = (type: ResourceType, namespaces?: readonly string[]) =>
    new Informer<ConnectionObject>({
      client: o.kube,
      type,
      logger,
      ...(namespaces?.length ? { namespaces } : {}),
      ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
    });
  const namespaced = informer(HarborConnections, o.namespaces);
  // Cluster-scoped: always cluster-wide, whatever namespaces are watched.
  const cluster = informer(ClusterHarborConnections);
  connections.setLookup({
    namespaced: (ns, name) => namespaced.get(`${ns}/${name}`),
    cluster: (name) => cluster.get(name),
    list: () => (namespaced.synced && cluster.synced ? [...namespaced.list(), ...cluster.list()] : undefined),
  });

  const secrets = new SecretWriter(o.kube);
  let usersOf: (key: string) => string[] = () => [];
  const credentialsOf = (obj: ConnectionObject): { namespace: unknown; name: unknown } => {
    const ref = (obj.spec as { credentialsSecretRef?: { namespace?: unknown; name?: unknown } } | undefined)
      ?.credentialsSecretRef;
    return { namespace: ref?.namespace ?? obj.metadata.namespace, name: ref?.name };
  };
  const secretUsedByOthers = (namespace: string, name: string, key: string) =>
    [...namespaced.list(), ...cluster.list()].some((obj) => {
      const ref = credentialsOf(obj);
      return ref.namespace === namespace && ref.name === name && keyOfObject(obj) !== key;
    });
  const controllerFor = (
    kind: ConnectionKind,
    type: ResourceType,
    get: (key: string) => ConnectionObject | undefined,
  ) =>
    new Controller({
      name: kind.toLowerCase(),
      logger,
      workers: o.workers ?? 2,
      ...(o.metrics ? { metrics: o.metrics } : {}),
      ...(o.reconcileTimeoutMs ? { reconcileTimeoutMs: o.reconcileTimeoutMs } : {}),
      reconciler: new ConnectionReconciler({
        kind,
        type,
        get,
        kube: o.kube,
        secrets,
        events: o.events,
        connections,
        driftIntervalMs: o.driftIntervalMs,
        ...(o.clusterResourceNamespace ? { clusterResourceNamespace: o.clusterResourceNamespace } : {}),
        usersOf: (key) => usersOf(key),
        secretUsedByOthers,
        ...pick(o, ["retryBaseMs", "retryMaxMs", "lastCheckRefreshMs", "probeDeadlineMs", "callTimeoutMs"]),
      }),
    });
  const namespacedController = controllerFor("HarborConnection", HarborConnections, (k) => namespaced.get(k));
  const clusterController = controllerFor("ClusterHarborConnection", ClusterHarborConnections, (k) =>
    cluster.get(k),
  );
  route(namespaced, namespacedController);
  route(cluster, clusterController);

  const informers = [namespaced, cluster];
  const controllers = [namespacedController, clusterController];
  return {
    connections,
    informers,
    controllers,
    secretChanged(namespace, name) {
      for (const obj of namespaced.list()) {
        if (obj.metadata.namespace === namespace && secretNameOf(obj) === name)
          namespacedController.enqueue(objectKey(obj));
      }
      for (const obj of cluster.list()) {
        const ref = (obj.spec as { credentialsSecretRef?: { namespace?: unknown } } | undefined)
          ?.credentialsSecretRef;
        if (ref?.namespace === namespace && secretNameOf(obj) === name)
          clusterController.enqueue(objectKey(obj));
      }
    },
    setUsers(fn) {
      usersOf = fn;
    },
    userGone(key) {
      for (const [informer, controller] of [
        [namespaced, namespacedController],
        [cluster, clusterController],
      ] as const) {
        for (const obj of informer.list())
          if (obj.metadata.deletionTimestamp && keyOfObject(obj) === key) controller.enqueue(objectKey(obj));
      }
    },
    start() {
      for (const i of informers) i.start();
      for (const c of controllers) c.start();
    },
    async waitForSync(signal) {
      await Promise.all(informers.map((i) => i.waitForSync(signal)));
    },
    async waitForFirstChecks(signal, maxMs) {
      await Promise.all(informers.map((i) => i.waitForSync(signal)));
      const deadline = Date.now() + maxMs;
      const unchecked = () =>
        [...namespaced.list(), ...cluster.list()].some(
          (obj) => !connections.isChecked(keyOfObject(obj), obj.metadata.generation),
        );
      while (unchecked() && Date.now() < deadline && !signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      await Promise.all(controllers.map((c) => c.stop()));
      await Promise.all(informers.map((i) => i.stop()));
      await connections.close();
    },
  };
}

/** Creates and starts the connection controllers (the composition root's one call). */
export function startConnectionControllers(o: ConnectionControllersOptions): ConnectionControllers {
  const c = createConnectionControllers(o);
  c.start();
  return c;
}

/** Changes that need a check: new objects, spec changes, deletions. Our own status writes do not. */
function route(informer: Informer<ConnectionObject>, controller: Controller): void {
  const enqueue = (obj: KubeObject) => controller.enqueue(objectKey(obj));
  informer.on({
    add: enqueue,
    update: (oldObj, newObj) => {
      const changed =
        oldObj.metadata.generation !== newObj.metadata.generation ||
        oldObj.metadata.deletionTimestamp !== newObj.metadata.deletionTimestamp;
      if (changed) enqueue(newObj);
    },
    delete: enqueue,
  });
}

/** connectionKey of a connection object. */
function keyOfObject(obj: ConnectionObject): string {
  return connectionKey(obj.metadata.namespace ?? "", {
    kind: obj.metadata.namespace ? "HarborConnection" : "ClusterHarborConnection",
    name: obj.metadata.name,
  });
}

function secretNameOf(obj: ConnectionObject): unknown {
  return (obj.spec as { credentialsSecretRef?: { name?: unknown } } | undefined)?.credentialsSecretRef?.name;
}

function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
