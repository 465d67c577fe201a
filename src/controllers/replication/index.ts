// HarborReplicationPolicy wiring. The composition queues a policy when the HarborRegistry it
// references changes (e.g. turns Ready), so a waiting policy proceeds without its own retry.
import { HarborReplicationPolicySpec, harborReplicationPolicy } from "../../api/replication.ts";
import type { Informer } from "../../runtime/informer.ts";
import { ManagedKind } from "../../runtime/kind.ts";
import type { ManagedObject } from "../../runtime/managed.ts";
import { harborErrors } from "../shared/errors.ts";
import { type KindContext, resourceType } from "../shared/kinds.ts";
import { replicationExternal } from "./external.ts";

export const replicationType = resourceType(harborReplicationPolicy);

export function replicationKind(
  ctx: KindContext,
  informers: { replicationPolicies: Informer<ManagedObject>; registries: Informer<ManagedObject> },
) {
  return new ManagedKind(ctx.kube, {
    type: replicationType,
    specSchema: HarborReplicationPolicySpec,
    informer: informers.replicationPolicies,
    external: replicationExternal({ registries: informers.registries }),
    connections: ctx.connections,
    errors: harborErrors,
    kube: ctx.kube,
    events: ctx.events,
    logger: ctx.logger.child({ kind: "HarborReplicationPolicy" }),
    metrics: ctx.metrics,
    workers: ctx.workers,
    driftIntervalMs: ctx.driftIntervalMs,
    ...(ctx.reconcileTimeoutMs ? { reconcileTimeoutMs: ctx.reconcileTimeoutMs } : {}),
  });
}
