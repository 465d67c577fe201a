// What every kind of harborconfig.io shares: the API group, the fields of a managed resource
// (connectionRef, creationPolicy, deletionPolicy), the status conventions, and references.
// These zod schemas are the single source of truth: the CRDs in crds/ are generated from them
// and the operator parses every object with them, so defaults and validation agree.
import { z } from "zod";

export const GROUP = "harborconfig.io";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/**
 * Added before the first create in Harbor, removed last. Connections carry it too: a connection
 * stays until every resource that uses it has finished deleting.
 */
export const FINALIZER = "harborconfig.io/finalizer";
/** On a connection's credentials Secret while a connection reads it: it goes after the connection. */
export const CREDENTIALS_FINALIZER = "harborconfig.io/connection-credentials";
/** `harborconfig.io/paused: "true"` stops all Harbor calls for the resource until removed. */
export const PAUSED_ANNOTATION = "harborconfig.io/paused";
/** Labels on objects the operator writes (Secrets, copies) so it can find and clean them up. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "harbor-config-operator";
/**
 * `harborconfig.io/watch: "true"` puts a Secret under the operator's watch: its own Secrets carry it,
 * and users add it to credential Secrets whose changes should reach Harbor at once.
 */
export const WATCH_LABEL = "harborconfig.io/watch";
/**
 * `harborconfig.io/usable-as: webhook-auth-header,registry-credential` on a Secret: the uses for
 * which the operator may send the Secret's value to a place the resource names (a webhook target,
 * a remote registry, a scanner). A Secret without the use is refused (Ready=False, reason
 * SecretNotAllowed), so a resource cannot have Harbor send any Secret of its namespace to an address
 * of its choosing; the credentials Secret of a connection is refused for every use, annotated or not.
 */
export const USABLE_AS_ANNOTATION = "harborconfig.io/usable-as";
/** The uses `harborconfig.io/usable-as` can name (a comma-separated list). */
export const SECRET_USES = {
  /** A HarborWebhookPolicy target's authHeaderSecretRef. */
  webhookAuthHeader: "webhook-auth-header",
  /** A HarborRegistry's credential.secretRef. */
  registryCredential: "registry-credential",
  /** A scanner registration's credential (a kind yet to come). */
  scannerCredential: "scanner-credential",
} as const;
export type SecretUse = (typeof SECRET_USES)[keyof typeof SECRET_USES];

/** Kubernetes object names (DNS subdomain). */
export const k8sName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);

export const LocalObjectReference = z.object({
  name: k8sName.describe("Name of the referenced object in the same namespace."),
});

/** Harbor's name rule for projects and robots: lower case, digits, single separators. */
export const HARBOR_NAME_PATTERN = "^[a-z0-9]+(?:[._-][a-z0-9]+)*$";

export const ConnectionRef = z
  .object({
    kind: z
      .enum(["HarborConnection", "ClusterHarborConnection"])
      .default("HarborConnection")
      .describe("HarborConnection (same namespace) or ClusterHarborConnection (cluster-scoped)."),
    name: k8sName.describe("Name of the connection."),
  })
  .describe("Which Harbor this resource is managed in.");

export const CreationPolicy = z
  .enum(["Create", "Adopt", "CreateOrAdopt"])
  .default("Create")
  .describe(
    "Create: create the Harbor object and refuse one that already exists. Adopt: manage an existing object and never create it. CreateOrAdopt: adopt it when it exists, create it otherwise.",
  );

export const DeletionPolicy = z
  .enum(["Delete", "Orphan"])
  .default("Delete")
  .describe("Delete: delete the Harbor object with this resource. Orphan: leave it in Harbor.");

/** The spec fields every managed kind has. */
export const managedSpec = {
  connectionRef: ConnectionRef,
  creationPolicy: CreationPolicy,
  deletionPolicy: DeletionPolicy,
};

export const ConditionSchema = z.object({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string(),
  message: z.string(),
  lastTransitionTime: z.string(),
  observedGeneration: z.number().int().optional(),
});

export const DriftRecord = z
  .object({
    time: z.string().describe("When the operator last put Harbor back to the spec."),
    fields: z.array(z.string()).describe("The fields that had drifted."),
  })
  .describe("The last correction of changes made in Harbor outside this resource.");

/** The status fields every managed kind has. */
export const managedStatus = {
  observedGeneration: z.number().int().optional().describe("The generation the status describes."),
  conditions: z
    .array(ConditionSchema)
    .optional()
    .describe("Ready, Synced and, for errors no retry can fix, Stalled."),
  harborId: z.number().int().optional().describe("The id of the Harbor object."),
  harborUrl: z
    .string()
    .optional()
    .describe(
      "The Harbor harborId belongs to (its normalised URL). When the connection reaches another Harbor, the id is not used there: the object is looked up by name and creationPolicy decides.",
    ),
  lastDriftCorrection: DriftRecord.optional(),
};

/** `name` fields that default to metadata.name and may not change once set. */
export function immutableName(pattern: string, maxLength: number, what: string) {
  return z
    .string()
    .min(1)
    .max(maxLength)
    .regex(new RegExp(pattern))
    .meta({ "x-kubernetes-validations": [{ rule: "self == oldSelf", message: `${what} name is immutable` }] })
    .describe(`The ${what} name in Harbor. Defaults to metadata.name. Immutable.`);
}

/** A CEL rule for the whole spec that keeps an optional field immutable once set or absent. */
export function optionalImmutable(field: string): { rule: string; message: string } {
  return {
    rule: `has(oldSelf.${field}) == has(self.${field}) && (!has(self.${field}) || self.${field} == oldSelf.${field})`,
    message: `${field} is immutable`,
  };
}

/** How a kind looks to kubectl: names, printer columns, categories. */
export interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: "Namespaced" | "Cluster";
  spec: z.ZodType;
  status: z.ZodType;
  /** CEL rules on the spec as a whole (cross-field and transition rules). */
  specValidations?: Array<{ rule: string; message: string }>;
  /** Extra printer columns between READY/REASON and AGE. */
  columns?: Array<{ name: string; type: string; jsonPath: string; priority?: number; description?: string }>;
  description: string;
}
