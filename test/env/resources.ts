// The operator's objects as tests write them and read them back: a builder per kind (its spec typed
// from src/api, the connection defaulted to the fixtures' "harbor"), Secrets, the status a test
// looks at (conditions, Ready), the Events of an object, and the credentials a Secret delivers.

import { z } from "zod";
import {
  type HarborAuditLogPurgeSpec,
  type HarborAuditLogPurgeStatus,
  harborAuditLogPurge,
} from "../../src/api/audit-log-purge.ts";
import {
  API_VERSION,
  type ConditionSchema,
  managedStatus,
  USABLE_AS_ANNOTATION,
  WATCH_LABEL,
} from "../../src/api/common.ts";
import {
  type HarborConfigurationSpec,
  type HarborConfigurationStatus,
  harborConfiguration,
} from "../../src/api/configuration.ts";
import {
  type ClusterHarborConnectionSpec,
  type ConnectionStatus,
  clusterHarborConnection,
  type HarborConnectionSpec,
  harborConnection,
} from "../../src/api/connection.ts";
import {
  type HarborGarbageCollectionSpec,
  type HarborGarbageCollectionStatus,
  harborGarbageCollection,
} from "../../src/api/garbage-collection.ts";
import {
  type HarborGarbageCollectionRunSpec,
  type HarborGarbageCollectionRunStatus,
  harborGarbageCollectionRun,
} from "../../src/api/gc-run.ts";
import {
  type HarborImmutableTagRuleSpec,
  type HarborImmutableTagRuleStatus,
  harborImmutableTagRule,
} from "../../src/api/immutable-tag-rule.ts";
import {
  type HarborJobServiceSpec,
  type HarborJobServiceStatus,
  harborJobService,
} from "../../src/api/job-service.ts";
import { type HarborLabelSpec, type HarborLabelStatus, harborLabel } from "../../src/api/label.ts";
import {
  type HarborProjectMemberSpec,
  type HarborProjectMemberStatus,
  harborProjectMember,
} from "../../src/api/member.ts";
import {
  type HarborPreheatInstanceSpec,
  type HarborPreheatInstanceStatus,
  harborPreheatInstance,
} from "../../src/api/preheat-instance.ts";
import {
  type HarborPreheatPolicySpec,
  type HarborPreheatPolicyStatus,
  harborPreheatPolicy,
} from "../../src/api/preheat-policy.ts";
import { type HarborProjectSpec, type HarborProjectStatus, harborProject } from "../../src/api/project.ts";
import {
  type HarborRegistrySpec,
  type HarborRegistryStatus,
  harborRegistry,
} from "../../src/api/registry.ts";
import {
  type HarborReplicationPolicySpec,
  type HarborReplicationPolicyStatus,
  harborReplicationPolicy,
} from "../../src/api/replication.ts";
import {
  type HarborReplicationRunSpec,
  type HarborReplicationRunStatus,
  harborReplicationRun,
} from "../../src/api/replication-run.ts";
import {
  type HarborRetentionPolicySpec,
  type HarborRetentionPolicyStatus,
  harborRetentionPolicy,
} from "../../src/api/retention.ts";
import { type HarborRobotSpec, type HarborRobotStatus, harborRobot } from "../../src/api/robot.ts";
import { type HarborScanAllSpec, type HarborScanAllStatus, harborScanAll } from "../../src/api/scan-all.ts";
import {
  type HarborScannerRegistrationSpec,
  type HarborScannerRegistrationStatus,
  harborScannerRegistration,
} from "../../src/api/scanner.ts";
import { type HarborUserSpec, type HarborUserStatus, harborUser } from "../../src/api/user.ts";
import {
  type HarborUserGroupSpec,
  type HarborUserGroupStatus,
  harborUserGroup,
} from "../../src/api/user-group.ts";
import {
  type HarborWebhookPolicySpec,
  type HarborWebhookPolicyStatus,
  harborWebhookPolicy,
} from "../../src/api/webhook.ts";
import { clusterApi } from "./kube-api.ts";
import type { Kubectl, KubeObject } from "./kubectl.ts";
import { until } from "./until.ts";

// ---------------------------------------------------------------------------------------------
// Builders

/** Where an object goes and what it carries besides its spec. */
export interface Meta {
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A spec as a test writes it: any field may be left out; the builders fill what a kind needs. */
export type SpecInput<S extends z.ZodType> = Partial<z.input<S>>;

/** An object of the API group as `kubectl apply` takes it. */
export interface Manifest<S = Record<string, unknown>> {
  apiVersion: string;
  kind: string;
  metadata: { name: string } & Meta;
  spec: S;
}

/**
 * A value the spec's type does not allow, written on purpose (for a test that expects it refused):
 * `policy("x", { direction: invalid("sideways") })`.
 */
export const invalid = <T>(value: unknown): T => value as T;

const metadata = (name: string, meta: Meta = {}): Manifest["metadata"] => ({
  name,
  ...(meta.namespace ? { namespace: meta.namespace } : {}),
  ...(meta.labels ? { labels: meta.labels } : {}),
  ...(meta.annotations ? { annotations: meta.annotations } : {}),
});

/** Any object of the API group by its kind, e.g. to go through every kind alike. */
export function manifest<S extends object>(kind: string, name: string, spec: S, meta?: Meta): Manifest<S> {
  return { apiVersion: API_VERSION, kind, metadata: metadata(name, meta), spec };
}

/** The connection the fixtures make Ready in each namespace (`useOperator`). */
export const HARBOR = { connectionRef: { name: "harbor" } };

/** Pull access to a project's repositories, the permission robots get unless a test says otherwise. */
export const PULL = [{ resource: "repository", action: "pull" }];

/** A HarborConnection to `url` with the credentials in Secret `secretName`. */
export const connection = (
  name: string,
  url: string,
  secretName: string,
  spec: SpecInput<typeof HarborConnectionSpec> = {},
  meta?: Meta,
) =>
  manifest(harborConnection.kind, name, { url, credentialsSecretRef: { name: secretName }, ...spec }, meta);

/** A ClusterHarborConnection (cluster-scoped: no namespace). */
export const clusterConnection = (name: string, spec: SpecInput<typeof ClusterHarborConnectionSpec>) =>
  manifest(clusterHarborConnection.kind, name, spec);

/** A HarborProject through the "harbor" connection. */
export const project = (name: string, spec: SpecInput<typeof HarborProjectSpec> = {}, meta?: Meta) =>
  manifest(harborProject.kind, name, { ...HARBOR, ...spec }, meta);

/** A HarborRobot through the "harbor" connection, allowed to pull; a project robot needs projectRef. */
export const robot = (name: string, spec: SpecInput<typeof HarborRobotSpec> = {}, meta?: Meta) =>
  manifest(harborRobot.kind, name, { ...HARBOR, permissions: [{ access: PULL }], ...spec }, meta);

/** A HarborRegistry of type docker-registry at https://<name>.example.com unless the spec says otherwise. */
export const registry = (name: string, spec: SpecInput<typeof HarborRegistrySpec> = {}, meta?: Meta) =>
  manifest(
    harborRegistry.kind,
    name,
    { ...HARBOR, type: "docker-registry", url: `https://${name}.example.com`, ...spec },
    meta,
  );

/** A HarborReplicationPolicy that pushes, unless the spec says otherwise; it needs a registryRef. */
export const replicationPolicy = (
  name: string,
  spec: SpecInput<typeof HarborReplicationPolicySpec> = {},
  meta?: Meta,
) => manifest(harborReplicationPolicy.kind, name, { ...HARBOR, direction: "push", ...spec }, meta);

/** A HarborWebhookPolicy on PUSH_ARTIFACT unless the spec says otherwise; it needs projectRef and targets. */
export const webhookPolicy = (
  name: string,
  spec: SpecInput<typeof HarborWebhookPolicySpec> = {},
  meta?: Meta,
) => manifest(harborWebhookPolicy.kind, name, { ...HARBOR, eventTypes: ["PUSH_ARTIFACT"], ...spec }, meta);

/**
 * A HarborScannerRegistration of the adapter at http://<name>-adapter:8080 unless the spec says
 * otherwise. Harbor registers only an adapter that answers: put one there first
 * (`emulator.control.scanners.addAdapter(url)`).
 */
export const scannerRegistration = (
  name: string,
  spec: SpecInput<typeof HarborScannerRegistrationSpec> = {},
  meta?: Meta,
) =>
  manifest(
    harborScannerRegistration.kind,
    name,
    { ...HARBOR, url: `http://${name}-adapter:8080`, ...spec },
    meta,
  );

/** A HarborGarbageCollectionRun through the "harbor" connection (Harbor's defaults: no dry run, 1 worker). */
export const gcRun = (
  name: string,
  spec: SpecInput<typeof HarborGarbageCollectionRunSpec> = {},
  meta?: Meta,
) => manifest(harborGarbageCollectionRun.kind, name, { ...HARBOR, ...spec }, meta);

/** A HarborReplicationRun of the policy `policy` through the "harbor" connection. */
export const replicationRun = (
  name: string,
  policy: string,
  spec: SpecInput<typeof HarborReplicationRunSpec> = {},
  meta?: Meta,
) => manifest(harborReplicationRun.kind, name, { ...HARBOR, policyRef: { name: policy }, ...spec }, meta);

/** A HarborLabel through the "harbor" connection: global unless the spec names a projectRef. */
export const label = (name: string, spec: SpecInput<typeof HarborLabelSpec> = {}, meta?: Meta) =>
  manifest(harborLabel.kind, name, { ...HARBOR, ...spec }, meta);

/** A HarborUserGroup through the "harbor" connection, of type oidc unless the spec says otherwise. */
export const userGroup = (name: string, spec: SpecInput<typeof HarborUserGroupSpec> = {}, meta?: Meta) =>
  manifest(harborUserGroup.kind, name, { ...HARBOR, type: "oidc", ...spec }, meta);

/** A HarborProjectMember through the "harbor" connection, a developer; it needs projectRef and a user or group. */
export const projectMember = (
  name: string,
  spec: SpecInput<typeof HarborProjectMemberSpec> = {},
  meta?: Meta,
) => manifest(harborProjectMember.kind, name, { ...HARBOR, role: "developer", ...spec }, meta);
/** A HarborGarbageCollection through the "harbor" connection, Daily unless the spec says otherwise. */
export const garbageCollection = (
  name: string,
  spec: SpecInput<typeof HarborGarbageCollectionSpec> = {},
  meta?: Meta,
) => manifest(harborGarbageCollection.kind, name, { ...HARBOR, schedule: { type: "Daily" }, ...spec }, meta);

/** A HarborAuditLogPurge through the "harbor" connection: Daily, a week kept, unless the spec says otherwise. */
export const auditLogPurge = (
  name: string,
  spec: SpecInput<typeof HarborAuditLogPurgeSpec> = {},
  meta?: Meta,
) =>
  manifest(
    harborAuditLogPurge.kind,
    name,
    { ...HARBOR, schedule: { type: "Daily" }, retentionHours: 168, ...spec },
    meta,
  );

/** A HarborJobService through the "harbor" connection; it needs queues. */
export const jobService = (name: string, spec: SpecInput<typeof HarborJobServiceSpec> = {}, meta?: Meta) =>
  manifest(harborJobService.kind, name, { ...HARBOR, ...spec }, meta);

/** A HarborRetentionPolicy of `project` through the "harbor" connection. */
export const retentionPolicy = (
  name: string,
  project: string,
  spec: Partial<SpecInput<typeof HarborRetentionPolicySpec>> = {},
  meta?: Meta,
) => manifest(harborRetentionPolicy.kind, name, { ...HARBOR, projectRef: { name: project }, ...spec }, meta);

/** A HarborImmutableTagRule of `project` through the "harbor" connection. */
export const immutableTagRule = (
  name: string,
  project: string,
  spec: Partial<SpecInput<typeof HarborImmutableTagRuleSpec>> = {},
  meta?: Meta,
) => manifest(harborImmutableTagRule.kind, name, { ...HARBOR, projectRef: { name: project }, ...spec }, meta);
/** A HarborConfiguration through the "harbor" connection; only the fields given are managed. */
export const configuration = (
  name: string,
  spec: SpecInput<typeof HarborConfigurationSpec> = {},
  meta?: Meta,
) => manifest(harborConfiguration.kind, name, { ...HARBOR, ...spec }, meta);

/** A HarborUser through the "harbor" connection; it needs an email. */
export const user = (name: string, spec: SpecInput<typeof HarborUserSpec>, meta?: Meta) =>
  manifest(harborUser.kind, name, { ...HARBOR, ...spec }, meta);
/** A HarborScanAll through the "harbor" connection, Daily unless the spec says otherwise. */
export const scanAll = (name: string, spec: SpecInput<typeof HarborScanAllSpec> = {}, meta?: Meta) =>
  manifest(harborScanAll.kind, name, { ...HARBOR, schedule: { type: "Daily" }, ...spec }, meta);

/**
 * A HarborPreheatInstance through the "harbor" connection: a Dragonfly at `endpoint` unless the spec
 * says otherwise. The emulator's Harbor reaches only providers a test put there
 * (`emulator.control.preheat.addProvider(endpoint)`).
 */
export const preheatInstance = (
  name: string,
  spec: SpecInput<typeof HarborPreheatInstanceSpec> = {},
  meta?: Meta,
) => manifest(harborPreheatInstance.kind, name, { ...HARBOR, vendor: "dragonfly", ...spec }, meta);

/** A HarborPreheatPolicy through the "harbor" connection; it needs projectRef and instanceRef. */
export const preheatPolicy = (
  name: string,
  spec: SpecInput<typeof HarborPreheatPolicySpec> = {},
  meta?: Meta,
) => manifest(harborPreheatPolicy.kind, name, { ...HARBOR, ...spec }, meta);

export interface SecretOptions extends Meta {
  type?: string;
  /** Labelled harborconfig.io/watch: its changes reach the resources that use it at once. */
  watched?: boolean;
  /** Annotated harborconfig.io/usable-as with these uses, e.g. "registry-credential". */
  usableAs?: string;
}

/** A Secret with these string values. */
export const secret = (name: string, stringData: Record<string, string>, o: SecretOptions = {}) => {
  const { type, watched, usableAs, ...meta } = o;
  return {
    apiVersion: "v1",
    kind: "Secret",
    ...(type ? { type } : {}),
    metadata: metadata(name, {
      ...meta,
      ...(watched ? { labels: { ...meta.labels, [WATCH_LABEL]: "true" } } : {}),
      ...(usableAs ? { annotations: { ...meta.annotations, [USABLE_AS_ANNOTATION]: usableAs } } : {}),
    }),
    stringData,
  };
};

/** A connection's credentials Secret: username and password, opted in as a connection's credentials. */
export const credentials = (name: string, login: { username: string; password: string }, meta?: Meta) =>
  secret(
    name,
    { username: login.username, password: login.password },
    { ...meta, usableAs: "harbor-connection" },
  );

// ---------------------------------------------------------------------------------------------
// Status

export type Condition = z.output<typeof ConditionSchema>;

const ManagedStatus = z.object(managedStatus);
/** The status every managed kind has: conditions, observedGeneration, harborId, harborUrl, drift. */
export type ManagedStatus = z.output<typeof ManagedStatus>;

/** An object of the API group as `kubectl get -o json` shows it, with the kind's status. */
export type Resource<Status = ManagedStatus> = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Status;
};

export type ConnectionCR = Resource<ConnectionStatus>;
export type ProjectCR = Resource<HarborProjectStatus>;
export type RobotCR = Resource<HarborRobotStatus>;
export type RegistryCR = Resource<HarborRegistryStatus>;
export type ReplicationPolicyCR = Resource<HarborReplicationPolicyStatus>;
export type WebhookPolicyCR = Resource<HarborWebhookPolicyStatus>;
export type ScannerRegistrationCR = Resource<HarborScannerRegistrationStatus>;

export type GcRunCR = Resource<HarborGarbageCollectionRunStatus>;
export type ReplicationRunCR = Resource<HarborReplicationRunStatus>;

export type LabelCR = Resource<HarborLabelStatus>;
export type UserGroupCR = Resource<HarborUserGroupStatus>;
export type ProjectMemberCR = Resource<HarborProjectMemberStatus>;
export type GarbageCollectionCR = Resource<HarborGarbageCollectionStatus>;
export type AuditLogPurgeCR = Resource<HarborAuditLogPurgeStatus>;
export type JobServiceCR = Resource<HarborJobServiceStatus>;
export type RetentionPolicyCR = Resource<HarborRetentionPolicyStatus>;
export type ImmutableTagRuleCR = Resource<HarborImmutableTagRuleStatus>;
export type ConfigurationCR = Resource<HarborConfigurationStatus>;
export type UserCR = Resource<HarborUserStatus>;
export type ScanAllCR = Resource<HarborScanAllStatus>;
export type PreheatInstanceCR = Resource<HarborPreheatInstanceStatus>;
export type PreheatPolicyCR = Resource<HarborPreheatPolicyStatus>;

interface WithConditions {
  metadata: { generation?: number };
  status?: { conditions?: Condition[]; observedGeneration?: number };
}

/** The condition of this type, if the status has one. */
export const condition = (o: WithConditions, type: string): Condition | undefined =>
  o.status?.conditions?.find((c) => c.type === type);

/** The Ready condition. */
export const ready = (o: WithConditions): Condition | undefined => condition(o, "Ready");

/** Ready=True for the spec as it is now (status.observedGeneration caught up). */
export const readyForSpec = (o: WithConditions): boolean =>
  ready(o)?.status === "True" && o.status?.observedGeneration === o.metadata.generation;

/**
 * The Harbor id a resource's status records: a number for most kinds, a scanner registration's
 * UUID for scanners. Fails the test when the status has none yet.
 */
export function harborIdOf<Id extends number | string = number>(o: { status?: { harborId?: unknown } }): Id {
  const id = o.status?.harborId;
  if (typeof id !== "number" && typeof id !== "string")
    throw new Error(`no harborId in status: ${JSON.stringify(o.status)}`);
  return id as Id;
}

/** Stalled=True: no retry will fix it. */
export const stalled = (o: WithConditions): boolean => condition(o, "Stalled")?.status === "True";

// ---------------------------------------------------------------------------------------------
// Events

export interface KubeEvent {
  type: string;
  reason: string;
  message: string;
  count?: number;
  involvedObject: { kind: string; name: string; namespace?: string };
  source?: { component?: string };
}

/**
 * The Events about the object of this name (and kind, if given) in kubectl's namespace: what
 * `kubectl get events --field-selector involvedObject.name=<name> -o json` lists, read over the REST
 * API (no kubectl process per look).
 */
export async function eventsOf(kubectl: Kubectl, name: string, kind?: string): Promise<KubeEvent[]> {
  const fieldSelector = `involvedObject.name=${name}${kind ? `,involvedObject.kind=${kind}` : ""}`;
  const api = clusterApi(kubectl.kubeconfigPath);
  const namespace = kubectl.namespace ?? api.client.contextNamespace ?? "default";
  return (await api.list<KubeEvent>("events", namespace, { fieldSelector })).items;
}

/** The reasons of those Events, oldest first. */
export const eventReasons = async (kubectl: Kubectl, name: string, kind?: string): Promise<string[]> =>
  (await eventsOf(kubectl, name, kind)).map((e) => e.reason);

/**
 * The newest Event of this reason about the object (whose message holds `says`, if given), once
 * there is one: the operator writes Events one after another beside its status writes, so a test
 * that saw the status may look before the Event is there.
 */
export const eventOf = (
  kubectl: Kubectl,
  name: string,
  kind: string,
  reason: string,
  says?: string,
): Promise<KubeEvent> =>
  until(`a ${reason} Event about ${kind} ${name}${says ? ` saying "${says}"` : ""}`, async () =>
    (await eventsOf(kubectl, name, kind)).findLast(
      (e) => e.reason === reason && (says === undefined || e.message.includes(says)),
    ),
  );

// ---------------------------------------------------------------------------------------------
// What Secrets and ServiceAccounts hold

export interface SecretObject extends KubeObject {
  type: string;
  metadata: KubeObject["metadata"] & { ownerReferences?: Array<{ kind: string; name: string; uid: string }> };
  data?: Record<string, string>;
}

/** A Secret's values, decoded. */
export async function secretValues(
  kubectl: Kubectl,
  name: string,
): Promise<{ secret: SecretObject; text: (key: string) => string }> {
  const secret = await kubectl.get<SecretObject>("secret", name);
  return { secret, text: (key) => Buffer.from(secret.data?.[key] ?? "", "base64").toString("utf8") };
}

/** The username and password a Secret delivers (a robot's pull secret, say), with the Secret. */
export async function deliveredCredentials(kubectl: Kubectl, name: string) {
  const { secret, text } = await secretValues(kubectl, name);
  return { username: text("username"), password: text("password"), secret, text };
}

type ServiceAccount = { imagePullSecrets?: Array<{ name: string }> };
const pullSecretNames = (sa: ServiceAccount) => (sa.imagePullSecrets ?? []).map((e) => e.name);

/** The names in a ServiceAccount's imagePullSecrets (the ServiceAccount must exist). */
export async function pullSecretsOf(kubectl: Kubectl, account: string): Promise<string[]> {
  return pullSecretNames(await kubectl.get<ServiceAccount>("serviceaccount", account));
}

/**
 * Follows the ServiceAccount (a watch; it may not exist yet) until `holds` is true of the names in
 * its imagePullSecrets, within the budget's operator wait; returns those names.
 */
export async function waitForPullSecrets(
  kubectl: Pick<Kubectl, "kubeconfigPath" | "namespace">,
  account: string,
  holds: (names: string[]) => boolean,
): Promise<string[]> {
  const api = clusterApi(kubectl.kubeconfigPath);
  const sa = await api.waitFor<ServiceAccount>("serviceaccount", kubectl.namespace, account, (o) =>
    holds(pullSecretNames(o)),
  );
  return pullSecretNames(sa);
}
