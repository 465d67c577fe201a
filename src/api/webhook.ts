// HarborWebhookPolicy: a project's webhook, notifying HTTP or Slack targets of Harbor events.
import { z } from "zod";
import {
  immutableName,
  type KindDefinition,
  k8sName,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  optionalImmutable,
} from "./common.ts";

export const WEBHOOK_EVENT_TYPES = [
  "PUSH_ARTIFACT",
  "PULL_ARTIFACT",
  "DELETE_ARTIFACT",
  "QUOTA_EXCEED",
  "QUOTA_WARNING",
  "SCANNING_FAILED",
  "SCANNING_STOPPED",
  "SCANNING_COMPLETED",
  "REPLICATION",
  "TAG_RETENTION",
] as const;

const Target = z
  .object({
    type: z.enum(["http", "slack"]).default("http"),
    address: z
      .string()
      .max(2048)
      .regex(/^https?:\/\/\S+$/)
      .describe("Where Harbor sends the events."),
    authHeaderSecretRef: z
      .object({ name: k8sName, key: z.string().max(253).default("authHeader") })
      .optional()
      .describe("A Secret in this namespace whose value Harbor sends as the Authorization header."),
    skipCertVerify: z.boolean().default(false),
    payloadFormat: z
      .enum(["Default", "CloudEvents"])
      .optional()
      .describe("For http targets; Harbor stores Default when unset. Not allowed for slack."),
  })
  .meta({
    "x-kubernetes-validations": [
      {
        rule: "self.type != 'slack' || !has(self.payloadFormat)",
        message: "slack targets take no payloadFormat",
      },
    ],
  });

export const HarborWebhookPolicySpec = z.object({
  ...managedSpec,
  projectRef: LocalObjectReference.describe("The HarborProject the webhook belongs to. Immutable."),
  name: immutableName("^\\S(.*\\S)?$", 255, "webhook policy").optional(),
  description: z.string().max(1024).optional(),
  enabled: z.boolean().default(true),
  eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(16),
  targets: z.array(Target).min(1).max(16),
});
export type HarborWebhookPolicySpec = z.output<typeof HarborWebhookPolicySpec>;

export const HarborWebhookPolicyStatus = z.object({
  ...managedStatus,
  lastTriggers: z
    .array(z.object({ eventType: z.string(), time: z.string() }))
    .optional()
    .describe("When each event type last fired."),
  recentFailures: z
    .array(z.object({ jobId: z.number().int(), eventType: z.string(), status: z.string(), time: z.string() }))
    .optional()
    .describe("The most recent failed deliveries."),
});
export type HarborWebhookPolicyStatus = z.output<typeof HarborWebhookPolicyStatus>;

export const harborWebhookPolicy: KindDefinition = {
  kind: "HarborWebhookPolicy",
  plural: "harborwebhookpolicies",
  singular: "harborwebhookpolicy",
  shortNames: ["hwh"],
  scope: "Namespaced",
  spec: HarborWebhookPolicySpec,
  status: HarborWebhookPolicyStatus,
  specValidations: [
    optionalImmutable("name"),
    { rule: "self.projectRef == oldSelf.projectRef", message: "projectRef is immutable" },
  ],
  columns: [{ name: "Events", type: "string", jsonPath: ".spec.eventTypes", priority: 1 }],
  description: "A webhook policy of a Harbor project.",
};
