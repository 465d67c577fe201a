// HarborUser: a local Harbor user (auth mode db_auth) with its profile, admin flag and password.
import { z } from "zod";
import {
  celFormat,
  type HarborNameRule,
  immutableName,
  type KindDefinition,
  k8sName,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  optionalImmutable,
  withRules,
} from "./common.ts";
import { secretKeyRef } from "./configuration.ts";

/** Harbor's user names: 1 to 255 characters without , ~ # $ % (and, here, no whitespace). */
export const USER_NAME: HarborNameRule = {
  what: "user",
  pattern: "^[^,~#$%\\s]+$",
  maxLength: 255,
  description: "1 to 255 characters without whitespace or any of , ~ # $ %",
};

/** Harbor's e-mail check, as its users handler applies it. */
export const EMAIL_PATTERN =
  '^(([^<>()\\[\\]\\\\.,;:\\s@"]+(\\.[^<>()\\[\\]\\\\.,;:\\s@"]+)*)|(".+"))@((\\[[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\])|(([a-zA-Z\\-0-9]+\\.)+[a-zA-Z]{2,}))$';

export const HarborUserSpec = z.object({
  ...managedSpec,
  name: immutableName(USER_NAME, NO_HIDDEN_CHARACTERS, {
    cel: "self != 'admin'",
    message: "admin is Harbor's built-in administrator: it is not managed as a HarborUser",
    messageExpression: celFormat(
      "%s is Harbor's built-in administrator: it is not managed as a HarborUser",
      "self",
    ),
    test: (v) => v !== "admin",
  })
    .optional()
    .describe(
      "The user name in Harbor (1 to 255 characters without whitespace or any of , ~ # $ %; not admin). Defaults to metadata.name. Immutable.",
    ),
  email: withRules(
    z.string().min(3).max(255).regex(new RegExp(EMAIL_PATTERN)),
    NO_HIDDEN_CHARACTERS,
  ).describe("The user's e-mail address; Harbor keeps it unique among users."),
  realname: withRules(
    z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^,~#$%]+$/),
    NO_HIDDEN_CHARACTERS,
  )
    .optional()
    .describe("The user's full name (1 to 255 characters, none of , ~ # $ %). Default: the user name."),
  comment: withRules(z.string().max(30), NO_HIDDEN_CHARACTERS)
    .optional()
    .describe("A note Harbor keeps with the user, up to 30 characters."),
  admin: z.boolean().default(false).describe("Whether the user is a Harbor system administrator."),
  passwordSecretRef: secretKeyRef("the user's password", "harbor-user-password", "password")
    .optional()
    .describe(
      "The Secret holding the user's password (Harbor: at least 8 characters with an upper-case letter, a lower-case letter and a digit). It must opt in with harborconfig.io/usable-as: harbor-user-password. A changed value is set as the new password. Unset: the operator generates a password and writes it into generatedSecretName.",
    ),
  managePassword: z
    .boolean()
    .default(true)
    .describe(
      "false: the password is left as Harbor has it — never set, never compared (an adopted user keeps its own; one created so gets a random password no one is told, until it is reset in Harbor). passwordSecretRef must then be unset. Default true.",
    ),
  generatedSecretName: k8sName
    .optional()
    .describe(
      'Without passwordSecretRef: the Secret the operator writes the generated credentials into (keys "username" and "password"), owned by this resource. Default "<metadata.name>-harbor-user". Deleting it makes the operator set a new password.',
    ),
});
export type HarborUserSpec = z.output<typeof HarborUserSpec>;

export const HarborUserStatus = z.object({
  ...managedStatus,
  admin: z.boolean().optional().describe("Whether Harbor holds the user as a system administrator."),
  passwordSecret: z
    .string()
    .optional()
    .describe("The Secret the user's password comes from or was written to."),
  passwordSecretVersion: z
    .string()
    .optional()
    .describe(
      "The resourceVersion of that Secret when its password was last set in Harbor: another version is set again. Nothing derived from the password.",
    ),
  passwordHash: z
    .string()
    .optional()
    .describe("Written by earlier releases (a hash of the password); removed at the next status write."),
});
export type HarborUserStatus = z.output<typeof HarborUserStatus>;

export const harborUser: KindDefinition<HarborUserSpec, HarborUserStatus> = {
  kind: "HarborUser",
  plural: "harborusers",
  singular: "harboruser",
  shortNames: ["huser"],
  scope: "Namespaced",
  spec: HarborUserSpec,
  status: HarborUserStatus,
  harborName: USER_NAME,
  specValidations: [
    optionalImmutable("name", ""),
    {
      rule: "self.managePassword || !has(self.passwordSecretRef)",
      message: "passwordSecretRef sets the password: it needs managePassword true",
      fieldPath: ".passwordSecretRef",
    },
  ],
  columns: [
    { name: "Email", type: "string", jsonPath: ".spec.email" },
    { name: "Admin", type: "boolean", jsonPath: ".status.admin" },
  ],
  description:
    "A local Harbor user (auth mode db_auth): e-mail, full name, comment, admin flag and a password from a Secret or generated into one. In other auth modes users arrive by login or LDAP import, and the resource says so (Stalled, NotDatabaseAuth).",
};
