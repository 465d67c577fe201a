// HarborUserGroup: a user group Harbor grants project roles to — an LDAP group (by its DN), or a
// group an HTTP auth proxy or an OIDC provider names.
import { z } from "zod";
import {
  celFormat,
  celString,
  type HarborNameRule,
  type KindDefinition,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  optionalImmutable,
  type StringRule,
  TRIMMED_PATTERN,
  withRules,
} from "./common.ts";

export const USER_GROUP_NAME: HarborNameRule = {
  what: "user group",
  pattern: TRIMMED_PATTERN,
  maxLength: 255,
  description: "1 to 255 characters of any text, no surrounding whitespace",
};

export const USER_GROUP_TYPES = ["ldap", "http", "oidc"] as const;
export const UserGroupKind = z.enum(USER_GROUP_TYPES);
export type UserGroupKind = z.output<typeof UserGroupKind>;

/** An LDAP distinguished name: attribute=value pairs separated by commas (a value may escape one). */
const DN_PATTERN =
  "^\\s*[A-Za-z][A-Za-z0-9-]*=(?:[^,\\\\]|\\\\.)+(?:,\\s*[A-Za-z][A-Za-z0-9-]*=(?:[^,\\\\]|\\\\.)+)*\\s*$";

const DN_RULE: StringRule = {
  cel: `self.matches(${celString(DN_PATTERN)})`,
  message: 'must be an LDAP DN, e.g. "cn=developers,ou=groups,dc=example,dc=com"',
  test: (v) => new RegExp(DN_PATTERN).test(v),
};

/** An LDAP group's DN as a spec writes it. */
export const ldapDn = () => withRules(z.string().min(3).max(1024), DN_RULE, NO_HIDDEN_CHARACTERS);

/** How Harbor keys an LDAP group: its DN trimmed and lower-cased. */
export const canonicalDn = (dn: string) => dn.trim().toLowerCase();

/** A user group's name as Harbor takes it (free text). */
export const groupName = () =>
  withRules(
    z.string().min(1).max(USER_GROUP_NAME.maxLength).regex(new RegExp(TRIMMED_PATTERN)),
    NO_HIDDEN_CHARACTERS,
  );

export const HarborUserGroupSpec = z.object({
  ...managedSpec,
  type: UserGroupKind.describe(
    "ldap: a group of Harbor's LDAP directory, by its DN (ldapGroupDn); Harbor must run in LDAP auth mode. http: a group an HTTP auth proxy reports. oidc: a group an OIDC provider reports in its groups claim. Immutable.",
  ),
  name: groupName()
    .optional()
    .describe(
      "The group's name in Harbor (any text without surrounding whitespace, up to 255 characters). Defaults to metadata.name. For http and oidc groups it is what the proxy or the provider reports, so it is the group's identity and immutable; an LDAP group is known by its DN, and its name can change (Harbor renames it).",
    ),
  ldapGroupDn: ldapDn()
    .optional()
    .describe(
      "For type ldap (required there, refused otherwise): the group's DN in Harbor's LDAP directory, e.g. \"cn=developers,ou=groups,dc=example,dc=com\". Harbor stores it trimmed and lower-cased, and so the operator compares it. The directory must hold it: until Harbor's LDAP group search finds it the resource waits (reason LdapGroupNotFound). Immutable.",
    ),
});
export type HarborUserGroupSpec = z.output<typeof HarborUserGroupSpec>;

export const HarborUserGroupStatus = z.object({
  ...managedStatus,
  ldapGroupDn: z
    .string()
    .optional()
    .describe("The DN Harbor holds for an LDAP group (trimmed and lower-cased by Harbor)."),
});
export type HarborUserGroupStatus = z.output<typeof HarborUserGroupStatus>;

export const harborUserGroup: KindDefinition<HarborUserGroupSpec, HarborUserGroupStatus> = {
  kind: "HarborUserGroup",
  plural: "harborusergroups",
  singular: "harborusergroup",
  shortNames: ["hgroup"],
  scope: "Namespaced",
  spec: HarborUserGroupSpec,
  status: HarborUserGroupStatus,
  harborName: USER_GROUP_NAME,
  specValidations: [
    {
      rule: "self.type == oldSelf.type",
      message: "type is immutable",
      messageExpression: celFormat(
        'type is immutable: a user group keeps its kind; it stays "%s"',
        "oldSelf.type",
      ),
      fieldPath: ".type",
    },
    {
      rule: "self.type == 'ldap' ? has(self.ldapGroupDn) : !has(self.ldapGroupDn)",
      messageExpression: `self.type == 'ldap' ? ${celString("an ldap group needs ldapGroupDn: Harbor knows LDAP groups by their DN")} : ${celFormat("ldapGroupDn is only for type ldap, and this group has type %s", "self.type")}`,
      message: "ldapGroupDn is required for type ldap and refused for the other types",
      fieldPath: ".ldapGroupDn",
    },
    optionalImmutable("ldapGroupDn", ""),
    {
      rule: "self.type == 'ldap' || (has(self.name) == has(oldSelf.name) && (!has(self.name) || self.name == oldSelf.name))",
      message:
        "name is immutable for http and oidc groups: the proxy or the OIDC provider reports a group by its name, so another name is another group",
      fieldPath: ".name",
    },
  ],
  columns: [
    { name: "Type", type: "string", jsonPath: ".spec.type" },
    { name: "DN", type: "string", jsonPath: ".status.ldapGroupDn", priority: 1 },
  ],
  description:
    "A Harbor user group — an LDAP group by its DN, or an HTTP or OIDC group by its name — that HarborProjectMembers grant project roles to.",
};
