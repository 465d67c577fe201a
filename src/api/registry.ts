// HarborRegistry: a remote registry endpoint that replication policies and proxy-cache projects use.
import { z } from "zod";
import { RegistryCredentialType } from "../harbor/model/enums.ts";
import {
  CERTIFICATES,
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
  readableCertificates,
  SECRET_KEY_PATTERN,
  type StringRule,
  TRIMMED_PATTERN,
  withRules,
} from "./common.ts";

export const REGISTRY_NAME: HarborNameRule = {
  what: "registry",
  pattern: TRIMMED_PATTERN,
  maxLength: 64,
  description: "at most 64 characters, no surrounding whitespace",
};

/** A registry's own CA: PEM certificates, or "" for none. */
const CA_CERTIFICATE: StringRule = {
  cel: `self == '' || (${CERTIFICATES.cel})`,
  message: `must be "" (none) or ${CERTIFICATES.message.replace(/^must /, "")}`,
  test: (v) => v === "" || readableCertificates(v),
};

export const HarborRegistrySpec = z.object({
  ...managedSpec,
  name: immutableName(REGISTRY_NAME, NO_HIDDEN_CHARACTERS).optional(),
  type: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-zA-Z0-9-]+$/)
    .describe(
      "Provider type, e.g. docker-hub, harbor, docker-registry, github-ghcr. Checked against the types the Harbor behind the connection supports. Immutable once the registry exists in Harbor (status.harborId set): Harbor cannot change the type of an existing registry.",
    ),
  url: withRules(
    z
      .string()
      .max(2048)
      .regex(/^https?:\/\/\S+$/),
    NO_USER_INFO,
    NO_HIDDEN_CHARACTERS,
  ).describe(
    'The registry\'s URL, e.g. "https://registry-1.docker.io". Compared the way Harbor stores it: trailing "/", query and fragment do not count.',
  ),
  description: freeText()
    .optional()
    .describe(
      "Free text Harbor shows with the object, up to 1,024 characters. Unset: left as Harbor has it.",
    ),
  insecure: z.boolean().default(false).describe("Skip TLS verification of the remote registry."),
  caCertificate: withRules(z.string().max(65536), CA_CERTIFICATE)
    .optional()
    .describe(
      'PEM CA certificates Harbor trusts for the remote registry\'s TLS certificate instead of its system CAs; "" for none (Harbor 2.15 and later). Unset: left as Harbor has it.',
    ),
  credential: z
    .object({
      type: RegistryCredentialType.default("basic").describe(
        "basic: Harbor logs in with the access key as user name and the access secret as password. oauth: the access secret is a bearer token. Default basic.",
      ),
      secretRef: z
        .object({
          name: k8sName.describe("The Secret's name, in this namespace."),
          accessKeyKey: z
            .string()
            .min(1)
            .max(253)
            .regex(SECRET_KEY_PATTERN)
            .default("accessKey")
            .describe("Key of the access key (user name)."),
          accessSecretKey: z
            .string()
            .min(1)
            .max(253)
            .regex(SECRET_KEY_PATTERN)
            .default("accessSecret")
            .describe("Key of the access secret (password or token)."),
        })
        .describe(
          'A Secret in this namespace with the access key and secret. It must opt in with the annotation harborconfig.io/usable-as naming registry-credential (a connection\'s credentials Secret never can); otherwise Ready=False, reason SecretNotAllowed. Label the Secret harborconfig.io/watch: "true" to have a change pushed to Harbor at once; otherwise the next drift check finds it.',
        ),
    })
    .optional()
    .describe("Credentials for the remote registry; none for anonymous access."),
});
export type HarborRegistrySpec = z.output<typeof HarborRegistrySpec>;

export const HarborRegistryStatus = z.object({
  ...managedStatus,
  health: z.string().optional().describe("healthy or unhealthy, as Harbor last saw it."),
  credentialsVersion: z
    .string()
    .optional()
    .describe("resourceVersion of the credentials Secret last pushed to Harbor."),
});
export type HarborRegistryStatus = z.output<typeof HarborRegistryStatus>;

export const harborRegistry: KindDefinition<HarborRegistrySpec, HarborRegistryStatus> = {
  kind: "HarborRegistry",
  plural: "harborregistries",
  singular: "harborregistry",
  shortNames: ["hreg"],
  scope: "Namespaced",
  spec: HarborRegistrySpec,
  status: HarborRegistryStatus,
  harborName: REGISTRY_NAME,
  specValidations: [optionalImmutable("name", "")],
  rootValidations: [
    {
      // Harbor's registry update has no type: a change could only ever end Stalled. Until the
      // registry exists in Harbor (a type Harbor does not know, say), the type can be fixed.
      rule: "!has(oldSelf.status) || !has(oldSelf.status.harborId) || self.spec.type == oldSelf.spec.type",
      message: "spec.type is immutable once the registry exists in Harbor",
      messageExpression: celFormat(
        'type is immutable once the registry exists in Harbor (status.harborId %d): Harbor cannot change the type of an existing registry; it stays "%s" (for another type, create another HarborRegistry)',
        "oldSelf.status.harborId",
        "oldSelf.spec.type",
      ),
      fieldPath: ".spec.type",
    },
  ],
  columns: [
    { name: "Type", type: "string", jsonPath: ".spec.type" },
    { name: "Health", type: "string", jsonPath: ".status.health" },
  ],
  description:
    "A remote registry endpoint in Harbor (Administration > Registries), for replication policies and proxy-cache projects.",
};
