// HarborLabel: a global or project label. A project label waits for its HarborProject; a global
// label is not deleted while a HarborReplicationPolicy's label filter names it, and the policy's
// going (or dropping it from the filter) queues the label — the replication kind declares that
// reference (its filter names labels by their Harbor names, in any namespace).
import { harborLabel } from "../../api/label.ts";
import { defineKind } from "../shared/kinds.ts";
import { labelExporter } from "./export.ts";
import { labelExternal } from "./external.ts";

export const labelKind = defineKind({
  def: harborLabel,
  exporter: labelExporter,
  watches: { references: { HarborProject: (spec) => spec.projectRef?.name } },
  external: ({ ctx, informer, fresh }) =>
    labelExternal({
      fresh,
      projects: informer("HarborProject"),
      policies: informer("HarborReplicationPolicy"),
      connections: ctx.connections,
    }),
});
