// HarborReplicationPolicy: pushes local repositories to, or pulls them from, a HarborRegistry.
import { z } from "zod";
import {
  immutableName,
  type KindDefinition,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  optionalImmutable,
} from "./common.ts";

const Decoration = z.enum(["matches", "excludes"]).default("matches");

export const HarborReplicationPolicySpec = z.object({
  ...managedSpec,
  name: immutableName("^\\S(.*\\S)?$", 255, "replication policy").optional(),
  description: z.string().max(1024).optional().describe("Unset: left as Harbor has it."),
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
      name: z.string().min(1).max(255).optional().describe('Repository name pattern, e.g. "library/**".'),
      tag: z
        .object({ pattern: z.string().min(1).max(255), decoration: Decoration })
        .optional()
        .describe("Tag pattern, matched or excluded."),
      labels: z
        .object({ values: z.array(z.string().max(128)).min(1).max(32), decoration: Decoration })
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
      type: z.enum(["manual", "scheduled", "event_based"]).default("manual"),
      cron: z
        .string()
        .max(128)
        .regex(/^0 (\*\/\S+|[0-9]\S*) \S+ \S+ \S+ \S+$/)
        .optional()
        .describe('6-field cron with seconds 0 and a fixed minute, e.g. "0 0 2 * * *".'),
    })
    .default({ type: "manual" })
    .meta({
      "x-kubernetes-validations": [
        { rule: "self.type != 'scheduled' || has(self.cron)", message: "a scheduled trigger needs a cron" },
        {
          rule: "self.type == 'scheduled' || !has(self.cron)",
          message: "cron is only for scheduled triggers",
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
  runOnCreate: z
    .boolean()
    .default(false)
    .describe("Start one execution right after the policy is created (once; not after adoption)."),
});
export type HarborReplicationPolicySpec = z.output<typeof HarborReplicationPolicySpec>;

export const HarborReplicationPolicyStatus = z.object({
  ...managedStatus,
  lastExecution: z
    .object({
      id: z.number().int(),
      status: z.string().describe("InProgress, Succeed, Failed or Stopped."),
      trigger: z.string().optional(),
      statusText: z.string().optional(),
      total: z.number().int().optional(),
      succeeded: z.number().int().optional(),
      failed: z.number().int().optional(),
      inProgress: z.number().int().optional(),
      stopped: z.number().int().optional(),
      startTime: z.string().optional(),
      endTime: z.string().optional(),
    })
    .optional()
    .describe("The most recent execution of the policy."),
});
export type HarborReplicationPolicyStatus = z.output<typeof HarborReplicationPolicyStatus>;

export const harborReplicationPolicy: KindDefinition = {
  kind: "HarborReplicationPolicy",
  plural: "harborreplicationpolicies",
  singular: "harborreplicationpolicy",
  shortNames: ["hrep"],
  scope: "Namespaced",
  spec: HarborReplicationPolicySpec,
  status: HarborReplicationPolicyStatus,
  specValidations: [
    optionalImmutable("name"),
    {
      rule: "!has(self.trigger) || self.trigger.type != 'event_based' || self.direction == 'push'",
      message:
        "an event_based trigger needs direction push: Harbor fires it on pushes and deletions in this Harbor",
    },
    {
      rule: "!has(self.runOnCreate) || !self.runOnCreate || !has(self.enabled) || self.enabled",
      message: "runOnCreate needs enabled: true (Harbor does not run a disabled policy)",
    },
  ],
  columns: [
    { name: "Direction", type: "string", jsonPath: ".spec.direction" },
    { name: "Last Run", type: "string", jsonPath: ".status.lastExecution.status" },
  ],
  description: "A Harbor replication policy between this Harbor and a remote registry.",
};
