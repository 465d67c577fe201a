// HarborConnection (namespaced) and ClusterHarborConnection (cluster-scoped): where a Harbor is and
// how to log in. Every managed resource picks one through spec.connectionRef.
import { z } from "zod";
import {
  CERTIFICATES,
  ConditionSchema,
  type KindDefinition,
  k8sName,
  LOOPBACK_HTTP_CEL,
  NO_HIDDEN_CHARACTERS,
  NO_USER_INFO,
  SECRET_KEY_PATTERN,
  type StringRule,
  withRules,
} from "./common.ts";

/** A URL the operator can open a connection to (WHATWG's parser, as undici's). */
const CONNECTABLE: StringRule = {
  // Go's parser (CEL's url()) leaves the port unchecked.
  cel: "isURL(self) && (url(self).getPort() == '' || int(url(self).getPort()) <= 65535)",
  message: "must be a URL the operator can connect to (a valid host, a port up to 65535)",
  test: (v) => URL.canParse(v),
};

const connectionSpecFields = {
  url: withRules(
    z
      .string()
      .max(2048)
      .regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/),
    NO_USER_INFO,
    NO_HIDDEN_CHARACTERS,
    CONNECTABLE,
  ).describe("Harbor's external URL, e.g. https://harbor.example.com. The API is under /api/v2.0."),
  caBundle: withRules(z.string().max(65536), CERTIFICATES)
    .optional()
    .describe(
      "PEM certificates to trust for Harbor's TLS certificate, besides the CAs Node trusts by default (caBundleOnly: instead of them).",
    ),
  caBundleOnly: z
    .boolean()
    .default(false)
    .describe("Trust caBundle alone: Harbor's certificate must chain to one of its CAs. Default false."),
  insecureSkipTLSVerify: z
    .boolean()
    .default(false)
    .describe("Skip TLS verification. Only for test installations."),
  allowInsecureHTTP: z
    .boolean()
    .default(false)
    .describe(
      "Send the credentials over plain http:// to a host other than loopback, e.g. Harbor's in-cluster Service (http://harbor-core.harbor.svc). Without it such a URL is refused: the password would cross the network unencrypted. https:// and loopback need nothing.",
    ),
  registryHost: z
    .string()
    .max(253)
    .regex(/^[a-zA-Z0-9.-]+(:\d+)?$/)
    .optional()
    .describe("The registry host in image references and pull secrets. Defaults to the URL's host."),
  rateLimit: z
    .object({
      requestsPerSecond: z
        .number()
        .int()
        .min(1)
        .max(10000)
        .default(20)
        .describe("Requests per second the operator sends this Harbor on average, 1 to 10000. Default 20."),
      burst: z
        .number()
        .int()
        .min(1)
        .max(10000)
        .default(40)
        .describe(
          "Requests the operator may send at once above that rate after a quiet spell, 1 to 10000. Default 40.",
        ),
    })
    .default({ requestsPerSecond: 20, burst: 40 })
    .describe("Client-side request rate towards this Harbor, shared by all resources using it."),
  maxConcurrency: z
    .number()
    .int()
    .min(1)
    .max(256)
    .default(8)
    .describe("Requests in flight towards this Harbor."),
  checks: z
    .object({
      ldap: z.boolean().default(false).describe("Report Harbor's LDAP ping result in the status."),
      jobService: z
        .boolean()
        .default(false)
        .describe("Report job-service pools, workers and queues in the status."),
    })
    .default({ ldap: false, jobService: false })
    .describe(
      "Optional extra checks at each connection check, shown in status and in the ChecksPassed condition (a failed check does not make the connection not Ready). Both need a Harbor user allowed to read them (a system administrator).",
    ),
};

const credentialsRef = {
  name: k8sName.describe("Secret holding the Harbor credentials."),
  usernameKey: z
    .string()
    .max(253)
    .regex(SECRET_KEY_PATTERN)
    .default("username")
    .describe("The Secret's key holding the Harbor user name. Default: username."),
  passwordKey: z
    .string()
    .max(253)
    .regex(SECRET_KEY_PATTERN)
    .default("password")
    .describe("The Secret's key holding the password (or a CLI secret for OIDC users). Default: password."),
};

export const HarborConnectionSpec = z.object({
  ...connectionSpecFields,
  credentialsSecretRef: z
    .object(credentialsRef)
    .describe("A Secret in this namespace with username and password."),
});
export type HarborConnectionSpec = z.output<typeof HarborConnectionSpec>;

export const ClusterHarborConnectionSpec = z.object({
  ...connectionSpecFields,
  credentialsSecretRef: z
    .object({ ...credentialsRef, namespace: k8sName.describe("Namespace of the Secret.") })
    .describe("A Secret with username and password."),
  allowedNamespaces: z
    .array(
      z
        .string()
        .min(1)
        .max(253)
        .regex(/^[a-z0-9*]([-a-z0-9.*]*[a-z0-9*])?$/),
    )
    .min(1)
    .max(256)
    .describe(
      'Namespaces whose resources may use this connection: names, or patterns with "*" (e.g. "team-*", "*").',
    ),
  tenancy: z
    .object({
      projects: z
        .array(
          z
            .string()
            .min(1)
            .max(255)
            .regex(/^([a-z0-9._*-]|\{namespace\})+$/),
        )
        .max(64)
        .default(["{namespace}", "{namespace}-*"])
        .describe(
          'Harbor project names each namespace may manage through this connection: names or patterns with "*", where {namespace} stands for the namespace\'s name. The default lets namespace team-a manage project team-a and projects team-a-*. "*" allows every project (also robot permissions on all projects and replication that reaches any project).',
        ),
      allowAdoption: z
        .boolean()
        .default(false)
        .describe(
          "Let resources adopt Harbor objects that exist already (creationPolicy Adopt or CreateOrAdopt). Off: a tenant can only manage what it created.",
        ),
      allowSystemRobots: z
        .boolean()
        .default(false)
        .describe("Let namespaces create system-level robots, which can hold permissions beyond projects."),
      allowSystemSettings: z
        .boolean()
        .default(false)
        .describe(
          "Let namespaces manage what a Harbor has once and every tenant shares: the garbage-collection, audit-log purge and scan-all schedules, the job queues, the system configuration, Harbor's users and the P2P preheat instances (HarborGarbageCollection, HarborAuditLogPurge, HarborScanAll, HarborJobService, HarborConfiguration, HarborUser, HarborPreheatInstance).",
        ),
    })
    .default({
      projects: ["{namespace}", "{namespace}-*"],
      allowAdoption: false,
      allowSystemRobots: false,
      allowSystemSettings: false,
    })
    .describe(
      "What each allowed namespace may do in this Harbor. Safe by default: projects named after the namespace, no adoption, no system robots, no Harbor-wide settings.",
    ),
});
export type ClusterHarborConnectionSpec = z.output<typeof ClusterHarborConnectionSpec>;

export const ConnectionStatus = z.object({
  observedGeneration: z.number().int().optional().describe("The metadata.generation this status describes."),
  conditions: z
    .array(ConditionSchema)
    .optional()
    .describe(
      "Ready (reason Connected, or why not: SecretNotFound, SecretInvalid, Unreachable, TLSError, BadCredentials, Forbidden, HarborError, InsecureHTTP), Stalled when only a change of the connection can help (InsecureHTTP), ChecksPassed with checks enabled, DeletionPending while a deleted connection waits for the resources that use it.",
    ),
  harborVersion: z.string().optional().describe("The version Harbor reports, e.g. v2.12.4."),
  authenticatedAs: z
    .string()
    .optional()
    .describe("The user the credentials log in as, as Harbor names it (none for a robot account)."),
  lastCheckTime: z
    .string()
    .optional()
    .describe(
      "When the operator last checked the connection (RFC 3339). A Ready connection is checked every drift interval; an unchanged result refreshes this time only now and then, to spare status writes.",
    ),
  credentialsSecret: z
    .object({
      namespace: z.string().describe("The Secret's namespace."),
      name: z.string().describe("The Secret's name."),
    })
    .optional()
    .describe(
      "The Secret the credentials are read from. It carries the finalizer harborconfig.io/connection-credentials while this connection exists, so it cannot go before the resources that need it.",
    ),
  ldap: z
    .object({
      success: z.boolean().describe("Whether Harbor reached its LDAP server with its configured settings."),
      message: z.string().optional().describe("Harbor's message when the ping failed."),
    })
    .optional()
    .describe("With checks.ldap: the result of Harbor's LDAP ping."),
  jobService: z
    .object({
      pools: z.number().int().describe("Job-service worker pools."),
      workers: z.number().int().describe("Workers across all pools."),
      busyWorkers: z.number().int().describe("Workers running a job now."),
      queues: z
        .array(
          z.object({
            jobType: z.string().describe("Harbor's job type, e.g. REPLICATION, GARBAGE_COLLECTION, WEBHOOK."),
            count: z.number().int().describe("Jobs waiting in the queue."),
            latency: z.number().int().describe("How long the oldest waiting job has waited, in seconds."),
            paused: z.boolean().describe("Whether the queue is paused in Harbor."),
          }),
        )
        .describe("One entry per job type Harbor queues."),
    })
    .optional()
    .describe("With checks.jobService: Harbor's job service at the last check."),
});
export type ConnectionStatus = z.output<typeof ConnectionStatus>;

/**
 * A plain http:// URL is taken only to loopback or with allowInsecureHTTP. The operator applies the
 * same rule to what was stored before it (insecureHttpRefusal, controllers/connection/mapping.ts).
 */
const specValidations: KindDefinition["specValidations"] = [
  {
    rule: `!self.url.startsWith('http://') || self.allowInsecureHTTP || self.url.${LOOPBACK_HTTP_CEL}`,
    message:
      "an http:// URL would send the credentials unencrypted: use https://, or set allowInsecureHTTP: true (loopback needs neither)",
    fieldPath: ".url",
  },
];

const columns: KindDefinition["columns"] = [
  { name: "URL", type: "string", jsonPath: ".spec.url" },
  { name: "Version", type: "string", jsonPath: ".status.harborVersion" },
];

export const harborConnection: KindDefinition = {
  kind: "HarborConnection",
  plural: "harborconnections",
  singular: "harborconnection",
  shortNames: ["hconn"],
  scope: "Namespaced",
  spec: HarborConnectionSpec,
  status: ConnectionStatus,
  specValidations,
  columns,
  description: "A Harbor instance and the credentials to manage it, for resources in this namespace.",
};

export const clusterHarborConnection: KindDefinition = {
  kind: "ClusterHarborConnection",
  plural: "clusterharborconnections",
  singular: "clusterharborconnection",
  shortNames: ["chconn"],
  scope: "Cluster",
  spec: ClusterHarborConnectionSpec,
  status: ConnectionStatus,
  specValidations,
  columns,
  description: "A Harbor instance and the credentials to manage it, for resources in the allowed namespaces.",
};
