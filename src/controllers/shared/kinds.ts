// What every kind is made of: the context the composition root gives, the self-description each
// kind exports (KindModule for managed kinds, RunKindModule for run kinds), and the one way each
// is wired (managedKind, runKind).
import type { Logger } from "pino";
import type { KindDefinition } from "../../api/common.ts";
import { GROUP, harborNameProblem, VERSION } from "../../api/common.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { SecretWriter } from "../../kube/secrets.ts";
import type { NamespaceObject, ResourceType, ServiceAccountObject } from "../../kube/types.ts";
import type {
  ConnectionResolver,
  ErrorClassifier,
  ExternalClient,
  HarborId,
  ManagedObject,
  ManagedSpec,
} from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import { ManagedKind } from "../../runtime/kind.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import { RunKind } from "../../runtime/run.ts";
import type { RunExternal, RunSpec } from "../../runtime/run-external.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { harborErrors } from "./errors.ts";
import type { KindExporter } from "./export.ts";
import type { FreshProjects } from "./fresh-projects.ts";
import { type ReleaseField, withReleaseFields } from "./release-fields.ts";
import type { SecretUses } from "./secret-uses.ts";

export interface KindContext {
  kube: KubeClient;
  logger: Logger;
  metrics: Metrics;
  events: EventRecorder;
  connections: ConnectionResolver<HarborConnectionHandle>;
  /** The one writer of the operator's Secrets: it knows its own writes, so their echoes are skipped. */
  secrets: SecretWriter;
  /** Reads Secrets whose value goes where a resource says (auth headers, credentials), if they opt in. */
  secretUses: SecretUses;
  workers: number;
  driftIntervalMs: number;
  /** How often status that costs extra Harbor reads is refreshed. */
  statusRefreshIntervalMs: number;
  reconcileTimeoutMs?: number;
  /** See ManagedReconcilerOptions.waitTimeoutMs. */
  dependencyTimeoutMs?: number;
  /** Watch these namespaces only (default all). */
  namespaces?: readonly string[];
  /** Where ClusterHarborConnections' Secrets are (--cluster-resource-namespace; "*": anywhere). */
  clusterResourceNamespace?: string;
  /** Robots' copies in namespaces that do not accept them: kept (default) or removed (--copies-without-consent). */
  copiesWithoutConsent?: "keep" | "remove";
  labelSelector?: string;
  /** Tells the connection controllers that a watched Secret changed (credentials apply at once). */
  secretChanged?: (namespace: string, name: string) => void;
  /** Tells the connection controllers that a resource no longer uses the connection with this key. */
  connectionUserGone?: (key: string) => void;
}

export function resourceType(def: KindDefinition): ResourceType {
  return {
    group: GROUP,
    version: VERSION,
    plural: def.plural,
    kind: def.kind,
    namespaced: def.scope === "Namespaced",
  };
}

/** What a kind's external client may use besides the context: the caches of other kinds. */
export interface KindDeps {
  ctx: KindContext;
  /** The informer of a managed or run kind, by Kubernetes kind (shared: e.g. robots read projects'). */
  informer(kind: string): Informer<ManagedObject>;
  /** Every Namespace, cluster-wide (for kinds that follow namespaces). */
  namespaces: Informer<NamespaceObject>;
  /** Projects this operator has just created (what a new project cannot hold needs no lookup). */
  fresh: FreshProjects;
}

/**
 * How a kind references resources of another kind:
 * - a function: the referenced resource's name, in the referencing resource's namespace (a
 *   `projectRef`, a `registryRef`);
 * - `{ matches }`: for references a name in the namespace cannot express — a Harbor object named
 *   in a field (a label in a replication filter), or an identity such as an LDAP DN — whether the
 *   target, of any namespace, is referenced. It runs per pair of resources on an event: keep it
 *   cheap. `releaseOnly`: the referencing resource does not wait for the target (a replication
 *   filter names labels whether or not a resource manages them), so a target's changes queue
 *   nothing; only its release (below) is followed.
 */
export type ReferenceWatch<S> =
  | ((spec: S) => string | undefined)
  | { matches: (spec: S, namespace: string, target: ManagedObject) => boolean; releaseOnly?: boolean };

/**
 * What a kind follows, so that a change elsewhere queues exactly the resources it concerns — as
 * controller-runtime's `Watches` with a map function. Each function reads a resource's typed spec
 * as stored (the CRD has applied its defaults) and must stay cheap: it runs per resource per event.
 */
export interface KindWatches<S> {
  /**
   * Resources of other kinds this kind references, by Kubernetes kind (see ReferenceWatch). A
   * referenced resource appearing, turning Ready, changing its Harbor id or going queues the
   * resources that reference it; a referencing resource going, or its spec no longer referencing
   * one, queues the one it referenced (whose deletion may have waited for it: a registry a policy
   * uses, a label a replication filter names, a user group a member grants).
   */
  references?: Readonly<Record<string, ReferenceWatch<S>>>;
  /** Secrets of its namespace whose values it reads: queued when one (labelled harborconfig.io/watch) changes. */
  secrets?: (spec: S) => readonly (string | undefined)[];
  /** Queued when a Namespace appears, goes or changes its labels. */
  namespaces?: (spec: S) => boolean;
  /** Queued when a ServiceAccount appears or loses an entry of its imagePullSecrets. */
  serviceAccounts?: (
    resource: ManagedObject,
    account: ServiceAccountObject,
    namespaceLabels: Readonly<Record<string, string>> | undefined,
    removed: readonly string[] | undefined,
  ) => boolean;
}

/**
 * A managed kind's self-description: everything the central wiring, the RBAC and the CRDs need.
 * Adding a kind is its folder, its API definition, and one line in controllers/kind-list.ts.
 *
 * Optionally the kind can be exported (`kubectl harbor export`, `kubectl harbor diff`): then it
 * declares an `exporter` (see shared/export.ts for the contract), written in its folder's
 * export.ts from the inverse of its mapping.ts — Harbor object → spec — such that the kind's own
 * diff of the exported spec against the same object is empty.
 */
export interface KindModule<
  S extends ManagedSpec = ManagedSpec,
  O = unknown,
  X = unknown,
  St = unknown,
  Id extends HarborId = number,
> {
  /** The API definition: names, columns, and the spec's and status's schemas. */
  def: KindDefinition<S, St>;
  watches?: KindWatches<S>;
  /**
   * The kind's Harbor side: the status it reports is the definition's status type, its ids are
   * Harbor's for the kind (numbers, or UUIDs for scanner registrations).
   */
  external(deps: KindDeps): ExternalClient<S, O, HarborConnectionHandle, X, St, Id>;
  /**
   * Spec fields only some Harbor releases have: a resource using one the connected Harbor lacks is
   * refused before any Harbor call (UnsupportedByHarbor; see shared/release-fields.ts).
   */
  releaseFields?: readonly ReleaseField<S>[];
  /** Default: the shared Harbor classification. */
  errors?: ErrorClassifier;
  /**
   * Writes Secrets owned by its resources (ownerReference with blockOwnerDeletion), which needs
   * `update` on `<plural>/finalizers` where OwnerReferencesPermissionEnforcement is on.
   */
  ownsSecrets?: boolean;
  /**
   * Reads every object of the kind from a Harbor and turns each into a spec, the inverse of the
   * kind's request mapping (see shared/export.ts). Absent: the CLI lists the kind as not exported yet.
   */
  exporter?: KindExporter<S>;
}

/** Declares a kind; the types of its spec, status, Harbor object and prepared extras flow from here. */
export function defineKind<S extends ManagedSpec, O, X, St, Id extends HarborId = number>(
  m: KindModule<S, O, X, St, Id>,
): KindModule<S, O, X, St, Id> {
  return m;
}

/** One managed kind, wired the same way as every other. */
export function managedKind<S extends ManagedSpec, O, X, St, Id extends HarborId>(
  m: KindModule<S, O, X, St, Id>,
  deps: KindDeps,
): ManagedKind<S, O, HarborConnectionHandle, X, Id> {
  const { ctx } = deps;
  const nameRule = m.def.harborName;
  return new ManagedKind(ctx.kube, {
    type: resourceType(m.def),
    specSchema: m.def.spec,
    informer: deps.informer(m.def.kind),
    external: withReleaseFields(m.external(deps), m.releaseFields),
    connections: ctx.connections,
    errors: m.errors ?? harborErrors,
    ...(nameRule ? { nameProblem: (name: string) => harborNameProblem(nameRule, name) } : {}),
    kube: ctx.kube,
    events: ctx.events,
    logger: ctx.logger.child({ kind: m.def.kind }),
    metrics: ctx.metrics,
    workers: ctx.workers,
    driftIntervalMs: ctx.driftIntervalMs,
    ...(ctx.reconcileTimeoutMs ? { reconcileTimeoutMs: ctx.reconcileTimeoutMs } : {}),
    ...(ctx.dependencyTimeoutMs ? { waitTimeoutMs: ctx.dependencyTimeoutMs } : {}),
  });
}

/**
 * A run kind's self-description: a resource that is one Harbor execution (a GC, a replication
 * execution), started once and followed to its end by the RunReconciler. Adding one is its folder,
 * its API definition (lifecycle "run"), and one line in RUN_KINDS of controllers/kind-list.ts.
 */
export interface RunKindModule<S extends RunSpec = RunSpec, E = unknown, X = unknown, St = unknown> {
  /** The API definition: names, columns, and the spec's and status's schemas. */
  def: KindDefinition<S, St>;
  /**
   * Resources of other kinds it references in its own namespace, by Kubernetes kind: the referenced
   * name. Any change of a referenced resource's spec, readiness or Harbor id queues the runs that
   * reference it (a run waits on what its target's status says, e.g. a policy turning Ready).
   */
  watches?: { references?: Readonly<Record<string, (spec: S) => string | undefined>> };
  /** The kind's Harbor side. */
  external(deps: KindDeps): RunExternal<S, E, HarborConnectionHandle, X, St>;
  /** Spec fields only some Harbor releases have, checked before the run starts (as KindModule's). */
  releaseFields?: readonly ReleaseField<S>[];
  /** Default: the shared Harbor classification. */
  errors?: ErrorClassifier;
}

/** Declares a run kind; the types of its spec, status, execution and prepared extras flow from here. */
export function defineRunKind<S extends RunSpec, E, X, St>(
  m: RunKindModule<S, E, X, St>,
): RunKindModule<S, E, X, St> {
  return m;
}

/** One run kind, wired the same way as every other. */
export function runKind<S extends RunSpec, E, X, St>(
  m: RunKindModule<S, E, X, St>,
  deps: KindDeps,
): RunKind<S, E, HarborConnectionHandle, X> {
  const { ctx } = deps;
  return new RunKind({
    type: resourceType(m.def),
    specSchema: m.def.spec,
    informer: deps.informer(m.def.kind),
    // A run that Harbor has started is followed whatever its spec asks.
    external: withReleaseFields(m.external(deps), m.releaseFields, (r) => r.status?.harborId !== undefined),
    connections: ctx.connections,
    errors: m.errors ?? harborErrors,
    kube: ctx.kube,
    events: ctx.events,
    logger: ctx.logger.child({ kind: m.def.kind }),
    metrics: ctx.metrics,
    workers: ctx.workers,
    ...(ctx.reconcileTimeoutMs ? { reconcileTimeoutMs: ctx.reconcileTimeoutMs } : {}),
  });
}
