// HarborScannerRegistration: a scanner adapter registered in Harbor (Interrogation Services >
// Scanners), optionally Harbor's default scanner.
import { z } from "zod";
import {
  celFormat,
  freeText,
  type HarborNameRule,
  immutableName,
  type KindDefinition,
  k8sName,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  NO_USER_INFO,
  optionalImmutable,
  SECRET_KEY_PATTERN,
  TRIMMED_PATTERN,
  withRules,
} from "./common.ts";

export const SCANNER_NAME: HarborNameRule = {
  what: "scanner registration",
  pattern: TRIMMED_PATTERN,
  maxLength: 128,
  description: "at most 128 characters, no surrounding whitespace",
};

/** The name Harbor reserves for its built-in (installer's) Trivy registration, which nobody may change. */
export const BUILT_IN_SCANNER = "Trivy";

/** How Harbor authenticates to the adapter; Harbor's own words, except None for its "". */
export const ScannerAuthType = z.enum(["None", "Basic", "Bearer", "APIKey"]);

export const HarborScannerRegistrationSpec = z.object({
  ...managedSpec,
  name: immutableName(SCANNER_NAME, NO_HIDDEN_CHARACTERS)
    .optional()
    .describe(
      "The registration's name in Harbor (at most 128 characters, no surrounding whitespace). Defaults to metadata.name. Immutable. \"Trivy\" names Harbor's built-in registration, which can only be adopted (creationPolicy: Adopt) and is read-only.",
    ),
  url: withRules(
    z
      .string()
      .max(256)
      .regex(/^https?:\/\/\S+$/),
    NO_USER_INFO,
    NO_HIDDEN_CHARACTERS,
  )
    .optional()
    .describe(
      'The adapter\'s base URL as Harbor reaches it, e.g. "http://harbor-scanner-trivy:8080" (Harbor asks <url>/api/v1/metadata before it registers it). Compared the way Harbor stores it: a trailing "/" and a query do not count. Required unless creationPolicy is Adopt; unset: left as Harbor has it.',
    ),
  description: freeText()
    .optional()
    .describe(
      "Free text Harbor shows with the registration, up to 1,024 characters. Unset: left as Harbor has it.",
    ),
  auth: z
    .object({
      type: ScannerAuthType.describe(
        "None, Basic (the credential is user:password), Bearer (a token) or APIKey (sent as X-ScannerAdapter-API-Key). Every type but None needs secretRef.",
      ),
      secretRef: z
        .object({
          name: k8sName.describe("The Secret's name, in this namespace."),
          key: z
            .string()
            .min(1)
            .max(253)
            .regex(SECRET_KEY_PATTERN)
            .default("credential")
            .describe('The key holding the credential (user:password for Basic). Default "credential".'),
        })
        .optional()
        .describe(
          'A Secret in this namespace with the credential Harbor sends to the adapter. It must opt in with the annotation harborconfig.io/usable-as naming scanner-credential (a connection\'s credentials Secret never can); otherwise Ready=False, reason SecretNotAllowed. Harbor never shows a stored credential, so it is pushed again whenever the Secret changes: at once when the Secret is labelled harborconfig.io/watch: "true", otherwise at the next drift check.',
        ),
    })
    .meta({
      "x-kubernetes-validations": [
        {
          rule: "self.type == 'None' ? !has(self.secretRef) : has(self.secretRef)",
          messageExpression: `self.type == 'None' ? 'auth type None takes no secretRef' : ${celFormat("auth type %s needs secretRef: the Secret holding its credential", "self.type")}`,
          fieldPath: ".secretRef",
        },
      ],
    })
    .optional()
    .describe("How Harbor authenticates to the adapter. Unset: left as Harbor has it."),
  skipCertVerify: z
    .boolean()
    .optional()
    .describe("Do not verify the adapter's TLS certificate. Unset: left as Harbor has it."),
  useInternalAddr: z
    .boolean()
    .optional()
    .describe(
      "The adapter pulls the artifacts to scan from Harbor's internal registry address. Unset: left as Harbor has it.",
    ),
  disabled: z
    .boolean()
    .optional()
    .describe(
      "Registered, but not used for scans. Harbor keeps its default scanner enabled. Unset: left as Harbor has it.",
    ),
  default: z
    .boolean()
    .default(false)
    .describe(
      "Make this registration Harbor's default scanner (projects without one of their own use it), and keep it so. One resource per Harbor may say true: a second one is Ready=False, reason Conflict, naming the holder. false leaves the default to others (Harbor makes its first registration the default, and cannot unset a default, only move it).",
    ),
});
export type HarborScannerRegistrationSpec = z.output<typeof HarborScannerRegistrationSpec>;

export const HarborScannerRegistrationStatus = z.object({
  ...managedStatus,
  harborId: z
    .string()
    .optional()
    .describe(
      "The registration's UUID in Harbor, recorded at creation or adoption. Absent while it is not created yet.",
    ),
  isDefault: z
    .boolean()
    .optional()
    .describe("Whether this registration is Harbor's default scanner, as Harbor last said."),
  builtIn: z
    .boolean()
    .optional()
    .describe("True for Harbor's built-in Trivy registration: read-only, and never deleted by the operator."),
  health: z
    .enum(["healthy", "unhealthy"])
    .optional()
    .describe(
      "Whether Harbor reached the adapter when the operator last asked for its metadata (every reconcile, and every --status-refresh-interval). unhealthy: Ready=False, reason ScannerUnreachable.",
    ),
  adapter: z
    .object({
      name: z.string().optional().describe('The scanner behind the adapter, e.g. "Trivy".'),
      vendor: z.string().optional().describe('Its vendor, e.g. "Aqua Security".'),
      version: z.string().optional().describe('Its version, e.g. "v0.56.1".'),
    })
    .optional()
    .describe("The scanner as the adapter describes itself in its metadata."),
  capabilities: z
    .array(z.string())
    .optional()
    .describe('What the adapter scans for, from its metadata, e.g. ["vulnerability", "sbom"].'),
  credentialsVersion: z
    .string()
    .optional()
    .describe("resourceVersion of the credential Secret last pushed to Harbor."),
});
export type HarborScannerRegistrationStatus = z.output<typeof HarborScannerRegistrationStatus>;

export const harborScannerRegistration: KindDefinition<
  HarborScannerRegistrationSpec,
  HarborScannerRegistrationStatus
> = {
  kind: "HarborScannerRegistration",
  plural: "harborscannerregistrations",
  singular: "harborscannerregistration",
  shortNames: ["hscan"],
  scope: "Namespaced",
  spec: HarborScannerRegistrationSpec,
  status: HarborScannerRegistrationStatus,
  harborName: SCANNER_NAME,
  specValidations: [
    optionalImmutable("name", ""),
    {
      rule: "has(self.url) || self.creationPolicy == 'Adopt'",
      message:
        "url is required unless creationPolicy is Adopt: Harbor registers a scanner at the adapter's URL",
      fieldPath: ".url",
      reason: "FieldValueRequired",
    },
    {
      rule: `!has(self.name) || self.name != '${BUILT_IN_SCANNER}' || self.creationPolicy == 'Adopt'`,
      messageExpression: celFormat(
        `Harbor reserves the name ${BUILT_IN_SCANNER} for its built-in scanner, which can only be adopted, read-only: set creationPolicy: Adopt (it is %s)`,
        "self.creationPolicy",
      ),
      fieldPath: ".creationPolicy",
    },
    {
      rule: "!self.default || !has(self.disabled) || !self.disabled",
      message: "a default scanner cannot be disabled: Harbor keeps its default scanner enabled",
      fieldPath: ".disabled",
      reason: "FieldValueForbidden",
    },
  ],
  columns: [
    { name: "Default", type: "boolean", jsonPath: ".status.isDefault" },
    { name: "Health", type: "string", jsonPath: ".status.health" },
    { name: "URL", type: "string", jsonPath: ".spec.url", priority: 1 },
    { name: "Adapter", type: "string", jsonPath: ".status.adapter.name", priority: 1 },
  ],
  description:
    "A scanner adapter registered in Harbor (Interrogation Services > Scanners), optionally Harbor's default scanner, kept equal to this spec.",
};
