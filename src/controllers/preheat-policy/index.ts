// HarborPreheatPolicy: a project's preheat policy. It waits for its HarborProject and its
// HarborPreheatInstance; its going (or a change of instanceRef) queues the instance, whose deletion
// may wait for it.
import { harborPreheatPolicy } from "../../api/preheat-policy.ts";
import { defineKind } from "../shared/kinds.ts";
import { preheatPolicyExporter } from "./export.ts";
import { preheatPolicyExternal } from "./external.ts";

export const preheatPolicyKind = defineKind({
  def: harborPreheatPolicy,
  exporter: preheatPolicyExporter,
  watches: {
    references: {
      HarborProject: (spec) => spec.projectRef.name,
      HarborPreheatInstance: (spec) => spec.instanceRef.name,
    },
  },
  external: ({ informer }) =>
    preheatPolicyExternal({
      projects: informer("HarborProject"),
      instances: informer("HarborPreheatInstance"),
    }),
});
