// HarborReplicationPolicy wiring. The composition queues a policy when the HarborRegistry it
// references changes (e.g. turns Ready), so a waiting policy proceeds without its own retry. Ends
// of executions are Events; policies Harbor runs by itself are looked at every
// --status-refresh-interval.
import { HarborReplicationPolicySpec, harborReplicationPolicy } from "../../api/replication.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { ManagedObject } from "../../runtime/managed.ts";
import { type KindContext, managedKind } from "../shared/kinds.ts";
import { replicationExternal } from "./external.ts";

export function replicationKind(
  ctx: KindContext,
  informers: { replicationPolicies: Informer<ManagedObject>; registries: Informer<ManagedObject> },
) {
  return managedKind(ctx, {
    def: harborReplicationPolicy,
    specSchema: HarborReplicationPolicySpec,
    informer: informers.replicationPolicies,
    external: replicationExternal({
      registries: informers.registries,
      events: ctx.events,
      statusRefreshMs: ctx.statusRefreshIntervalMs,
    }),
  });
}
