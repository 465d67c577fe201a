// HarborConfiguration: a Harbor's system configuration (/configurations) and its system CVE
// allowlist, one per Harbor. Only the fields set in the spec are managed; the rest is left alone.
import { z } from "zod";
import {
  type KindDefinition,
  k8sName,
  LDAP_URL,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  NO_USER_INFO,
  SECRET_KEY_PATTERN,
  SECURE_WEB_URL,
  type StringRule,
  withRules,
} from "./common.ts";
import { STORAGE_LIMIT } from "./quantity.ts";

/** A key of a Secret in the resource's namespace. */
export function secretKeyRef(what: string, use: string, defaultKey: string) {
  return z
    .object({
      name: k8sName.describe("The Secret's name, in this namespace."),
      key: z
        .string()
        .min(1)
        .max(253)
        .regex(SECRET_KEY_PATTERN)
        .default(defaultKey)
        .describe(`The key holding ${what}. Default "${defaultKey}".`),
    })
    .describe(
      `The Secret holding ${what}. It must opt in with the annotation harborconfig.io/usable-as: ${use} (else SecretNotAllowed); a connection's credentials Secret never can. Written to Harbor when its value changes (Harbor never shows it back, so a change made in Harbor is not seen).`,
    );
}

const text = (max = 1024) => withRules(z.string().max(max), NO_HIDDEN_CHARACTERS);
const url = (...rules: StringRule[]) =>
  withRules(
    z.string().min(1).max(1024).regex(/^\S+$/),
    NO_HIDDEN_CHARACTERS,
    NO_USER_INFO,
    ...rules,
  ).describe("A URL.");

export const LdapScope = z
  .enum(["Base", "OneLevel", "Subtree"])
  .describe(
    "LDAP search scope: Base (the entry itself), OneLevel (its children) or Subtree (everything below).",
  );

export const AuthMode = z
  .enum(["db_auth", "ldap_auth", "uaa_auth", "http_auth", "oidc_auth"])
  .describe(
    "Harbor's authentication mode. Harbor refuses to change it once users other than admin exist (Stalled, AuthModeNotEditable).",
  );

const Ldap = z
  .object({
    url: url(LDAP_URL)
      .optional()
      .describe(
        'The LDAP server, e.g. "ldaps://ldap.example.com"; a bare host means ldap:// (Harbor: not empty).',
      ),
    searchDn: text()
      .optional()
      .describe("The DN Harbor binds as to search, e.g. cn=admin,dc=example,dc=com."),
    bindPasswordSecretRef: secretKeyRef(
      "the search DN's password",
      "ldap-bind-password",
      "password",
    ).optional(),
    baseDn: withRules(z.string().min(1).max(1024), NO_HIDDEN_CHARACTERS)
      .optional()
      .describe("Where users are searched, e.g. ou=people,dc=example,dc=com (Harbor: not empty)."),
    filter: text().optional().describe("An extra LDAP filter users must match, e.g. (objectClass=person)."),
    uid: withRules(z.string().min(1).max(256), NO_HIDDEN_CHARACTERS)
      .optional()
      .describe('The attribute that is the user name, e.g. "uid" or "sAMAccountName" (Harbor: not empty).'),
    scope: LdapScope.optional(),
    timeoutSeconds: z.number().int().min(1).max(3600).optional().describe("Connection timeout in seconds."),
    verifyCert: z.boolean().optional().describe("Verify the LDAP server's TLS certificate."),
    groupBaseDn: text().optional().describe("Where groups are searched."),
    groupSearchFilter: text().optional().describe("The filter groups must match."),
    groupAttributeName: text(256).optional().describe('The attribute that is a group\'s name, e.g. "cn".'),
    groupSearchScope: LdapScope.optional(),
    groupAdminDn: text().optional().describe("Members of this group are Harbor administrators."),
    groupMembershipAttribute: text(256)
      .optional()
      .describe('The user attribute listing the user\'s groups, e.g. "memberof".'),
  })
  .describe("LDAP settings (auth mode ldap_auth). Unset fields are left as Harbor has them.");

const Oidc = z
  .object({
    name: text(256).optional().describe("The provider's name Harbor shows on its login page."),
    endpoint: url(SECURE_WEB_URL).optional().describe("The provider's issuer URL (https://)."),
    clientId: text(256).optional().describe("The client id Harbor uses."),
    clientSecretSecretRef: secretKeyRef(
      "the OIDC client secret",
      "oidc-client-secret",
      "clientSecret",
    ).optional(),
    groupsClaim: text(256).optional().describe("The claim holding the user's groups."),
    adminGroup: text(256).optional().describe("Members of this group are Harbor administrators."),
    groupFilter: text().optional().describe("A regular expression groups must match to be used."),
    scope: text()
      .optional()
      .describe('The scopes Harbor asks for, comma-separated, e.g. "openid,offline_access".'),
    userClaim: text(256).optional().describe("The claim that is the user name."),
    verifyCert: z.boolean().optional().describe("Verify the provider's TLS certificate."),
    autoOnboard: z.boolean().optional().describe("Create users at first login without asking for a name."),
    logout: z
      .boolean()
      .optional()
      .describe("Logging out of Harbor also ends the session at the provider (Harbor 2.13 and later)."),
    extraRedirectParams: z
      .record(z.string(), z.string().max(1024))
      .optional()
      .describe("Extra query parameters of the redirect to the provider."),
  })
  .describe("OIDC settings (auth mode oidc_auth). Unset fields are left as Harbor has them.");

const Uaa = z
  .object({
    endpoint: url(SECURE_WEB_URL).optional().describe("The UAA server (https://)."),
    clientId: text(256).optional().describe("The client id Harbor uses."),
    verifyCert: z.boolean().optional().describe("Verify the UAA server's TLS certificate."),
  })
  .describe("UAA settings (auth mode uaa_auth). Unset fields are left as Harbor has them.");

const Http = z
  .object({
    endpoint: url(SECURE_WEB_URL)
      .optional()
      .describe("The authentication proxy's endpoint (https://): Harbor sends users' passwords there."),
    tokenReviewEndpoint: url(SECURE_WEB_URL)
      .optional()
      .describe(
        "Where Harbor sends a bearer token to have the proxy review it (Kubernetes TokenReview style).",
      ),
    adminGroups: z
      .array(
        withRules(
          z
            .string()
            .min(1)
            .max(256)
            .regex(/^[^,]+$/),
          NO_HIDDEN_CHARACTERS,
        ),
      )
      .max(256)
      .optional()
      .describe("Groups whose members are Harbor administrators."),
    adminUsernames: z
      .array(
        withRules(
          z
            .string()
            .min(1)
            .max(256)
            .regex(/^[^,]+$/),
          NO_HIDDEN_CHARACTERS,
        ),
      )
      .max(256)
      .optional()
      .describe("Users who are Harbor administrators."),
    verifyCert: z.boolean().optional().describe("Verify the proxy's TLS certificate."),
    skipSearch: z.boolean().optional().describe("Onboard users without searching them first."),
    serverCertificate: z.string().max(65536).optional().describe("The proxy's certificate (PEM)."),
  })
  .describe(
    "HTTP authentication proxy settings (auth mode http_auth). Unset fields are left as Harbor has them.",
  );

export const Banner = z
  .object({
    message: text(1024).min(1).describe("The text Harbor shows at the top of its pages."),
    type: z.enum(["success", "info", "warning", "danger"]).default("info").describe("How the banner looks."),
    closable: z.boolean().default(false).describe("Whether users may close the banner."),
    fromDate: z
      .string()
      .max(64)
      .optional()
      .describe('From when it shows, as Harbor\'s UI writes it ("MM/DD/YYYY").'),
    toDate: z.string().max(64).optional().describe('Until when it shows ("MM/DD/YYYY").'),
  })
  .describe(
    "The banner Harbor shows to every user. An empty banner clears it: set `message` to remove it, or delete the field to leave it alone.",
  );

export const HarborConfigurationSpec = z.object({
  ...managedSpec,
  auth: z
    .object({
      mode: AuthMode.optional(),
      ldap: Ldap.optional(),
      oidc: Oidc.optional(),
      uaa: Uaa.optional(),
      http: Http.optional(),
    })
    .optional()
    .describe("How users log in. Unset: left as Harbor has it."),
  robotNamePrefix: withRules(
    z
      .string()
      .min(2)
      .max(64)
      .regex(/^[^\s+]*\$$/),
    NO_HIDDEN_CHARACTERS,
  )
    .optional()
    .describe(
      'The prefix of every robot account\'s name, "robot$" by default; changing it renames every robot login. Here it must end in "$" and hold no "+" or whitespace: HarborRobot resources tell their robots\' names ("<prefix><name>", "<prefix><project>+<name>") by it.',
    ),
  robotTokenDurationDays: z
    .number()
    .int()
    .min(1)
    .max(9999999999)
    .optional()
    .describe("The default lifetime of new robot accounts, in days (Harbor: positive, at most ten digits)."),
  tokenExpirationMinutes: z
    .number()
    .int()
    .min(1)
    .max(9999999999)
    .optional()
    .describe("How long a registry token lasts, in minutes (Harbor: positive, at most ten digits)."),
  projectCreationRestriction: z
    .enum(["everyone", "adminonly"])
    .optional()
    .describe("Who may create projects: everyone, or administrators only (adminonly)."),
  readOnly: z.boolean().optional().describe("Read-only mode: no push, no delete of artifacts."),
  storagePerProject: withRules(z.string().max(64), STORAGE_LIMIT)
    .optional()
    .describe('The storage quota new projects get, as a quantity ("10Gi") or "unlimited".'),
  auditLog: z
    .object({
      forwardEndpoint: withRules(z.string().max(1024).regex(/^\S*$/), NO_HIDDEN_CHARACTERS)
        .optional()
        .describe(
          'Where Harbor forwards audit logs (syslog, "host:port"); "" stops forwarding. Harbor checks that it answers.',
        ),
      skipDatabase: z
        .boolean()
        .optional()
        .describe("Keep audit logs out of Harbor's database (only with a forwardEndpoint)."),
      disabledEventTypes: z
        .array(
          z
            .string()
            .min(1)
            .max(64)
            .regex(/^[a-z][a-z_]*$/),
        )
        .max(64)
        .meta({ "x-kubernetes-list-type": "set" })
        .optional()
        .describe(
          'Event types Harbor does not record, by the names GET /auditlog-exts/events lists, e.g. "pull_artifact", "login_user"; [] records every type (Harbor 2.13 and later; Harbor does not check the names).',
        ),
    })
    .optional()
    .describe("Audit-log forwarding. Unset: left as Harbor has it."),
  banner: Banner.optional(),
  cveAllowlist: z
    .object({
      items: z
        .array(withRules(z.string().min(1).max(64).regex(/^\S+$/), NO_HIDDEN_CHARACTERS))
        .max(1024)
        .default([])
        .meta({ "x-kubernetes-list-type": "set" })
        .describe("CVE ids, e.g. CVE-2024-1234; each at most once."),
      expiresAt: z.iso
        .datetime()
        .optional()
        .describe("When the allowlist stops applying (RFC 3339). Unset: never."),
    })
    .optional()
    .describe(
      "The system CVE allowlist, which projects use unless they keep their own. Unset: left as Harbor has it.",
    ),
});
export type HarborConfigurationSpec = z.output<typeof HarborConfigurationSpec>;

export const HarborConfigurationStatus = z.object({
  ...managedStatus,
  authMode: z.string().optional().describe("Harbor's authentication mode at the last look."),
  authModeEditable: z
    .boolean()
    .optional()
    .describe("Whether Harbor would let the auth mode change (only while no user but admin exists)."),
  robotNamePrefix: z.string().optional().describe("The robot name prefix Harbor uses now."),
  readOnly: z.boolean().optional().describe("Whether Harbor is in read-only mode."),
  writtenSecrets: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      "For each Secret-held setting written to Harbor (ldapBindPassword, oidcClientSecret), the resourceVersion of the Secret it was written from: another version is written again. Nothing derived from the value.",
    ),
});
export type HarborConfigurationStatus = z.output<typeof HarborConfigurationStatus>;

export const harborConfiguration: KindDefinition<HarborConfigurationSpec, HarborConfigurationStatus> = {
  kind: "HarborConfiguration",
  plural: "harborconfigurations",
  singular: "harborconfiguration",
  shortNames: ["hconfig"],
  scope: "Namespaced",
  perHarbor: true,
  spec: HarborConfigurationSpec,
  status: HarborConfigurationStatus,
  specValidations: [
    {
      rule: "!has(self.auditLog) || !has(self.auditLog.skipDatabase) || !self.auditLog.skipDatabase || (has(self.auditLog.forwardEndpoint) && self.auditLog.forwardEndpoint != '')",
      message: "auditLog.skipDatabase needs auditLog.forwardEndpoint: Harbor keeps audit logs somewhere",
      fieldPath: ".auditLog.skipDatabase",
    },
  ],
  columns: [
    { name: "Auth", type: "string", jsonPath: ".status.authMode" },
    { name: "Robot Prefix", type: "string", jsonPath: ".status.robotNamePrefix" },
    { name: "Read Only", type: "boolean", jsonPath: ".status.readOnly", priority: 1 },
  ],
  description:
    "A Harbor's system configuration: authentication (LDAP, OIDC, UAA, HTTP), robot, token, project-creation, quota, audit-log and banner settings, and the system CVE allowlist. Only the fields set are managed. One per Harbor (a second resource for the same Harbor gets Conflict).",
};
