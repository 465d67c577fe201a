// What every kind's wiring gets from the composition root.
import type { Logger } from "pino";
import type { z } from "zod";
import type { KindDefinition } from "../../api/common.ts";
import { GROUP, harborNameProblem, VERSION } from "../../api/common.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { SecretWriter } from "../../kube/secrets.ts";
import type { NamespaceObject, ResourceType } from "../../kube/types.ts";
import type { Informer } from "../../runtime/informer.ts";
import { ManagedKind } from "../../runtime/kind.ts";
import type {
  ConnectionResolver,
  ErrorClassifier,
  ExternalClient,
  ManagedObject,
  ManagedSpec,
} from "../../runtime/managed.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { harborErrors } from "./errors.ts";
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

/** The informers of every managed kind, shared so that kinds can follow references. */
export interface Informers {
  projects: Informer<ManagedObject>;
  robots: Informer<ManagedObject>;
  registries: Informer<ManagedObject>;
  replicationPolicies: Informer<ManagedObject>;
  webhookPolicies: Informer<ManagedObject>;
  /** Every Namespace (robots copy their Secret into namespaces chosen by labels). */
  namespaces: Informer<NamespaceObject>;
}

/** What differs between kinds' wiring; everything else comes from the context. */
export interface KindWiring<S extends ManagedSpec, O, X> {
  def: KindDefinition;
  specSchema: z.ZodType<S>;
  informer: Informer<ManagedObject>;
  external: ExternalClient<S, O, HarborConnectionHandle, X>;
  /** Default: the shared Harbor classification. */
  errors?: ErrorClassifier;
}

/** One managed kind, wired the same way as every other. */
export function managedKind<S extends ManagedSpec, O, X>(
  ctx: KindContext,
  w: KindWiring<S, O, X>,
): ManagedKind<S, O, HarborConnectionHandle, X> {
  const nameRule = w.def.harborName;
  return new ManagedKind(ctx.kube, {
    type: resourceType(w.def),
    specSchema: w.specSchema,
    informer: w.informer,
    external: w.external,
    connections: ctx.connections,
    errors: w.errors ?? harborErrors,
    ...(nameRule ? { nameProblem: (name: string) => harborNameProblem(nameRule, name) } : {}),
    kube: ctx.kube,
    events: ctx.events,
    logger: ctx.logger.child({ kind: w.def.kind }),
    metrics: ctx.metrics,
    workers: ctx.workers,
    driftIntervalMs: ctx.driftIntervalMs,
    ...(ctx.reconcileTimeoutMs ? { reconcileTimeoutMs: ctx.reconcileTimeoutMs } : {}),
    ...(ctx.dependencyTimeoutMs ? { waitTimeoutMs: ctx.dependencyTimeoutMs } : {}),
  });
}
