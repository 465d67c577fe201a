// HarborProjectMember: one user or user group with a role in one Harbor project.
import { z } from "zod";
import {
  type KindDefinition,
  LocalObjectReference,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  optionalImmutable,
  withRules,
} from "./common.ts";
import { groupName, ldapDn, UserGroupKind } from "./user-group.ts";

/** Harbor's built-in project roles, by the names its role table gives them. */
export const MEMBER_ROLES = ["projectAdmin", "maintainer", "developer", "guest", "limitedGuest"] as const;
export const MemberRole = z.enum(MEMBER_ROLES);
export type MemberRole = z.output<typeof MemberRole>;

/** Harbor refuses these characters in user names. */
const USERNAME_PATTERN = '^[^,"~#$%\\s]([^,"~#$%]*[^,"~#$%\\s])?$';

export const HarborProjectMemberSpec = z.object({
  ...managedSpec,
  projectRef: LocalObjectReference.describe("The HarborProject the member belongs to. Immutable."),
  role: MemberRole.describe(
    "The member's role in the project: projectAdmin, maintainer, developer, guest or limitedGuest (Harbor's built-in roles). A role changed in Harbor is put back.",
  ),
  user: z
    .object({
      name: withRules(
        z.string().min(1).max(255).regex(new RegExp(USERNAME_PATTERN)),
        NO_HIDDEN_CHARACTERS,
      ).describe(
        "The Harbor user name (exactly, letter case included). A user Harbor does not have yet is imported from Harbor's LDAP directory first (Harbor in LDAP auth mode); until the user exists the member waits (reason UserNotFound).",
      ),
    })
    .optional()
    .describe("The member is a user. Exactly one of user and group. Immutable."),
  group: z
    .object({
      groupRef: LocalObjectReference.optional().describe(
        "A HarborUserGroup in this namespace; the member waits until it is Ready (and a group that members use is not deleted).",
      ),
      type: UserGroupKind.optional().describe(
        "Instead of groupRef, the group's identity in Harbor, for a group this namespace does not manage: ldap (with ldapGroupDn), http or oidc (with name). The group must exist in Harbor; the operator never has Harbor create one as a side effect.",
      ),
      name: groupName()
        .optional()
        .describe("With type http or oidc: the group's name, as the proxy or the OIDC provider reports it."),
      ldapGroupDn: ldapDn()
        .optional()
        .describe("With type ldap: the group's DN (compared trimmed and lower-cased, as Harbor stores it)."),
    })
    .meta({
      "x-kubernetes-validations": [
        {
          rule: "has(self.groupRef) != has(self.type)",
          message: "set either groupRef (a HarborUserGroup) or type with the group's identity",
          fieldPath: ".groupRef",
        },
        {
          rule: "!has(self.groupRef) || (!has(self.name) && !has(self.ldapGroupDn))",
          message: "name and ldapGroupDn go with type, not with groupRef",
          fieldPath: ".groupRef",
          reason: "FieldValueForbidden",
        },
        {
          rule: "!has(self.type) || self.type != 'ldap' || (has(self.ldapGroupDn) && !has(self.name))",
          message: "an ldap group is named by ldapGroupDn (and no name)",
          fieldPath: ".ldapGroupDn",
        },
        {
          rule: "!has(self.type) || self.type == 'ldap' || (has(self.name) && !has(self.ldapGroupDn))",
          message: "an http or oidc group is named by name (and no ldapGroupDn)",
          fieldPath: ".name",
        },
      ],
    })
    .optional()
    .describe("The member is a user group. Exactly one of user and group. Immutable."),
});
export type HarborProjectMemberSpec = z.output<typeof HarborProjectMemberSpec>;

export const HarborProjectMemberStatus = z.object({
  ...managedStatus,
  projectId: z.number().int().optional().describe("The Harbor id of the project."),
  memberType: z
    .enum(["user", "group"])
    .optional()
    .describe("user or group, as Harbor holds the member (its entity_type u or g)."),
  memberName: z.string().optional().describe("The user's or the group's name as Harbor shows the member."),
  entityId: z.number().int().optional().describe("The Harbor id of the user or user group the member is."),
  role: z.string().optional().describe("The role Harbor holds for the member."),
});
export type HarborProjectMemberStatus = z.output<typeof HarborProjectMemberStatus>;

export const harborProjectMember: KindDefinition<HarborProjectMemberSpec, HarborProjectMemberStatus> = {
  kind: "HarborProjectMember",
  plural: "harborprojectmembers",
  singular: "harborprojectmember",
  shortNames: ["hmember"],
  scope: "Namespaced",
  spec: HarborProjectMemberSpec,
  status: HarborProjectMemberStatus,
  specValidations: [
    {
      rule: "has(self.user) != has(self.group)",
      message: "set exactly one of user and group",
      fieldPath: ".user",
    },
    {
      rule: "self.projectRef == oldSelf.projectRef",
      message: "projectRef is immutable: a member belongs to one project",
      fieldPath: ".projectRef",
    },
    optionalImmutable("user", ".name"),
    optionalImmutable("group"),
  ],
  columns: [
    { name: "Project", type: "string", jsonPath: ".spec.projectRef.name" },
    { name: "Type", type: "string", jsonPath: ".status.memberType" },
    { name: "Member", type: "string", jsonPath: ".status.memberName" },
    { name: "Role", type: "string", jsonPath: ".spec.role" },
  ],
  description:
    "A user or user group with a role in a Harbor project. Added by the resolved id of the user or group, never by a name that would make Harbor create a group as a side effect.",
};
