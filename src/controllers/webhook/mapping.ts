// HarborWebhookPolicy ⇄ Harbor webhook policy, as pure functions. The spec is compared with what
// Harbor stores, the way Harbor stores it, so nothing flaps:
// - an address is stored exactly as sent (Harbor only checks its scheme; seen on a running 2.12.4),
//   so it is sent as written and compared as written: a trailing "/" or a query is a difference;
// - an http target without a payload format is stored as Default (Harbor before 2.8 sends none,
//   which means the same); a slack target has none;
// - event types are a set; empty strings and false booleans are left out of Harbor's answers;
// - the auth header comes back in clear and is compared, but only its field name is ever reported.
// An unset description is not managed (kept as Harbor has it); `creator`, which Harbor stores as
// sent, is set once on create and carried over on update, since PUT replaces the whole policy.
import { SECRET_USES } from "../../api/common.ts";
import type { HarborWebhookPolicySpec, HarborWebhookPolicyStatus } from "../../api/webhook.ts";
import { WebhookEventType, WebhookNotifyType, WebhookPayloadFormat } from "../../harbor/model/enums.ts";
import type {
  PersistedWebhookJob,
  PersistedWebhookPolicy,
  WebhookLastTrigger,
  WebhookPolicy,
  WebhookPolicyInput,
} from "../../harbor/webhooks.ts";
import { safeText } from "../../kube/text.ts";
import type { SecretStub, SpecFields } from "../shared/export.ts";

/** What a policy's status shows of its failed deliveries. */
export const MAX_RECENT_FAILURES = 5;

/** What the mapping needs besides the spec: the auth header values read from Secrets. */
export interface WebhookContext {
  /** One entry per spec target: the Authorization header to send, "" for none. */
  authHeaders: readonly string[];
}

type SpecTarget = HarborWebhookPolicySpec["targets"][number];

/** A target as Harbor stores it, in the spec's terms. */
interface Stored {
  type: string;
  address: string;
  authHeader: string;
  skipCertVerify: boolean;
  payloadFormat: string;
}

function desiredTarget(t: SpecTarget, authHeader: string): Stored {
  return {
    type: t.type,
    address: t.address,
    authHeader: t.type === "slack" ? "" : authHeader,
    skipCertVerify: t.skipCertVerify,
    payloadFormat: t.type === "slack" ? "" : (t.payloadFormat ?? "Default"),
  };
}

function storedTarget(t: NonNullable<WebhookPolicy["targets"]>[number]): Stored {
  const type = t.type ?? "";
  return {
    type,
    address: t.address ?? "",
    authHeader: t.auth_header ?? "",
    skipCertVerify: t.skip_cert_verify ?? false,
    payloadFormat: t.payload_format || (type === "http" ? "Default" : ""),
  };
}

/** The create/update body. `current` is the policy being replaced (its creator is kept). */
export function policyRequest(
  spec: HarborWebhookPolicySpec,
  name: string,
  ctx: WebhookContext,
  current: WebhookPolicy | undefined,
  creator: string,
): WebhookPolicyInput {
  const description = spec.description ?? current?.description;
  const keptCreator = current ? current.creator : creator;
  return {
    name,
    ...(description ? { description } : {}),
    event_types: [...new Set(spec.eventTypes)],
    enabled: spec.enabled,
    ...(keptCreator ? { creator: keptCreator } : {}),
    // Addresses go as written, and Harbor keeps them so.
    targets: spec.targets.map((t, i) => {
      const d = desiredTarget(t, ctx.authHeaders[i] ?? "");
      if (t.type === "slack")
        return { type: "slack", address: t.address, skip_cert_verify: d.skipCertVerify };
      return {
        type: "http",
        address: t.address,
        ...(d.authHeader ? { auth_header: d.authHeader } : {}),
        skip_cert_verify: d.skipCertVerify,
        payload_format: d.payloadFormat as "Default" | "CloudEvents",
      };
    }),
  };
}

/**
 * The policy as Harbor stores a create of `request`: every field as sent (the request always names
 * an http target's payload format, which Harbor would otherwise store as Default), with the id its
 * answer gave. A new policy needs no read-back.
 */
export function storedAsCreated(
  request: WebhookPolicyInput,
  id: number,
  projectId: number,
): PersistedWebhookPolicy {
  return { ...request, id, project_id: projectId };
}

const TARGET_FIELDS: ReadonlyArray<keyof Stored> = [
  "type",
  "address",
  "authHeader",
  "skipCertVerify",
  "payloadFormat",
];

/** The spec fields whose Harbor value differs, e.g. "eventTypes", "targets[0].authHeader". */
export function diff(
  spec: HarborWebhookPolicySpec,
  name: string,
  ctx: WebhookContext,
  policy: WebhookPolicy,
): string[] {
  const out: string[] = [];
  if ((policy.name ?? "") !== name) out.push("name");
  if (spec.description !== undefined && (policy.description ?? "") !== spec.description)
    out.push("description");
  if ((policy.enabled ?? false) !== spec.enabled) out.push("enabled");
  const want = [...new Set(spec.eventTypes)].sort();
  const have = [...new Set(policy.event_types ?? [])].sort();
  if (want.join(",") !== have.join(",")) out.push("eventTypes");
  const stored = (policy.targets ?? []).map(storedTarget);
  if (stored.length !== spec.targets.length) {
    out.push("targets");
    return out;
  }
  spec.targets.forEach((t, i) => {
    const d = desiredTarget(t, ctx.authHeaders[i] ?? "");
    const s = stored[i] as Stored;
    for (const f of TARGET_FIELDS) if (d[f] !== s[f]) out.push(`targets[${i}].${f}`);
  });
  return out;
}

/** The policy's event types as one line for a printer column (a list prints as JSON there). */
export function subscribedEvents(policy: WebhookPolicy): string {
  return [...new Set(policy.event_types ?? [])].sort().join(", ");
}

/** Status fields from the policy (delivery status is read apart, see external.ts). */
export function status(projectId: number, policy: WebhookPolicy): Partial<HarborWebhookPolicyStatus> {
  return { projectId, subscribedEvents: subscribedEvents(policy) };
}

/** Harbor's zero time stands for "never". */
function harborTime(text: string | undefined): string | undefined {
  if (!text || text.startsWith("0001-01-01")) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

/** When each event type of this policy last fired, from the project's lasttrigger list. */
export function lastTriggers(
  policyName: string,
  triggers: readonly WebhookLastTrigger[],
): Array<{ eventType: string; time: string }> {
  const out = new Map<string, string>();
  for (const t of triggers) {
    const time = harborTime(t.last_trigger_time);
    if (t.policy_name !== policyName || !t.event_type || !time) continue;
    const seen = out.get(t.event_type);
    if (!seen || seen < time) out.set(t.event_type, time);
  }
  return [...out].sort(([a], [b]) => a.localeCompare(b)).map(([eventType, time]) => ({ eventType, time }));
}

/** One failed delivery as status shows it. */
export interface DeliveryFailure {
  jobId: number;
  eventType: string;
  notifyType: string;
  time: string;
  /** Why it failed, from the delivery's job log. */
  error?: string;
}

/** How much of a delivery's error the status keeps (the receiver's answer body is part of it). */
const MAX_ERROR_CHARS = 512;

/**
 * Why a delivery failed, from its job log: the last ERROR line jobservice wrote, without the
 * job's own preamble, e.g. "abnormal response code: 500, body: …" or "error to send request: Post
 * …: connection refused". Undefined when the log holds no error.
 */
export function deliveryError(log: string): string | undefined {
  const lines = log.split("\n").filter((l) => /\[ERROR\]/.test(l));
  const last = lines.at(-1);
  if (last === undefined) return undefined;
  const text = last
    .replace(/^.*?\[ERROR\]\s*(\[[^\]]*\]:?\s*)?/, "")
    .replace(/^exit \w+ job, error:\s*/, "")
    .trim();
  return text ? safeText(text, MAX_ERROR_CHARS) : undefined;
}

/** The newest failed deliveries (jobs with status Error), newest first. */
export function recentFailures(jobs: readonly PersistedWebhookJob[]): DeliveryFailure[] {
  return jobs
    .filter((j) => j.status === "Error")
    .map((j) => ({
      jobId: j.id,
      eventType: j.event_type ?? "",
      notifyType: j.notify_type ?? "",
      time: harborTime(j.creation_time) ?? "",
    }))
    .sort((a, b) => b.time.localeCompare(a.time) || b.jobId - a.jobId)
    .slice(0, MAX_RECENT_FAILURES);
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of policyRequest; see shared/export.ts)

/** What the export writes for a webhook policy, or why it cannot. */
export type WebhookExport =
  | { spec: SpecFields<typeof HarborWebhookPolicySpec>; secrets: SecretStub[]; notes: string[] }
  | { skip: string };

/** The Secret stub a policy's auth headers read, named after its resource. */
export const authSecretName = (resourceName: string) => `${resourceName}-auth`;

/** The key of target i's auth header in that Secret. */
export const authHeaderKey = (i: number) => (i === 0 ? "authHeader" : `authHeader-${i}`);

/**
 * The spec that reproduces a webhook policy: name, description, enabled, event types (sorted) and
 * targets in Harbor's order. An auth header becomes a reference to a Secret stub (one per policy,
 * a key per target): Harbor shows the header, but it is a secret and never goes into a file.
 */
export function specFromPolicy(
  policy: WebhookPolicy,
  projectRef: string | undefined,
  resourceName: string,
): WebhookExport {
  const name = policy.name ?? "";
  if (projectRef === undefined) return { skip: `the project of webhook policy ${name} is not exported` };
  const events = [...new Set(policy.event_types ?? [])].sort();
  const unknown = events.filter((e) => !WebhookEventType.safeParse(e).success);
  if (unknown.length)
    return { skip: `webhook policy ${name} has event types the CRD does not know: ${unknown.join(", ")}` };
  const secretName = authSecretName(resourceName);
  const keys: string[] = [];
  const targets: NonNullable<SpecFields<typeof HarborWebhookPolicySpec>["targets"]> = [];
  for (const [i, t] of (policy.targets ?? []).entries()) {
    const s = storedTarget(t);
    const type = WebhookNotifyType.safeParse(s.type);
    if (!type.success) return { skip: `webhook policy ${name} has a target of type "${s.type}"` };
    if (!/^https?:\/\/[^\s/?#]+([/?][^\s#]*)?$/.test(s.address) || /^[^:/?#]+:\/\/[^/?#]*@/.test(s.address))
      return { skip: `webhook policy ${name} has the address "${s.address}", which the CRD does not accept` };
    const format = WebhookPayloadFormat.safeParse(s.payloadFormat);
    if (type.data === "http" && !format.success)
      return { skip: `webhook policy ${name} has the payload format "${s.payloadFormat}"` };
    const header = type.data === "http" && s.authHeader !== "";
    if (header) keys.push(authHeaderKey(i));
    targets.push({
      type: type.data,
      address: s.address,
      ...(header ? { authHeaderSecretRef: { name: secretName, key: authHeaderKey(i) } } : {}),
      skipCertVerify: s.skipCertVerify,
      ...(type.data === "http" && format.success && format.data !== "Default"
        ? { payloadFormat: format.data }
        : {}),
    });
  }
  const spec: SpecFields<typeof HarborWebhookPolicySpec> = {
    name,
    projectRef: { name: projectRef },
    description: policy.description ?? "",
    enabled: policy.enabled ?? false,
    eventTypes: events as SpecFields<typeof HarborWebhookPolicySpec>["eventTypes"],
    targets,
  };
  const notes = targets.some((t) => t.type === "slack")
    ? ["a Slack webhook address carries its token: treat this file as sensitive before committing it"]
    : [];
  if (keys.length === 0) return { spec, secrets: [], notes };
  return {
    spec,
    secrets: [
      {
        name: secretName,
        values: Object.fromEntries(keys.map((k) => [k, ""])),
        usableAs: SECRET_USES.webhookAuthHeader,
        comment: `The Authorization header Harbor sends with the events of webhook policy "${name}" (${keys.join(", ")}: one per target that has one).`,
      },
    ],
    notes: [
      ...notes,
      `it reads Secret ${secretName}: fill in the Authorization header (${keys.join(", ")}); until then it waits, and a wrong value is pushed to Harbor`,
    ],
  };
}
