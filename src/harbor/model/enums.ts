// Harbor's vocabulary that the CRDs share with the client: the values Harbor takes for a field.
// Model only: this module imports nothing but zod, so that src/api (the CRD contract, which
// `npm run generate` and spec parsing load) never loads the HTTP client. The client's request
// models and the CRD schemas both use these; the CRDs list each enum's values in the order given
// here.
import { z } from "zod";

/** The events a webhook policy can subscribe to (what GetSupportedEventTypes lists). */
export const WebhookEventType = z.enum([
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
]);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** Where a webhook target delivers: a plain HTTP POST, or a Slack message. */
export const WebhookNotifyType = z.enum(["http", "slack"]);
export type WebhookNotifyType = z.infer<typeof WebhookNotifyType>;

/** The payload of an http target; Harbor refuses one on slack targets. */
export const WebhookPayloadFormat = z.enum(["Default", "CloudEvents"]);
export type WebhookPayloadFormat = z.infer<typeof WebhookPayloadFormat>;

/** How Harbor logs in to a remote registry: access key and secret, or a bearer token. */
export const RegistryCredentialType = z.enum(["basic", "oauth"]);
export type RegistryCredentialType = z.infer<typeof RegistryCredentialType>;

/** When a replication policy runs; event_based only for policies that push from this Harbor. */
export const ReplicationTriggerType = z.enum(["manual", "scheduled", "event_based"]);
export type ReplicationTriggerType = z.infer<typeof ReplicationTriggerType>;

/** Whether a replication tag or label filter selects what matches, or everything else. */
export const ReplicationFilterDecoration = z.enum(["matches", "excludes"]);
export type ReplicationFilterDecoration = z.infer<typeof ReplicationFilterDecoration>;

/** Vulnerability severities, lowest first: a project blocks pulls from the one it names up. */
export const Severity = z.enum(["none", "low", "medium", "high", "critical"]);
export type Severity = z.infer<typeof Severity>;

/** A robot's level, and the kind of each of its permissions. */
export const RobotLevel = z.enum(["project", "system"]);
export type RobotLevel = z.infer<typeof RobotLevel>;

/** A robot permission's effect; Harbor reads an absent one as allow. */
export const AccessEffect = z.enum(["allow", "deny"]);
export type AccessEffect = z.infer<typeof AccessEffect>;

/** The operations whose audit records an audit-log purge removes (Harbor 2.7–2.12: include_operations). */
export const PurgeOperation = z.enum(["create", "delete", "pull"]);
export type PurgeOperation = z.infer<typeof PurgeOperation>;
