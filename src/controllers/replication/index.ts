// HarborReplicationPolicy: a push or pull replication policy with a HarborRegistry, which queues the
// policy when it changes (e.g. turns Ready), so a waiting policy proceeds without its own retry.
// Ends of executions are Events; policies Harbor runs by itself are looked at every
// --status-refresh-interval.
import { harborReplicationPolicy } from "../../api/replication.ts";
import { defineKind } from "../shared/kinds.ts";
import { replicationExporter } from "./export.ts";
import { replicationExternal } from "./external.ts";

export const replicationKind = defineKind({
  def: harborReplicationPolicy,
  exporter: replicationExporter,
  watches: { references: { HarborRegistry: (spec) => spec.registryRef.name } },
  external: ({ ctx, informer }) =>
    replicationExternal({
      registries: informer("HarborRegistry"),
      events: ctx.events,
      statusRefreshMs: ctx.statusRefreshIntervalMs,
    }),
});
