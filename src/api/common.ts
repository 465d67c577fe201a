// What every kind of harborconfig.io shares: the API group, the fields of a managed resource
// (connectionRef, creationPolicy, deletionPolicy), the status conventions, and references.
// These zod schemas are the single source of truth: the CRDs in crds/ are generated from them
// and the operator parses every object with them, so defaults and validation agree.
import { X509Certificate } from "node:crypto";
import { z } from "zod";

export const GROUP = "harborconfig.io";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/**
 * Added before the first create in Harbor, removed last. Connections carry it too: a connection
 * stays until every resource that uses it has finished deleting.
 */
export const FINALIZER = "harborconfig.io/finalizer";
/**
 * Set with FINALIZER by the admission policy (deploy/components/finalizer-at-admission), value
 * "admission": that finalizer came with the object, so it does not mark a create of the operator's
 * that may have happened, as the one the operator writes itself does.
 */
export const FINALIZER_SET_AT_ANNOTATION = "harborconfig.io/finalizer-set-at";
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
/**
 * `harborconfig.io/accept-pull-secrets-from: team-a, team-b` (or `*`) on a Namespace: the namespaces
 * whose HarborRobots may copy their pull secret into it (and list it in its ServiceAccounts'
 * imagePullSecrets). A robot's own namespace needs none. Namespaces are cluster-scoped, so a
 * tenant cannot grant this to itself: the namespace's owner (the cluster admin) does.
 */
export const ACCEPT_PULL_SECRETS_ANNOTATION = "harborconfig.io/accept-pull-secrets-from";
/** The uses `harborconfig.io/usable-as` can name (a comma-separated list). */
export const SECRET_USES = {
  /** A HarborWebhookPolicy target's authHeaderSecretRef. */
  webhookAuthHeader: "webhook-auth-header",
  /** A HarborRegistry's credential.secretRef. */
  registryCredential: "registry-credential",
  /** A scanner registration's credential (a kind yet to come). */
  scannerCredential: "scanner-credential",
  /** A HarborConfiguration's auth.ldap.bindPasswordSecretRef. */
  ldapBindPassword: "ldap-bind-password",
  /** A HarborConfiguration's auth.oidc.clientSecretSecretRef. */
  oidcClientSecret: "oidc-client-secret",
  /** A HarborUser's passwordSecretRef. */
  harborUserPassword: "harbor-user-password",
  /** A HarborPreheatInstance's credential (BASIC username and password, or OAUTH token). */
  preheatCredential: "preheat-credential",
  /** A HarborConnection's or ClusterHarborConnection's credentialsSecretRef: sent to its url. */
  harborConnection: "harbor-connection",
} as const;
export type SecretUse = (typeof SECRET_USES)[keyof typeof SECRET_USES];

/** Kubernetes object names (DNS subdomain). */
export const k8sName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);

export const LocalObjectReference = z.object({
  name: k8sName.describe(
    "Name of the referenced resource, in this namespace. Until it exists and is Ready, this resource waits (reason DependencyNotReady).",
  ),
});

/** Harbor's name rule for projects and robots: lower case, digits, single separators. */
export const HARBOR_NAME_PATTERN = "^[a-z0-9]+(?:[._-][a-z0-9]+)*$";
export const HARBOR_NAME_DESCRIPTION = "lower-case letters and digits, with a single . _ or - between them";

/** Free-text names: no leading or trailing whitespace. */
export const TRIMMED_PATTERN = "^\\S(.*\\S)?$";

export const ConnectionRef = z
  .object({
    kind: z
      .enum(["HarborConnection", "ClusterHarborConnection"])
      .default("HarborConnection")
      .describe("HarborConnection (same namespace) or ClusterHarborConnection (cluster-scoped)."),
    name: k8sName.describe("Name of the HarborConnection (in this namespace) or ClusterHarborConnection."),
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

export const ConditionSchema = z
  .object({
    type: z
      .string()
      .describe(
        "Ready (Harbor matches the spec), Synced (the last reconcile succeeded), Stalled (no retry can fix it: change the spec or what it points at), Reconciling (kstatus: neither Ready nor Stalled yet), or a kind's own condition such as DeletionPending or ChecksPassed.",
      ),
    status: z.enum(["True", "False", "Unknown"]).describe("True, False or Unknown."),
    reason: z
      .string()
      .describe(
        "A CamelCase word that says why, e.g. Synced, DependencyNotReady, HarborRejected; docs/troubleshooting.md lists every reason and what to do.",
      ),
    message: z
      .string()
      .describe(
        "What happened in words, often with Harbor's own message; control and invisible characters removed, at most 1,024 characters.",
      ),
    lastTransitionTime: z
      .string()
      .describe("When status last changed between True, False and Unknown (RFC 3339)."),
    observedGeneration: z
      .number()
      .int()
      .optional()
      .describe("The metadata.generation of the spec this condition was computed for."),
  })
  .describe("One condition, as the Kubernetes API conventions define it.");

export const DriftRecord = z
  .object({
    time: z.string().describe("When the operator last put Harbor back to the spec (RFC 3339)."),
    fields: z
      .array(z.string())
      .describe('The spec fields that had been changed in Harbor, e.g. "enabled", "targets[0].address".'),
  })
  .describe(
    "The last time the operator reverted changes made in Harbor outside this resource (Harbor's UI or API), and which fields. A spec change is an update, not a drift correction.",
  );

/** The status fields every managed kind has. */
export const managedStatus = {
  observedGeneration: z
    .number()
    .int()
    .optional()
    .describe(
      "The metadata.generation this status describes; while it is below metadata.generation, the latest spec change is not handled yet.",
    ),
  conditions: z
    .array(ConditionSchema)
    .optional()
    .describe(
      "Ready, Synced and, for errors no retry can fix, Stalled (plus Reconciling while converging). `kubectl wait --for=condition=Ready` waits for this resource.",
    ),
  harborName: z
    .string()
    .optional()
    .describe(
      "The name the object has in Harbor: spec.name, or metadata.name when spec.name is unset. Shown by `kubectl get -o wide`.",
    ),
  harborId: z
    .number()
    .int()
    .optional()
    .describe(
      "The id Harbor gave the object, recorded at creation or adoption. Absent while the object is not created yet.",
    ),
  harborUrl: z
    .string()
    .optional()
    .describe(
      "The Harbor harborId belongs to (its normalised URL). When the connection reaches another Harbor, the id is not used there: the object is looked up by name and creationPolicy decides.",
    ),
  lastDriftCorrection: DriftRecord.optional(),
};

/** `name` fields that default to metadata.name and may not change once set. */
export function immutableName(name: HarborNameRule, ...rules: StringRule[]) {
  let s = z.string().min(1).max(name.maxLength);
  if (name.pattern) s = s.regex(new RegExp(name.pattern));
  return withRules(
    s,
    {
      cel: "self == oldSelf",
      message: `${name.what} name is immutable`,
      messageExpression: celFormat(
        `the ${name.what} name is immutable (Harbor keeps objects by name): it stays "%s"`,
        "oldSelf",
      ),
    },
    ...rules,
  ).describe(`The ${name.what} name in Harbor (${name.description}). Defaults to metadata.name. Immutable.`);
}

/** A CEL rule of an x-kubernetes-validations list, as the apiserver takes it. */
export interface CelRule {
  rule: string;
  message?: string;
  /** CEL that builds the message, so that it can show the values at fault. */
  messageExpression?: string;
  /** Where the error points, relative to the schema the rule is on (e.g. ".trigger.type"). */
  fieldPath?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  optionalOldSelf?: boolean;
}

/**
 * A CEL rule for the whole spec that keeps an optional field immutable once set or absent. The
 * error points at the field and shows what it stays at: `shown` is the CEL path below the field
 * to a string that names it ("" for a string field, ".name" for a reference).
 */
export function optionalImmutable(field: string, shown?: string): CelRule {
  const base = `${field} is immutable`;
  const old = shown === undefined ? undefined : `oldSelf.${field}${shown}`;
  return {
    rule: `has(oldSelf.${field}) == has(self.${field}) && (!has(self.${field}) || self.${field} == oldSelf.${field})`,
    message: base,
    ...(old === undefined
      ? {}
      : {
          messageExpression: `has(oldSelf.${field}) ? ${celFormat(`${base}: it stays "%s"`, old)} : ${celString(`${base}: it was unset when the object was created, so it stays unset`)}`,
        }),
    fieldPath: `.${field}`,
  };
}

// -------------------------------------------------------------------------------------------
// Input rules. Each is written once and enforced twice: by the CRD at admission (a CEL rule whose
// message kubectl shows next to the field) and by the operator when it parses a spec, which catches
// objects stored before the rule existed (they end Stalled with reason InvalidSpec). A rule without
// CEL is one only the operator can judge.

export interface StringRule {
  /** CEL on the string (`self`); absent when the apiserver cannot express it. */
  cel?: string;
  message: string;
  /** CEL that builds the admission message, when the value at fault helps (and is no secret). */
  messageExpression?: string;
  /** The operator's check; absent for transition rules (they compare with the stored object). */
  test?: (value: string) => boolean;
}

/** The schema with the rules added: as x-kubernetes-validations for the CRD, as refinements for zod. */
export function withRules<T extends z.ZodType<string>>(schema: T, ...rules: StringRule[]): T {
  const cel = rules.flatMap((r) =>
    r.cel === undefined
      ? []
      : [
          {
            rule: r.cel,
            message: r.message,
            ...(r.messageExpression === undefined ? {} : { messageExpression: r.messageExpression }),
          },
        ],
  );
  const existing = (schema.meta()?.["x-kubernetes-validations"] as object[] | undefined) ?? [];
  let out = cel.length ? schema.meta({ "x-kubernetes-validations": [...existing, ...cel] }) : schema;
  for (const { test, message } of rules) if (test) out = out.refine(test, { message });
  return out;
}

/**
 * CEL that formats `text` with `args` (CEL expressions) in place of its %s and %d. The apiserver
 * estimates string concatenation with a field as too costly for a message; format() it accepts.
 */
export function celFormat(text: string, ...args: string[]): string {
  return `${celString(text)}.format([${args.join(", ")}])`;
}

/** A CEL string literal holding `text` exactly. */
export function celString(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

/**
 * A regex character class of code point ranges plus every Unicode format character (\p{Cf}: zero-
 * width spaces and joiners, bidi embeddings, overrides and isolates, the BOM, tag characters), for
 * RE2 (CEL) and for JavaScript.
 */
function hiddenClass(ranges: ReadonlyArray<readonly [number, number]>) {
  const source = (esc: (n: number) => string) =>
    `[${ranges.map(([a, b]) => (a === b ? esc(a) : `${esc(a)}-${esc(b)}`)).join("")}\\p{Cf}]`;
  return {
    re2: source((n) => `\\x{${n.toString(16)}}`),
    js: new RegExp(
      source((n) => `\\u{${n.toString(16)}}`),
      "u",
    ),
  };
}

function refusing(chars: ReturnType<typeof hiddenClass>, message: string): StringRule {
  return { cel: `!self.matches(${celString(chars.re2)})`, message, test: (v) => !chars.js.test(v) };
}

/** C0 and C1 controls, DEL, and the line and paragraph separators. */
const CONTROLS = [
  [0x00, 0x1f],
  [0x7f, 0x9f],
  [0x2028, 0x2029],
] as const;

/**
 * Names, ids and patterns: no control, format or invisible character. Harbor stores such names as
 * sent, where they look like another name (a zero-width space) or read backwards (a bidi override).
 */
export const NO_HIDDEN_CHARACTERS = refusing(
  hiddenClass(CONTROLS),
  "must not contain control characters or invisible formatting characters (zero-width, bidi)",
);

/** Descriptions: the same, except that they may hold tabs and line breaks. */
export const NO_HIDDEN_CHARACTERS_IN_TEXT = refusing(
  hiddenClass([
    [0x00, 0x08],
    [0x0b, 0x0c],
    [0x0e, 0x1f],
    [0x7f, 0x9f],
    [0x2028, 0x2029],
  ]),
  "must not contain control characters other than tab and line breaks, nor invisible formatting characters (zero-width, bidi)",
);

/** A free-text description that Harbor keeps as sent. */
export function freeText(maxLength = 1024) {
  return withRules(z.string().max(maxLength), NO_HIDDEN_CHARACTERS_IN_TEXT);
}

/** No `user:password@` before the host: credentials belong in a Secret, never in a URL. */
/**
 * A plain http:// URL to loopback (localhost, 127.x.x.x, [::1]): the only http:// URL that may carry
 * credentials without the spec saying so. As written by the user (what CEL sees too), any case.
 */
const LOOPBACK_HTTP_PATTERN =
  "^http://(localhost|127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}|\\[::1\\])(:[0-9]+)?([/?#].*)?$";
export const LOOPBACK_HTTP_URL = new RegExp(LOOPBACK_HTTP_PATTERN, "i");
/** The same as a CEL call on a string: `<string>.${LOOPBACK_HTTP_CEL}`. */
export const LOOPBACK_HTTP_CEL = `matches('(?i)${LOOPBACK_HTTP_PATTERN.replaceAll("\\", "\\\\")}')`;

/** URLs to which Harbor sends users' or its own secrets: https://, or http:// to loopback only. */
export const SECURE_WEB_URL: StringRule = {
  cel: `self.startsWith('https://') || self.${LOOPBACK_HTTP_CEL}`,
  message:
    "must be an https:// URL (http:// only to localhost or 127.x.x.x): Harbor sends passwords or client secrets there",
  test: (v) => v.startsWith("https://") || LOOPBACK_HTTP_URL.test(v),
};

/** An LDAP server: ldap:// or ldaps://, or a bare host[:port], which Harbor reads as ldap://. */
export const LDAP_URL: StringRule = {
  cel: "self.matches('^(ldaps?://)?[^/?#@:\\\\s]+(:[0-9]+)?/?$')",
  message:
    "must be ldaps://host[:port] or ldap://host[:port] (a bare host means ldap://), without user info or a path",
  test: (v) => /^(ldaps?:\/\/)?[^/?#@:\s]+(:[0-9]+)?\/?$/.test(v),
};

export const NO_USER_INFO: StringRule = {
  cel: "!self.matches('^[^:/?#]+://[^/?#]*@')",
  message: "must not contain user info (user:password@ before the host); credentials go in a Secret",
  test: (v) => !/^[^:/?#]+:\/\/[^/?#]*@/.test(v),
};

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Node ignores what is not a certificate in a CA list: the handshake would then fail unexplained. */
/** Whether the text holds PEM certificates, each one readable. */
export function readableCertificates(v: string): boolean {
  const blocks = v.match(PEM_CERTIFICATE) ?? [];
  return (
    blocks.length > 0 &&
    blocks.every((pem) => {
      try {
        return Boolean(new X509Certificate(pem));
      } catch {
        return false;
      }
    })
  );
}

export const CERTIFICATES: StringRule = {
  cel: "self.contains('-----BEGIN CERTIFICATE-----')",
  message:
    "must hold PEM certificates (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----), each one readable",
  test: readableCertificates,
};

/** Keys of a Secret's data, as Kubernetes allows them. */
export const SECRET_KEY_PATTERN = /^[-._a-zA-Z0-9]+$/;

/** How Harbor names an object of a kind, and how to say so. */
export interface HarborNameRule {
  what: string;
  /** Harbor's pattern for the name, when it has one (anchored). */
  pattern?: string;
  maxLength: number;
  /** The rule in words, for messages. */
  description: string;
}

/** Why Harbor would refuse `name` for this kind, or undefined when it would take it. */
export function harborNameProblem(rule: HarborNameRule, name: string): string | undefined {
  if (name.length <= rule.maxLength && (!rule.pattern || new RegExp(rule.pattern).test(name)))
    return undefined;
  return `"${name}" is not a valid Harbor ${rule.what} name (${rule.description})`;
}

/**
 * The CRD rule for a name that defaults to metadata.name: Kubernetes names allow what Harbor may
 * refuse ("a--b", or more characters). Checked on create only (metadata.name cannot change), so
 * that objects stored before the rule can still be updated and deleted.
 */
export function defaultNameValidation(rule: HarborNameRule) {
  const checks = [`size(self.metadata.name) <= ${rule.maxLength}`];
  if (rule.pattern) checks.push(`self.metadata.name.matches(${celString(rule.pattern)})`);
  return {
    rule: `oldSelf.hasValue() || has(self.spec.name) || (${checks.join(" && ")})`,
    optionalOldSelf: true,
    messageExpression: `${celString('name "')} + self.metadata.name + ${celString(`" is not a valid Harbor ${rule.what} name (${rule.description}); choose another metadata.name or set spec.name`)}`,
    fieldPath: ".metadata",
  };
}

/** How a kind looks to kubectl: names, printer columns, categories. */
export interface KindDefinition<Spec = unknown, Status = unknown> {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: "Namespaced" | "Cluster";
  /**
   * "run" for kinds whose resource is one Harbor execution (started once, followed to its end)
   * rather than a Harbor object kept equal to the spec. Default: managed.
   */
  lifecycle?: "run";
  /** The spec's schema, with its defaults: the CRD is generated from it, and the operator parses with it. */
  spec: z.ZodType<Spec>;
  status: z.ZodType<Status>;
  /**
   * Harbor's rule for the object's name when a Kubernetes name may break it: checked on a
   * defaulted metadata.name at admission, and by the operator on the name it uses.
   */
  harborName?: HarborNameRule;
  /** CEL rules on the spec as a whole (cross-field and transition rules); fieldPath names the field. */
  specValidations?: CelRule[];
  /** CEL rules on the whole object, for rules that read the stored status (fieldPath from the root). */
  rootValidations?: CelRule[];
  /**
   * The kind manages a setting a Harbor has once (its GC schedule, its job queues): no Harbor id or
   * name of its own (status.harborId is 0), so `kubectl get` shows neither column.
   */
  perHarbor?: boolean;
  /** Extra printer columns between READY/REASON and AGE. */
  columns?: Array<{ name: string; type: string; jsonPath: string; priority?: number; description?: string }>;
  description: string;
}
