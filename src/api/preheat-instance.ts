// HarborPreheatInstance: a P2P provider instance in Harbor (Distributions): a Dragonfly or Kraken
// service Harbor pushes images to before they are pulled, one Harbor-wide object.
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
  withRules,
} from "./common.ts";

/** Harbor's name rule for preheat instances and policies (upper case allowed, unlike projects). */
export const PREHEAT_NAME_PATTERN = "^[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*$";

export const PREHEAT_INSTANCE_NAME: HarborNameRule = {
  what: "preheat instance",
  pattern: PREHEAT_NAME_PATTERN,
  maxLength: 255,
  description: "letters and digits, with a single . _ or - between them, at most 255 characters",
};

export const PreheatVendor = z.enum(["dragonfly", "kraken"]);
export const PreheatAuthMode = z.enum(["NONE", "BASIC", "OAUTH"]);

export const HarborPreheatInstanceSpec = z.object({
  ...managedSpec,
  name: immutableName(PREHEAT_INSTANCE_NAME, NO_HIDDEN_CHARACTERS)
    .optional()
    .describe(
      "The instance's name in Harbor (letters and digits, with a single . _ or - between them). Defaults to metadata.name. Immutable.",
    ),
  description: freeText()
    .optional()
    .describe(
      "Free text Harbor shows with the instance, up to 1,024 characters. Unset: left as Harbor has it.",
    ),
  vendor: PreheatVendor.describe(
    "The provider: dragonfly or kraken. Immutable (Harbor refuses to change it).",
  ),
  endpoint: withRules(
    z
      .string()
      .max(512)
      .regex(/^https?:\/\/\S+$/),
    NO_USER_INFO,
    NO_HIDDEN_CHARACTERS,
  ).describe(
    'The provider\'s base URL as Harbor reaches it, e.g. "http://dragonfly-manager:8080" (Harbor asks <endpoint>/_ping, or /health for Kraken, to see it is up). At most one instance per endpoint in a Harbor.',
  ),
  auth: z
    .object({
      mode: PreheatAuthMode.default("NONE").describe(
        "NONE, BASIC (username and password) or OAUTH (a bearer token). BASIC and OAUTH need secretRef.",
      ),
      secretRef: z
        .object({
          name: k8sName.describe(
            "The Secret's name, in this namespace: keys username and password for BASIC, token for OAUTH.",
          ),
        })
        .optional()
        .describe(
          'A Secret in this namespace with the credential Harbor sends to the provider. It must opt in with the annotation harborconfig.io/usable-as naming preheat-credential (a connection\'s credentials Secret never can); otherwise Ready=False, reason SecretNotAllowed. A changed Secret is pushed to Harbor: at once when it is labelled harborconfig.io/watch: "true", otherwise at the next drift check.',
        ),
    })
    .meta({
      "x-kubernetes-validations": [
        {
          rule: "self.mode == 'NONE' ? !has(self.secretRef) : has(self.secretRef)",
          messageExpression: `self.mode == 'NONE' ? 'auth mode NONE takes no secretRef' : ${celFormat("auth mode %s needs secretRef: the Secret holding its credential", "self.mode")}`,
          fieldPath: ".secretRef",
        },
      ],
    })
    .refine((a) => (a.mode === "NONE") === (a.secretRef === undefined), {
      message: "auth mode NONE takes no secretRef; BASIC and OAUTH need one",
      path: ["secretRef"],
    })
    .default({ mode: "NONE" })
    .describe("How Harbor authenticates to the provider. Default: mode NONE."),
  enabled: z
    .boolean()
    .default(true)
    .describe(
      "Whether Harbor uses the instance. Harbor refuses to disable an instance a preheat policy uses (Ready=False, HarborConflict, naming it). Default true.",
    ),
  default: z
    .boolean()
    .default(false)
    .describe(
      "Make this Harbor's default preheat instance, and keep it so. One resource per Harbor may say true: a second one is Ready=False, reason Conflict, naming the holder. false leaves the default to others.",
    ),
  insecure: z
    .boolean()
    .default(false)
    .describe("Do not verify the provider's TLS certificate. Default false."),
});
export type HarborPreheatInstanceSpec = z.output<typeof HarborPreheatInstanceSpec>;

export const HarborPreheatInstanceStatus = z.object({
  ...managedStatus,
  isDefault: z
    .boolean()
    .optional()
    .describe("Whether this is Harbor's default preheat instance, as Harbor last said."),
  health: z
    .enum(["healthy", "unhealthy"])
    .optional()
    .describe(
      "Whether Harbor reached the provider when the operator last asked it to (every reconcile, and every --status-refresh-interval). unhealthy: Ready=False, reason ProviderUnreachable.",
    ),
  credentialsVersion: z
    .string()
    .optional()
    .describe("resourceVersion of the credential Secret last pushed to Harbor."),
});
export type HarborPreheatInstanceStatus = z.output<typeof HarborPreheatInstanceStatus>;

export const harborPreheatInstance: KindDefinition<HarborPreheatInstanceSpec, HarborPreheatInstanceStatus> = {
  kind: "HarborPreheatInstance",
  plural: "harborpreheatinstances",
  singular: "harborpreheatinstance",
  shortNames: ["hpi"],
  scope: "Namespaced",
  spec: HarborPreheatInstanceSpec,
  status: HarborPreheatInstanceStatus,
  harborName: PREHEAT_INSTANCE_NAME,
  specValidations: [
    optionalImmutable("name", ""),
    {
      rule: "self.vendor == oldSelf.vendor",
      messageExpression: celFormat(
        "vendor is immutable: Harbor never changes an instance's provider (it stays %s)",
        "oldSelf.vendor",
      ),
      fieldPath: ".vendor",
    },
  ],
  columns: [
    { name: "Vendor", type: "string", jsonPath: ".spec.vendor" },
    { name: "Default", type: "boolean", jsonPath: ".status.isDefault" },
    { name: "Health", type: "string", jsonPath: ".status.health" },
    { name: "Endpoint", type: "string", jsonPath: ".spec.endpoint", priority: 1 },
  ],
  description:
    "A P2P preheat provider instance in Harbor (Distributions): a Dragonfly or Kraken service Harbor preheats images to, optionally Harbor's default one, kept equal to this spec.",
};
