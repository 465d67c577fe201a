// HarborImmutableTagRule: one immutable tag rule of a project, waiting for its HarborProject.
import { harborImmutableTagRule } from "../../api/immutable-tag-rule.ts";
import { defineKind } from "../shared/kinds.ts";
import { immutableTagRuleExporter } from "./export.ts";
import { immutableExternal } from "./external.ts";

export const immutableTagRuleKind = defineKind({
  def: harborImmutableTagRule,
  exporter: immutableTagRuleExporter,
  watches: { references: { HarborProject: (spec) => spec.projectRef.name } },
  external: ({ informer, fresh }) => immutableExternal({ projects: informer("HarborProject"), fresh }),
});
