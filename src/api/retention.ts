// HarborRetentionPolicy: a project's tag-retention policy (Harbor keeps one per project), its rules,
// its schedule, and "run now" / dry runs.
import { z } from "zod";
import {
  type KindDefinition,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  optionalImmutable,
} from "./common.ts";
import { RUN_REQUESTED_ANNOTATION, runRequestStatus } from "./run-now.ts";
import { scheduleSpec } from "./schedule.ts";

/** Harbor's limit on the rules of one policy. */
export const MAX_RETENTION_RULES = 15;

export const RETENTION_TEMPLATES = [
  "latestPushedK",
  "latestPulledN",
  "nDaysSinceLastPush",
  "nDaysSinceLastPull",
  "always",
] as const;
export const RetentionTemplate = z.enum(RETENTION_TEMPLATES);
export type RetentionTemplate = z.output<typeof RetentionTemplate>;

/** Templates that take a count, and those that take days. */
export const COUNT_TEMPLATES: readonly RetentionTemplate[] = ["latestPushedK", "latestPulledN"];
export const DAYS_TEMPLATES: readonly RetentionTemplate[] = ["nDaysSinceLastPush", "nDaysSinceLastPull"];
/** Harbor's validators: a count below 32767 (MaxInt16), days at most 20190904. */
export const MAX_COUNT = 32766;
export const MAX_DAYS = 20190904;

/** A doublestar selector: which repositories or tags a rule looks at. */
export function selectorSpec(what: "repositories" | "tags") {
  return z
    .object({
      decoration: z
        .enum(["matches", "excludes"])
        .default("matches")
        .describe(
          `matches: the rule applies to the ${what} the pattern matches; excludes: to every other one. Default matches.`,
        ),
      pattern: z
        .string()
        .min(1)
        .max(1024)
        .default("**")
        .describe(
          `A doublestar pattern over ${what === "repositories" ? 'repository names without the project (e.g. "app/**")' : 'tag names (e.g. "v*")'}; {a,b} lists alternatives. Default "**" (all).`,
        ),
    })
    .default({ decoration: "matches", pattern: "**" });
}

export const RetentionRuleSpec = z
  .object({
    template: RetentionTemplate.describe(
      "What the rule retains: latestPushedK (the count most recently pushed), latestPulledN (the count most recently pulled), nDaysSinceLastPush (pushed within the last days), nDaysSinceLastPull (pulled within the last days), always. Artifacts no rule retains are deleted when the policy runs.",
    ),
    count: z
      .number()
      .int()
      .min(0)
      .max(MAX_COUNT)
      .optional()
      .describe(
        "For latestPushedK and latestPulledN (required there, not allowed otherwise): how many artifacts to retain, 0 to 32766.",
      ),
    days: z
      .number()
      .int()
      .min(0)
      .max(MAX_DAYS)
      .optional()
      .describe(
        "For nDaysSinceLastPush and nDaysSinceLastPull (required there, not allowed otherwise): how many days back, 0 to 20190904.",
      ),
    repositories: selectorSpec("repositories").describe(
      "Which repositories of the project the rule applies to.",
    ),
    tags: selectorSpec("tags").describe("Which tags the rule applies to."),
    untagged: z
      .boolean()
      .default(false)
      .describe(
        'Also apply the rule to untagged artifacts (Harbor\'s "untagged artifacts" option). Default false.',
      ),
    disabled: z.boolean().default(false).describe("Keep the rule but do not apply it. Default false."),
  })
  .meta({
    "x-kubernetes-validations": [
      {
        rule: "!(self.template in ['latestPushedK', 'latestPulledN']) || has(self.count)",
        message: "latestPushedK and latestPulledN need a count",
        fieldPath: ".count",
        reason: "FieldValueRequired",
      },
      {
        rule: "self.template in ['latestPushedK', 'latestPulledN'] || !has(self.count)",
        message: "count is only for latestPushedK and latestPulledN",
        fieldPath: ".count",
        reason: "FieldValueForbidden",
      },
      {
        rule: "!(self.template in ['nDaysSinceLastPush', 'nDaysSinceLastPull']) || has(self.days)",
        message: "nDaysSinceLastPush and nDaysSinceLastPull need days",
        fieldPath: ".days",
        reason: "FieldValueRequired",
      },
      {
        rule: "self.template in ['nDaysSinceLastPush', 'nDaysSinceLastPull'] || !has(self.days)",
        message: "days is only for nDaysSinceLastPush and nDaysSinceLastPull",
        fieldPath: ".days",
        reason: "FieldValueForbidden",
      },
    ],
  })
  .refine((r) => !COUNT_TEMPLATES.includes(r.template) || r.count !== undefined, {
    message: "latestPushedK and latestPulledN need a count",
    path: ["count"],
  })
  .refine((r) => COUNT_TEMPLATES.includes(r.template) || r.count === undefined, {
    message: "count is only for latestPushedK and latestPulledN",
    path: ["count"],
  })
  .refine((r) => !DAYS_TEMPLATES.includes(r.template) || r.days !== undefined, {
    message: "nDaysSinceLastPush and nDaysSinceLastPull need days",
    path: ["days"],
  })
  .refine((r) => DAYS_TEMPLATES.includes(r.template) || r.days === undefined, {
    message: "days is only for nDaysSinceLastPush and nDaysSinceLastPull",
    path: ["days"],
  });
export type RetentionRuleSpec = z.output<typeof RetentionRuleSpec>;

/** Two rules alike, the way Harbor compares them (it refuses such a policy with 409). */
export function duplicateRule(rules: readonly RetentionRuleSpec[]): [number, number] | undefined {
  const seen = new Map<string, number>();
  for (const [i, r] of rules.entries()) {
    const key = JSON.stringify([r.template, r.count, r.days, r.repositories, r.tags, r.untagged, r.disabled]);
    const j = seen.get(key);
    if (j !== undefined) return [j, i];
    seen.set(key, i);
  }
  return undefined;
}

export const HarborRetentionPolicySpec = z.object({
  ...managedSpec,
  projectRef: LocalObjectReference.describe(
    "The HarborProject whose tag retention this is; Harbor keeps one retention policy per project. Immutable.",
  ),
  rules: z
    .array(RetentionRuleSpec)
    .max(MAX_RETENTION_RULES)
    .default([])
    .meta({
      "x-kubernetes-validations": [
        {
          rule: "self.all(r, self.filter(s, s == r).size() == 1)",
          message: "two rules are alike: Harbor refuses a policy with duplicate rules",
        },
      ],
    })
    .refine((rules) => duplicateRule(rules) === undefined, {
      message: "two rules are alike: Harbor refuses a policy with duplicate rules",
    })
    .describe(
      "The rules, at most 15 (Harbor's limit), no two alike. An artifact is retained when any enabled rule retains it; the rest are deleted when the policy runs. Empty: the policy selects no repository, and a run deletes nothing.",
    ),
  schedule: scheduleSpec("tag retention").default({ type: "None" }),
  dryRun: z
    .boolean()
    .default(false)
    .describe(
      `Runs started with the ${RUN_REQUESTED_ANNOTATION} annotation only report what they would delete (Harbor's dry run). Scheduled runs always delete.`,
    ),
});
export type HarborRetentionPolicySpec = z.output<typeof HarborRetentionPolicySpec>;

export const RetentionRunStatus = z
  .object({
    id: z.number().int().describe("Harbor's id of the retention execution."),
    status: z.string().describe("Running, Success, Error or Stopped, as Harbor shows it."),
    trigger: z.string().optional().describe("What started it: MANUAL (a run now) or SCHEDULE."),
    dryRun: z.boolean().optional().describe("Whether the run only reported what it would delete."),
    startTime: z.string().optional().describe("When the run started (RFC 3339)."),
    endTime: z.string().optional().describe("When it ended (RFC 3339); absent while it runs."),
  })
  .describe(
    "The newest execution of the policy, scheduled or not; followed every few seconds while it runs.",
  );
export type RetentionRunStatus = z.output<typeof RetentionRunStatus>;

export const HarborRetentionPolicyStatus = z.object({
  ...managedStatus,
  ...runRequestStatus,
  projectId: z.number().int().optional().describe("The Harbor id of the policy's project."),
  lastRun: RetentionRunStatus.optional(),
});
export type HarborRetentionPolicyStatus = z.output<typeof HarborRetentionPolicyStatus>;

export const harborRetentionPolicy: KindDefinition<HarborRetentionPolicySpec, HarborRetentionPolicyStatus> = {
  kind: "HarborRetentionPolicy",
  plural: "harborretentionpolicies",
  singular: "harborretentionpolicy",
  shortNames: ["hretention"],
  scope: "Namespaced",
  spec: HarborRetentionPolicySpec,
  status: HarborRetentionPolicyStatus,
  specValidations: [optionalImmutable("projectRef", ".name")],
  columns: [
    { name: "Project", type: "string", jsonPath: ".spec.projectRef.name" },
    { name: "Schedule", type: "string", jsonPath: ".spec.schedule.type" },
    { name: "Last Run", type: "string", jsonPath: ".status.lastRun.status" },
    { name: "Cron", type: "string", jsonPath: ".spec.schedule.cron", priority: 1 },
    { name: "Last Run ID", type: "integer", jsonPath: ".status.lastRun.id", priority: 1 },
  ],
  description:
    "A project's tag-retention policy: its rules (at most 15) and schedule; one per project (a second resource for the same project gets Conflict). The annotation harborconfig.io/runRequestedAt starts one run now (a dry run with spec.dryRun).",
};
