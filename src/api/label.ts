// HarborLabel: a label Harbor lets users attach to artifacts, global or of one project.
import { z } from "zod";
import {
  freeText,
  type HarborNameRule,
  immutableName,
  type KindDefinition,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  optionalImmutable,
  TRIMMED_PATTERN,
} from "./common.ts";

/**
 * Harbor takes any text as a label name (it checks only, on update, that it is not empty and at
 * most 128 characters): spaces, capitals and punctuation included, unlike a Kubernetes name.
 */
export const LABEL_NAME: HarborNameRule = {
  what: "label",
  pattern: TRIMMED_PATTERN,
  maxLength: 128,
  description: "1 to 128 characters of any text, no surrounding whitespace",
};

export const LABEL_COLOR_PATTERN = /^#[0-9A-Fa-f]{6}$/;

export const HarborLabelSpec = z.object({
  ...managedSpec,
  name: immutableName(LABEL_NAME, NO_HIDDEN_CHARACTERS)
    .optional()
    .describe(
      'The label\'s name in Harbor: 1 to 128 characters of any text — spaces, capitals and punctuation included (e.g. "Release: Approved") — without surrounding whitespace. Defaults to metadata.name. Unique among the global labels, or among the labels of its project. Immutable.',
    ),
  projectRef: LocalObjectReference.optional().describe(
    "The HarborProject the label belongs to: a project label, offered only in that project. Unset: a global label, offered in every project; only global labels can be used by a replication policy's label filter. Immutable: Harbor never changes a label's scope or project.",
  ),
  color: z
    .string()
    .regex(LABEL_COLOR_PATTERN)
    .optional()
    .describe(
      'The colour Harbor shows the label in, as #RRGGBB (e.g. "#0065AB"); letter case does not count. Unset: left as Harbor has it.',
    ),
  description: freeText()
    .optional()
    .describe("Free text Harbor shows with the label, up to 1,024 characters. Unset: left as Harbor has it."),
});
export type HarborLabelSpec = z.output<typeof HarborLabelSpec>;

export const HarborLabelStatus = z.object({
  ...managedStatus,
  scope: z
    .enum(["global", "project"])
    .optional()
    .describe("global (Harbor's scope g) or project (scope p), as Harbor holds the label."),
  projectId: z
    .number()
    .int()
    .optional()
    .describe("The Harbor id of the label's project; absent for a global label."),
});
export type HarborLabelStatus = z.output<typeof HarborLabelStatus>;

export const harborLabel: KindDefinition<HarborLabelSpec, HarborLabelStatus> = {
  kind: "HarborLabel",
  plural: "harborlabels",
  singular: "harborlabel",
  shortNames: ["hlabel"],
  scope: "Namespaced",
  spec: HarborLabelSpec,
  status: HarborLabelStatus,
  harborName: LABEL_NAME,
  specValidations: [optionalImmutable("name", ""), optionalImmutable("projectRef", ".name")],
  columns: [
    { name: "Scope", type: "string", jsonPath: ".status.scope" },
    { name: "Project", type: "string", jsonPath: ".spec.projectRef.name" },
    { name: "Color", type: "string", jsonPath: ".spec.color", priority: 1 },
  ],
  description:
    "A Harbor label for artifacts: global, or of one project. Its name is any text Harbor takes, not only a Kubernetes name.",
};
