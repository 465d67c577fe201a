// HarborImmutableTagRule: one immutable tag rule of a project: the tags it selects can be neither
// overwritten by a push nor deleted.
import { z } from "zod";
import {
  type KindDefinition,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  optionalImmutable,
} from "./common.ts";
import { selectorSpec } from "./retention.ts";

export const HarborImmutableTagRuleSpec = z.object({
  ...managedSpec,
  projectRef: LocalObjectReference.describe("The HarborProject the rule belongs to. Immutable."),
  repositories: selectorSpec("repositories").describe(
    "Which repositories of the project the rule protects. A change in Harbor is put back.",
  ),
  tags: selectorSpec("tags").describe("Which tags the rule protects. A change in Harbor is put back."),
  disabled: z
    .boolean()
    .default(false)
    .describe("Keep the rule but do not enforce it. Default false. A change in Harbor is put back."),
});
export type HarborImmutableTagRuleSpec = z.output<typeof HarborImmutableTagRuleSpec>;

export const HarborImmutableTagRuleStatus = z.object({
  ...managedStatus,
  projectId: z.number().int().optional().describe("The Harbor id of the rule's project."),
});
export type HarborImmutableTagRuleStatus = z.output<typeof HarborImmutableTagRuleStatus>;

export const harborImmutableTagRule: KindDefinition<
  HarborImmutableTagRuleSpec,
  HarborImmutableTagRuleStatus
> = {
  kind: "HarborImmutableTagRule",
  plural: "harborimmutabletagrules",
  singular: "harborimmutabletagrule",
  shortNames: ["himmutable"],
  scope: "Namespaced",
  spec: HarborImmutableTagRuleSpec,
  status: HarborImmutableTagRuleStatus,
  specValidations: [optionalImmutable("projectRef", ".name")],
  columns: [
    { name: "Project", type: "string", jsonPath: ".spec.projectRef.name" },
    { name: "Repositories", type: "string", jsonPath: ".spec.repositories.pattern" },
    { name: "Tags", type: "string", jsonPath: ".spec.tags.pattern" },
    { name: "Disabled", type: "boolean", jsonPath: ".spec.disabled", priority: 1 },
  ],
  description:
    "An immutable tag rule of a project: the tags it selects (in the repositories it selects) can be neither overwritten by a push nor deleted. Two resources with the same selectors in one project conflict, as Harbor keeps such rules once.",
};
