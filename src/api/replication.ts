// HarborReplicationPolicy: pushes local repositories to, or pulls them from, a HarborRegistry.
import { z } from "zod";
import { ReplicationFilterDecoration, ReplicationTriggerType } from "../harbor/model/enums.ts";
import {
  celFormat,
  freeText,
  type HarborNameRule,
  immutableName,
  type KindDefinition,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  optionalImmutable,
  type StringRule,
  TRIMMED_PATTERN,
  withRules,
} from "./common.ts";
import { HARBOR_CRON } from "./cron.ts";
import { runRequestStatus } from "./run-now.ts";

export const REPLICATION_POLICY_NAME: HarborNameRule = {
  what: "replication policy",
  pattern: TRIMMED_PATTERN,
  maxLength: 255,
  description: "at most 255 characters, no surrounding whitespace",
};

const Decoration = ReplicationFilterDecoration.default("matches").describe(
  "matches: replicate what matches. excludes: replicate everything else. Default matches.",
);

/**
 * Whether Harbor's pattern matcher (doublestar) can use the pattern: every "[" and "{" closed, no
 * "\" at the end. Harbor stores a broken pattern, and then every execution of the policy fails.
 */
export function globClosed(pattern: string): boolean {
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      if (++i === pattern.length) return false;
    } else if (c === "{") braces++;
    else if (c === "}" && braces > 0) braces--;
    else if (c === "[") {
      // Its first character may be "]" itself: the class ends at the next one after it.
      const first = pattern[i + 1] === "!" || pattern[i + 1] === "^" ? i + 2 : i + 1;
      const close = pattern.indexOf("]", first + 1);
      if (close < 0) return false;
      i = close;
    }
  }
  return braces === 0;
}

const GLOB: StringRule = {
  message: 'must be a pattern Harbor can match: close every "[" and "{", and end with no lone "\\"',
  test: globClosed,
};

/** A repository or tag pattern: no hidden characters, and one Harbor can match. */
const pattern = () => withRules(z.string().min(1).max(255), NO_HIDDEN_CHARACTERS, GLOB);

export const HarborReplicationPolicySpec = z.object({
  ...managedSpec,
  name: immutableName(REPLICATION_POLICY_NAME, NO_HIDDEN_CHARACTERS).optional(),
  description: freeText()
    .optional()
    .describe(
      "Free text Harbor shows with the object, up to 1,024 characters. Unset: left as Harbor has it.",
    ),
  direction: z
    .enum(["push", "pull"])
    .describe("push: from this Harbor to the registry. pull: from the registry into this Harbor."),
  registryRef: LocalObjectReference.describe("The HarborRegistry on the other side."),
  destinationNamespace: z
    .string()
    .max(255)
    .regex(/^[a-z0-9]+(?:[._/-][a-z0-9]+)*$/)
    .optional()
    .describe("Where to put the repositories; unset keeps their namespace."),
  destinationNamespaceReplaceCount: z
    .number()
    .int()
    .min(-1)
    .max(127)
    .default(-1)
    .describe(
      "How many leading path components the destination namespace replaces; -1 = Harbor's legacy mode.",
    ),
  filters: z
    .object({
      name: pattern().optional().describe('Repository name pattern, e.g. "library/**".'),
      tag: z
        .object({
          pattern: pattern().describe(
            'Tag pattern in Harbor\'s syntax: * any characters, ? one, {a,b} alternatives, [0-9] a class, e.g. "v1.*" or "{latest,stable}".',
          ),
          decoration: Decoration,
        })
        .optional()
        .describe("Tag pattern, matched or excluded."),
      labels: z
        .object({
          values: z
            .array(withRules(z.string().max(128), NO_HIDDEN_CHARACTERS))
            .min(1)
            .max(32)
            .describe("Names of Harbor labels on artifacts, matched or excluded as decoration says."),
          decoration: Decoration,
        })
        .optional()
        .describe("Artifact labels, matched or excluded."),
      resource: z
        .enum(["image", "artifact"])
        .optional()
        .describe("Replicate images only, or every artifact."),
    })
    .default({})
    .describe("Which artifacts to replicate; no filter replicates everything."),
  trigger: z
    .object({
      type: ReplicationTriggerType.default("manual").describe(
        "manual (default), scheduled (needs cron) or event_based (push policies only).",
      ),
      cron: withRules(z.string().max(128), HARBOR_CRON)
        .optional()
        .describe('6-field cron with seconds 0 and a fixed minute, e.g. "0 0 2 * * *".'),
    })
    .default({ type: "manual" })
    .meta({
      "x-kubernetes-validations": [
        {
          rule: "self.type != 'scheduled' || has(self.cron)",
          message: "a scheduled trigger needs a cron",
          fieldPath: ".cron",
          reason: "FieldValueRequired",
        },
        {
          rule: "self.type == 'scheduled' || !has(self.cron)",
          message: "cron is only for scheduled triggers",
          messageExpression: celFormat(
            "cron is only for scheduled triggers, and this trigger is %s",
            "self.type",
          ),
          fieldPath: ".cron",
          reason: "FieldValueForbidden",
        },
      ],
    })
    .describe(
      "When the policy runs: manual (only when started), scheduled (by cron), or event_based (on pushes and deletions in this Harbor; push policies only).",
    ),
  replicateDeletion: z
    .boolean()
    .default(false)
    .describe("Also delete at the destination what is deleted at the source."),
  override: z.boolean().default(true).describe("Overwrite artifacts that exist at the destination."),
  enabled: z
    .boolean()
    .default(true)
    .describe("A disabled policy runs neither on its schedule nor on events."),
  speedKbps: z
    .number()
    .int()
    .min(-1)
    .max(2147483647)
    .default(-1)
    .describe("Bandwidth limit per task in KB/s; -1 or 0: unlimited."),
  copyByChunk: z.boolean().default(false).describe("Copy blobs in chunks (registries that support it)."),
  singleActiveReplication: z
    .boolean()
    .optional()
    .describe(
      "Skip a scheduled or event-based run while one of the policy's runs is in progress, so the policy never runs twice at once; a run started by hand always runs (Harbor 2.14 and later). Unset: left as Harbor has it.",
    ),
  runOnCreate: z
    .boolean()
    .default(false)
    .describe(
      "Start one execution right after the policy is created (once; not after adoption). It cannot be turned on once the policy exists in Harbor: it would start nothing.",
    ),
});
export type HarborReplicationPolicySpec = z.output<typeof HarborReplicationPolicySpec>;

export const HarborReplicationPolicyStatus = z.object({
  ...managedStatus,
  ...runRequestStatus,
  lastExecution: z
    .object({
      id: z.number().int().describe("Harbor's id of the execution (Harbor UI: Replications, Executions)."),
      status: z.string().describe("InProgress, Succeed, Failed or Stopped."),
      trigger: z.string().optional().describe("What started it: manual, scheduled or event_based."),
      statusText: z
        .string()
        .optional()
        .describe(
          'Harbor\'s words on the outcome, e.g. "no resources need to be replicated" or why it failed.',
        ),
      total: z
        .number()
        .int()
        .optional()
        .describe("Tasks (one per repository and operation) in the execution."),
      succeeded: z.number().int().optional().describe("Tasks that succeeded."),
      failed: z.number().int().optional().describe("Tasks that failed; Harbor's task logs say why."),
      inProgress: z.number().int().optional().describe("Tasks pending or running."),
      stopped: z.number().int().optional().describe("Tasks stopped before they finished."),
      startTime: z.string().optional().describe("When the execution started (RFC 3339)."),
      endTime: z.string().optional().describe("When it ended (RFC 3339); absent while it runs."),
    })
    .optional()
    .describe(
      "The most recent execution of the policy. While one runs, the operator looks again after a short wait (a quarter of its running time so far, from 1 s up to 15 s) until it ends, and records an Event with the outcome (ReplicationSucceeded, ReplicationFailed, ReplicationStopped). Executions Harbor starts by itself (schedule, events) are seen at the next reconcile: at the latest after --status-refresh-interval.",
    ),
});
export type HarborReplicationPolicyStatus = z.output<typeof HarborReplicationPolicyStatus>;

export const harborReplicationPolicy: KindDefinition<
  HarborReplicationPolicySpec,
  HarborReplicationPolicyStatus
> = {
  kind: "HarborReplicationPolicy",
  plural: "harborreplicationpolicies",
  singular: "harborreplicationpolicy",
  shortNames: ["hrep"],
  scope: "Namespaced",
  spec: HarborReplicationPolicySpec,
  status: HarborReplicationPolicyStatus,
  specValidations: [
    optionalImmutable("name", ""),
    {
      rule: "!has(self.trigger) || self.trigger.type != 'event_based' || self.direction == 'push'",
      message:
        "an event_based trigger needs direction push: Harbor fires it on pushes and deletions in this Harbor",
      messageExpression: celFormat(
        "an event_based trigger needs direction push (Harbor fires it on pushes and deletions in this Harbor), and direction is %s",
        "self.direction",
      ),
      fieldPath: ".trigger.type",
    },
    {
      rule: "!has(self.runOnCreate) || !self.runOnCreate || !has(self.enabled) || self.enabled",
      message:
        "runOnCreate needs enabled: true (Harbor does not run a disabled policy), and enabled is false",
      fieldPath: ".runOnCreate",
    },
  ],
  rootValidations: [
    {
      // Turning it off stays allowed: manifests keep it after the policy was created.
      rule: "!has(oldSelf.status) || !has(oldSelf.status.harborId) || !has(self.spec.runOnCreate) || !self.spec.runOnCreate || (has(oldSelf.spec.runOnCreate) && oldSelf.spec.runOnCreate)",
      message:
        "runOnCreate acts only when the policy is created, and it exists in Harbor already: turned on now it would start nothing",
      fieldPath: ".spec.runOnCreate",
    },
  ],
  columns: [
    { name: "Direction", type: "string", jsonPath: ".spec.direction" },
    { name: "Last Run", type: "string", jsonPath: ".status.lastExecution.status" },
  ],
  description:
    "A Harbor replication policy that pushes repositories to, or pulls them from, a HarborRegistry; its last execution is shown in status.",
};
