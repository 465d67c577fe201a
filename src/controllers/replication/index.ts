// HarborReplicationPolicy: a push or pull replication policy with a HarborRegistry, which queues the
// policy when it changes (e.g. turns Ready), so a waiting policy proceeds without its own retry.
// A global HarborLabel its label filter names waits for it to go before it is deleted. Ends of
// executions are Events; policies Harbor runs by itself are looked at every
// --status-refresh-interval.
import { harborReplicationPolicy } from "../../api/replication.ts";
import { filtersOn } from "../label/mapping.ts";
import { defineKind, resourceType } from "../shared/kinds.ts";
import { replicationExporter } from "./export.ts";
import { replicationExternal } from "./external.ts";
import { REPLICATION_RELEASE_FIELDS } from "./mapping.ts";

export const replicationKind = defineKind({
  def: harborReplicationPolicy,
  exporter: replicationExporter,
  releaseFields: REPLICATION_RELEASE_FIELDS,
  watches: {
    references: {
      HarborRegistry: (spec) => spec.registryRef.name,
      // The label filter names global labels by their Harbor names; a HarborLabel whose deletion
      // waits for this policy is queued when the policy goes or drops it.
      HarborLabel: { matches: (spec, _ns, label) => filtersOn(spec, label), releaseOnly: true },
    },
  },
  external: ({ ctx, informer }) =>
    replicationExternal({
      registries: informer("HarborRegistry"),
      events: ctx.events,
      kube: ctx.kube,
      type: resourceType(harborReplicationPolicy),
      statusRefreshMs: ctx.statusRefreshIntervalMs,
    }),
});
