// HarborWebhookPolicy: a project's webhook, notifying HTTP or Slack targets of Harbor events.
import { z } from "zod";
import { WebhookEventType, WebhookNotifyType, WebhookPayloadFormat } from "../harbor/model/enums.ts";
import {
  celFormat,
  freeText,
  type HarborNameRule,
  immutableName,
  type KindDefinition,
  k8sName,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  NO_USER_INFO,
  optionalImmutable,
  SECRET_KEY_PATTERN,
  TRIMMED_PATTERN,
  withRules,
} from "./common.ts";

export const WEBHOOK_POLICY_NAME: HarborNameRule = {
  what: "webhook policy",
  pattern: TRIMMED_PATTERN,
  maxLength: 255,
  description: "at most 255 characters, no surrounding whitespace",
};

const Target = z
  .object({
    type: WebhookNotifyType.default("http").describe("http (a plain POST) or slack (a Slack message)."),
    address: withRules(
      z
        .string()
        .max(2048)
        // No fragment (never sent).
        .regex(/^https?:\/\/[^\s/?#]+([/?][^\s#]*)?$/),
      NO_USER_INFO,
      NO_HIDDEN_CHARACTERS,
    ).describe(
      "Where Harbor sends the events: http:// or https://, a host, an optional path and query. Harbor stores it exactly as written (and the operator compares it so). Credentials go in authHeaderSecretRef, not in the address.",
    ),
    authHeaderSecretRef: z
      .object({
        name: k8sName.describe("The Secret's name."),
        key: z
          .string()
          .max(253)
          .regex(SECRET_KEY_PATTERN)
          .default("authHeader")
          .describe("The key holding the header value, e.g. `Bearer <token>`."),
      })
      .optional()
      .describe(
        'For http targets: a Secret in this namespace whose value Harbor sends as the Authorization header (surrounding whitespace trimmed). It must opt in with the annotation `harborconfig.io/usable-as` naming `webhook-auth-header` (a connection\'s credentials Secret never can); otherwise Ready=False, reason SecretNotAllowed. Label the Secret `harborconfig.io/watch: "true"` to have a change pushed to Harbor at once; otherwise it reaches Harbor with the next drift check.',
      ),
    skipCertVerify: z.boolean().default(false).describe("Do not verify the target's TLS certificate."),
    payloadFormat: WebhookPayloadFormat.optional().describe(
      "For http targets; Harbor stores Default when unset. Not allowed for slack.",
    ),
  })
  .meta({
    "x-kubernetes-validations": [
      {
        rule: "self.type != 'slack' || !has(self.payloadFormat)",
        message: "slack targets take no payloadFormat",
        fieldPath: ".payloadFormat",
        reason: "FieldValueForbidden",
      },
      {
        rule: "self.type != 'slack' || !has(self.authHeaderSecretRef)",
        message: "slack targets take no authHeaderSecretRef",
        fieldPath: ".authHeaderSecretRef",
        reason: "FieldValueForbidden",
      },
    ],
  });

export const HarborWebhookPolicySpec = z.object({
  ...managedSpec,
  projectRef: LocalObjectReference.describe("The HarborProject the webhook belongs to. Immutable."),
  name: immutableName(WEBHOOK_POLICY_NAME, NO_HIDDEN_CHARACTERS).optional(),
  description: freeText()
    .optional()
    .describe(
      "Free text Harbor shows with the object, up to 1,024 characters. Unset: left as Harbor has it.",
    ),
  enabled: z.boolean().default(true).describe("Whether Harbor sends events at all."),
  eventTypes: z
    .array(WebhookEventType)
    .min(1)
    .max(16)
    .meta({ "x-kubernetes-list-type": "set" })
    .describe("The Harbor events that trigger the webhook; order does not matter."),
  targets: z.array(Target).min(1).max(16).describe("Where each event is sent."),
});
export type HarborWebhookPolicySpec = z.output<typeof HarborWebhookPolicySpec>;

export const HarborWebhookPolicyStatus = z.object({
  ...managedStatus,
  projectId: z.number().int().optional().describe("The Harbor id of the project the policy belongs to."),
  subscribedEvents: z
    .string()
    .optional()
    .describe(
      'The event types the policy has in Harbor, sorted and comma-separated (e.g. "DELETE_ARTIFACT, PUSH_ARTIFACT"), for the EVENTS column of `kubectl get -o wide`.',
    ),
  lastTriggers: z
    .array(
      z.object({
        eventType: z.string().describe("The Harbor event type, e.g. PUSH_ARTIFACT."),
        time: z.string().describe("When Harbor last sent this event to the policy's targets (RFC 3339)."),
      }),
    )
    .max(16)
    .optional()
    .describe(
      "When each event type last fired (types that never fired are left out). Read on every reconcile, and otherwise every --status-refresh-interval (1 h by default).",
    ),
  recentFailures: z
    .array(
      z.object({
        jobId: z.number().int().describe("Harbor's id of the delivery."),
        eventType: z.string().describe("The Harbor event type that was being delivered, e.g. PUSH_ARTIFACT."),
        notifyType: z.string().describe("http or slack."),
        time: z.string().describe("When Harbor started the delivery (RFC 3339)."),
        error: z
          .string()
          .optional()
          .describe(
            'Why the delivery failed, as Harbor\'s job log says (Harbor keeps no error text anywhere else): e.g. "abnormal response code: 500, body: …" (the receiver answered with an error) or "error to send request: Post …: connection refused" (no answer). Read once per failure; absent when the log holds none or could not be read.',
          ),
      }),
    )
    .max(5)
    .optional()
    .describe("The most recent failed deliveries, newest first. Refreshed like lastTriggers."),
});
export type HarborWebhookPolicyStatus = z.output<typeof HarborWebhookPolicyStatus>;

export const harborWebhookPolicy: KindDefinition<HarborWebhookPolicySpec, HarborWebhookPolicyStatus> = {
  kind: "HarborWebhookPolicy",
  plural: "harborwebhookpolicies",
  singular: "harborwebhookpolicy",
  shortNames: ["hwh"],
  scope: "Namespaced",
  spec: HarborWebhookPolicySpec,
  status: HarborWebhookPolicyStatus,
  specValidations: [
    optionalImmutable("name", ""),
    {
      rule: "self.projectRef == oldSelf.projectRef",
      message: "projectRef is immutable",
      messageExpression: celFormat(
        'projectRef is immutable: a webhook policy stays in its project; it stays "%s"',
        "oldSelf.projectRef.name",
      ),
      fieldPath: ".projectRef",
    },
  ],
  columns: [
    { name: "Project", type: "string", jsonPath: ".spec.projectRef.name" },
    { name: "Events", type: "string", jsonPath: ".status.subscribedEvents", priority: 1 },
  ],
  description:
    "A webhook policy of a Harbor project: which events Harbor sends to which HTTP or Slack targets; recent deliveries are shown in status.",
};
