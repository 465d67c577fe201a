// HarborProject: a Harbor project and its settings.
import { z } from "zod";
import { Severity } from "../harbor/model/enums.ts";
import {
  HARBOR_NAME_DESCRIPTION,
  HARBOR_NAME_PATTERN,
  type HarborNameRule,
  immutableName,
  type KindDefinition,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  optionalImmutable,
  withRules,
} from "./common.ts";
import { STORAGE_LIMIT } from "./quantity.ts";

export const PROJECT_NAME: HarborNameRule = {
  what: "project",
  pattern: HARBOR_NAME_PATTERN,
  maxLength: 255,
  description: HARBOR_NAME_DESCRIPTION,
};

export const HarborProjectSpec = z.object({
  ...managedSpec,
  name: immutableName(PROJECT_NAME).optional(),
  public: z.boolean().default(false).describe("Anyone may pull from a public project."),
  autoScan: z.boolean().optional().describe("Scan images on push. Unset: left as Harbor has it."),
  severity: Severity.optional().describe("With preventVulnerable: the lowest severity that blocks pulls."),
  preventVulnerable: z
    .boolean()
    .optional()
    .describe("Block pulls of images with vulnerabilities of `severity` or higher."),
  contentTrust: z.boolean().optional().describe("Allow only signed images (Notary) to be pulled."),
  contentTrustCosign: z.boolean().optional().describe("Allow only images signed with cosign to be pulled."),
  autoSbomGeneration: z.boolean().optional().describe("Generate an SBOM on push (Harbor 2.11 and later)."),
  webhookAllowPrivateIP: z
    .boolean()
    .optional()
    .describe(
      "Let the project's webhooks deliver to private addresses (loopback, RFC 1918, link-local). Harbor 2.13.6, 2.14.5 and 2.15.3 and later refuse such targets unless this is true; earlier releases deliver anywhere, so there only true can be held. Unset: left as Harbor has it.",
    ),
  reuseSystemCveAllowlist: z
    .boolean()
    .optional()
    .describe("Use the system CVE allowlist instead of the project's own cveAllowlist."),
  cveAllowlist: z
    .object({
      items: z
        // Harbor refuses a list with an id twice.
        .array(withRules(z.string().max(64).regex(/^\S+$/), NO_HIDDEN_CHARACTERS))
        .max(1024)
        .default([])
        .meta({ "x-kubernetes-list-type": "set" })
        .describe("CVE ids, e.g. CVE-2024-1234; each at most once."),
      expiresAt: z.iso.datetime().optional().describe("When the allowlist stops applying (RFC 3339)."),
    })
    .optional()
    .describe("The project's own CVE allowlist. Unset: left as Harbor has it."),
  storageLimit: withRules(z.string().max(64), STORAGE_LIMIT)
    .optional()
    .describe(
      'Storage quota as a quantity of whole bytes from 1 to 1Pi ("10Gi"), or "unlimited". Kept in the project\'s Harbor quota: set at creation, changed when the spec changes, put back when changed in Harbor. Unset: left as Harbor has it.',
    ),
  proxyCache: z
    .object({
      registryRef: LocalObjectReference.describe("The HarborRegistry to cache."),
      speedKbps: z
        .number()
        .int()
        .min(-1)
        .max(2147483647)
        .optional()
        .describe("Bandwidth limit for pulls from upstream in KB/s; -1 unlimited."),
      maxUpstreamConnections: z
        .number()
        .int()
        .min(-1)
        .max(2147483647)
        .optional()
        .describe(
          "At most this many connections per artifact to the upstream registry; -1 no limit (Harbor 2.14.1 and later). Unset: left as Harbor has it.",
        ),
      localOnNotFound: z
        .boolean()
        .optional()
        .describe(
          "Serve an image from the cache when the upstream registry no longer has it (Harbor 2.15.1 and later). Unset: left as Harbor has it.",
        ),
    })
    .optional()
    .describe(
      "Make the project a pull-through cache of a registry. Whether it is one, and of which registry, Harbor sets at creation only (immutable); the other settings may change.",
    ),
  scanner: z
    .object({
      registrationRef: LocalObjectReference.optional().describe(
        "A HarborScannerRegistration of this namespace (through the same connection): the project's own scanner.",
      ),
      systemDefault: z
        .boolean()
        .optional()
        .describe(
          "true: the project scans with Harbor's default scanner, whichever registration that is, and follows it when it changes.",
        ),
    })
    .meta({
      "x-kubernetes-validations": [
        {
          rule: "has(self.registrationRef) ? !has(self.systemDefault) : (has(self.systemDefault) && self.systemDefault)",
          message: "scanner takes exactly one of registrationRef or systemDefault: true",
        },
      ],
    })
    .optional()
    .describe(
      "Which scanner scans the project's artifacts. Unset: left as Harbor has it (status.scanner is then not shown).",
    ),
});
export type HarborProjectSpec = z.output<typeof HarborProjectSpec>;

export const HarborProjectStatus = z.object({
  ...managedStatus,
  owner: z.string().optional().describe("The Harbor user that owns the project."),
  repositoryCount: z
    .number()
    .int()
    .optional()
    .describe("Repositories in the project; a project that holds any is not deleted (DeletionBlocked)."),
  quota: z
    .object({
      hard: z.string().optional().describe('Storage limit as a quantity, or "unlimited".'),
      used: z.string().optional().describe("Storage used, as a quantity."),
    })
    .optional()
    .describe("The project's storage quota as Harbor reports it."),
  deletable: z.boolean().optional().describe("Whether Harbor would delete the project now."),
  scanner: z
    .object({
      name: z.string().optional().describe("The registration's name in Harbor."),
      uuid: z.string().optional().describe("The registration's UUID in Harbor."),
      inherited: z
        .boolean()
        .describe(
          "True when it is Harbor's default scanner, which a project without a scanner of its own uses.",
        ),
    })
    .optional()
    .describe(
      "The scanner the project scans with, as Harbor answers for it (its own, else Harbor's default); shown when spec.scanner is set.",
    ),
});
export type HarborProjectStatus = z.output<typeof HarborProjectStatus>;

export const harborProject: KindDefinition<HarborProjectSpec, HarborProjectStatus> = {
  kind: "HarborProject",
  plural: "harborprojects",
  singular: "harborproject",
  shortNames: ["hproj"],
  scope: "Namespaced",
  spec: HarborProjectSpec,
  status: HarborProjectStatus,
  harborName: PROJECT_NAME,
  specValidations: [
    optionalImmutable("name", ""),
    {
      rule: "has(self.proxyCache) == has(oldSelf.proxyCache) && (!has(self.proxyCache) || self.proxyCache.registryRef == oldSelf.proxyCache.registryRef)",
      message:
        "proxyCache and proxyCache.registryRef are immutable: Harbor makes a project a proxy cache, of one registry, only when it creates it",
      fieldPath: ".proxyCache",
    },
    {
      rule: "!has(self.proxyCache) || !has(self.contentTrust) || !self.contentTrust",
      message: "contentTrust cannot be true on a proxy-cache project: Harbor ignores content trust there",
      fieldPath: ".contentTrust",
      reason: "FieldValueForbidden",
    },
    {
      rule: "!has(self.preventVulnerable) || !self.preventVulnerable || has(self.severity)",
      message: "preventVulnerable needs a severity: the lowest one that blocks pulls",
      fieldPath: ".severity",
      reason: "FieldValueRequired",
    },
  ],
  columns: [{ name: "Repos", type: "integer", jsonPath: ".status.repositoryCount", priority: 1 }],
  description:
    "A Harbor project and its settings (visibility, scanning, CVE allowlist, storage quota, proxy cache), kept equal to this spec.",
};
