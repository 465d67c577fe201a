// HarborRetentionPolicy: a project's tag-retention policy, waiting for its HarborProject, with
// "run now" (the harborconfig.io/runRequestedAt annotation; a dry run with spec.dryRun) and the
// newest run in status.
import { harborRetentionPolicy } from "../../api/retention.ts";
import { defineKind, resourceType } from "../shared/kinds.ts";
import { retentionExporter } from "./export.ts";
import { retentionExternal } from "./external.ts";

export const retentionKind = defineKind({
  def: harborRetentionPolicy,
  exporter: retentionExporter,
  watches: { references: { HarborProject: (spec) => spec.projectRef.name } },
  external: ({ ctx, informer, fresh }) =>
    retentionExternal({
      fresh,
      projects: informer("HarborProject"),
      kube: ctx.kube,
      events: ctx.events,
      type: resourceType(harborRetentionPolicy),
    }),
});
