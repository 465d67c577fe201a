// What every kind's wiring gets from the composition root.
import type { Logger } from "pino";
import type { KindDefinition } from "../../api/common.ts";
import { GROUP, VERSION } from "../../api/common.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { ResourceType } from "../../kube/types.ts";
import type { ConnectionResolver } from "../../runtime/managed.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";

export interface KindContext {
  kube: KubeClient;
  logger: Logger;
  metrics: Metrics;
  events: EventRecorder;
  connections: ConnectionResolver<HarborConnectionHandle>;
  workers: number;
  driftIntervalMs: number;
  reconcileTimeoutMs?: number;
  /** Watch one namespace only (default all). */
  namespace?: string;
  labelSelector?: string;
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
