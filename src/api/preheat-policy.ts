// HarborPreheatPolicy: a project's P2P preheat policy (Project > P2P Preheat): which artifacts Harbor
// preheats through which HarborPreheatInstance, and when.
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
  withRules,
} from "./common.ts";
import { SCHEDULE_CRON } from "./cron.ts";
import { PREHEAT_NAME_PATTERN } from "./preheat-instance.ts";

/** Dragonfly's scopes as Harbor 2.13 names them, and 2.12's single_peer (single_seed_peer there). */
export const PREHEAT_SCOPES = ["single_seed_peer", "all_seed_peers", "all_peers", "single_peer"] as const;
export type PreheatScope = (typeof PREHEAT_SCOPES)[number];

export const PREHEAT_POLICY_NAME: HarborNameRule = {
  what: "preheat policy",
  pattern: PREHEAT_NAME_PATTERN,
  maxLength: 255,
  description: "letters and digits, with a single . _ or - between them, at most 255 characters",
};

const pattern = (what: string) =>
  withRules(z.string().min(1).max(512), NO_HIDDEN_CHARACTERS).describe(
    `Which ${what} to preheat, as a doublestar pattern ("**" every one, "nginx*", "{a,b}/**"). Default "**".`,
  );

export const HarborPreheatPolicySpec = z.object({
  ...managedSpec,
  projectRef: LocalObjectReference.describe(
    "The HarborProject the policy belongs to. Immutable: Harbor keeps a policy in its project.",
  ),
  name: immutableName(PREHEAT_POLICY_NAME, NO_HIDDEN_CHARACTERS)
    .optional()
    .describe(
      "The policy's name in Harbor (letters and digits, with a single . _ or - between them), unique in its project. Defaults to metadata.name. Immutable.",
    ),
  description: freeText()
    .optional()
    .describe(
      "Free text Harbor shows with the policy, up to 1,024 characters. Unset: left as Harbor has it.",
    ),
  instanceRef: LocalObjectReference.describe(
    "The HarborPreheatInstance (in this namespace, through the same connection) Harbor preheats to. Until it is Ready this policy waits (DependencyNotReady); the instance is not deleted while a policy uses it.",
  ),
  filters: z
    .object({
      repository: pattern("repositories (names without the project)").default("**"),
      tag: pattern("tags").default("**"),
      labels: z
        .array(withRules(z.string().min(1).max(128), NO_HIDDEN_CHARACTERS))
        .max(32)
        .optional()
        .describe("Only artifacts that carry every one of these labels (by name). Unset: no label filter."),
    })
    .default({ repository: "**", tag: "**" })
    .describe("Which artifacts of the project the policy preheats. Default: every repository and tag."),
  trigger: z
    .object({
      type: z
        .enum(["manual", "scheduled", "event_based"])
        .default("manual")
        .describe(
          "manual (only when started in Harbor's UI), scheduled (on cron), or event_based (on every push of a matching artifact). Default manual.",
        ),
      cron: withRules(z.string().max(128), SCHEDULE_CRON)
        .optional()
        .describe('For scheduled only: six fields with seconds first and 0, in UTC, e.g. "0 0 3 * * *".'),
    })
    .meta({
      "x-kubernetes-validations": [
        {
          rule: "self.type == 'scheduled' ? has(self.cron) : !has(self.cron)",
          messageExpression:
            "self.type == 'scheduled' ? 'a scheduled trigger needs a cron' : 'cron is only used with trigger type scheduled'",
          fieldPath: ".cron",
        },
      ],
    })
    .refine((t) => (t.type === "scheduled") === (t.cron !== undefined), {
      message: "a scheduled trigger needs a cron, and only a scheduled one takes it",
      path: ["cron"],
    })
    .default({ type: "manual" })
    .describe("When Harbor preheats. Default manual."),
  scope: z
    .enum(PREHEAT_SCOPES)
    .default("single_seed_peer")
    .describe(
      "To which Dragonfly peers: single_seed_peer (one seed peer per cluster, Harbor's default), all_seed_peers (every seed peer; Harbor 2.13 and later) or all_peers (every peer). single_peer is Harbor 2.12's name of single_seed_peer and means the same on every release.",
    ),
  enabled: z.boolean().default(true).describe("Whether the policy runs. Default true."),
});
export type HarborPreheatPolicySpec = z.output<typeof HarborPreheatPolicySpec>;

export const HarborPreheatPolicyStatus = z.object({
  ...managedStatus,
  projectId: z.number().int().optional().describe("The Harbor id of the policy's project."),
  projectName: z
    .string()
    .optional()
    .describe("The Harbor name of the policy's project (its policies are addressed by it)."),
  instanceId: z
    .number()
    .int()
    .optional()
    .describe("The Harbor id of the preheat instance the policy uses (Harbor's provider_id)."),
});
export type HarborPreheatPolicyStatus = z.output<typeof HarborPreheatPolicyStatus>;

export const harborPreheatPolicy: KindDefinition<HarborPreheatPolicySpec, HarborPreheatPolicyStatus> = {
  kind: "HarborPreheatPolicy",
  plural: "harborpreheatpolicies",
  singular: "harborpreheatpolicy",
  shortNames: ["hpp"],
  scope: "Namespaced",
  spec: HarborPreheatPolicySpec,
  status: HarborPreheatPolicyStatus,
  harborName: PREHEAT_POLICY_NAME,
  specValidations: [
    optionalImmutable("name", ""),
    {
      rule: "self.projectRef == oldSelf.projectRef",
      message: "projectRef is immutable: Harbor keeps a policy in its project",
      fieldPath: ".projectRef",
    },
  ],
  columns: [
    { name: "Project", type: "string", jsonPath: ".spec.projectRef.name" },
    { name: "Instance", type: "string", jsonPath: ".spec.instanceRef.name" },
    { name: "Trigger", type: "string", jsonPath: ".spec.trigger.type" },
    { name: "Enabled", type: "boolean", jsonPath: ".spec.enabled", priority: 1 },
  ],
  description:
    "A project's P2P preheat policy (Project > P2P Preheat): which artifacts Harbor preheats, through which HarborPreheatInstance, and when, kept equal to this spec.",
};
