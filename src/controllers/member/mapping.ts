// HarborProjectMember's pure mapping: who the member is, the role Harbor holds against the spec's,
// status, and which members use a HarborUserGroup.
import {
  type HarborProjectMemberSpec,
  type HarborProjectMemberStatus,
  MEMBER_ROLES,
  type MemberRole,
} from "../../api/member.ts";
import { canonicalDn } from "../../api/user-group.ts";
import { type ProjectMember, ProjectRole, roleName } from "../../harbor/members.ts";
import type { UserGroup } from "../../harbor/user-group.ts";
import type { ManagedObject } from "../../runtime/external-client.ts";
import type { UnnamedSpecFields } from "../shared/export.ts";
import {
  type GroupIdentity,
  identityKey,
  identityOfGroup,
  identityOfResource,
} from "../user-group/mapping.ts";

/** A member Harbor holds, with its id. */
export type ObservedMember = ProjectMember & { id: number };

/** Who the member is, as far as it is known without asking Harbor. */
export type Entity =
  | { type: "u"; name: string }
  /**
   * A group: its Harbor id once known (a HarborUserGroup's status, or recorded in status), and its
   * identity if inline; `lookedUp` once this reconcile has found the inline group in Harbor (a
   * recorded id may name a group since deleted and created again).
   */
  | { type: "g"; id?: number; name?: string; inline?: GroupIdentity; lookedUp?: boolean };

export const roleId = (role: MemberRole): number => ProjectRole[role];

/** The inline group identity of a spec (type with name or DN), if it names one. */
export function inlineGroup(spec: HarborProjectMemberSpec): GroupIdentity | undefined {
  const g = spec.group;
  if (!g?.type) return undefined;
  return g.type === "ldap"
    ? { type: "ldap", dn: canonicalDn(g.ldapGroupDn ?? "") }
    : { type: g.type, name: g.name ?? "" };
}

/** What a message calls the member: `user "alice"`, `HarborUserGroup devs`, `ldap group "cn=…"`. */
export function describeMember(spec: HarborProjectMemberSpec): string {
  if (spec.user) return `user "${spec.user.name}"`;
  if (spec.group?.groupRef) return `HarborUserGroup ${spec.group.groupRef.name}`;
  const inline = inlineGroup(spec);
  if (!inline) return "the member";
  return inline.type === "ldap" ? `ldap group "${inline.dn}"` : `${inline.type} group "${inline.name}"`;
}

/** Whether Harbor's member is this entity. */
export function isEntity(entity: Entity, observed: ProjectMember): boolean {
  if (observed.entity_type !== entity.type) return false;
  if (entity.type === "u") return observed.entity_name === entity.name;
  return entity.id !== undefined && observed.entity_id === entity.id;
}

export function diff(spec: HarborProjectMemberSpec, observed: ProjectMember): string[] {
  return observed.role_id === roleId(spec.role) ? [] : ["role"];
}

/** The member after Harbor created it as asked (Harbor stores it as sent). */
export function created(
  id: number,
  projectId: number,
  entity: { type: "u" | "g"; id: number; name: string },
  role: MemberRole,
): ObservedMember {
  return {
    id,
    project_id: projectId,
    entity_name: entity.name,
    entity_id: entity.id,
    entity_type: entity.type,
    role_id: roleId(role),
    role_name: role,
  };
}

export const withRole = (current: ObservedMember, role: MemberRole): ObservedMember => ({
  ...current,
  role_id: roleId(role),
  role_name: role,
});

export function status(projectId: number, observed: ProjectMember): Partial<HarborProjectMemberStatus> {
  return {
    projectId,
    memberType: observed.entity_type === "u" ? "user" : "group",
    memberName: observed.entity_name,
    entityId: observed.entity_id,
    role: observed.role_name ?? (observed.role_id === undefined ? undefined : roleName(observed.role_id)),
  };
}

/**
 * Whether a member (its spec and namespace) grants this HarborUserGroup: by groupRef in the same
 * namespace, or inline by the group's identity (in any namespace). For the kind wiring and for the
 * group's deletion check.
 */
export function grants(
  spec: Partial<HarborProjectMemberSpec>,
  namespace: string,
  group: ManagedObject,
): boolean {
  const g = spec.group;
  if (!g) return false;
  if (g.groupRef) return namespace === group.metadata.namespace && g.groupRef.name === group.metadata.name;
  const inline = inlineGroup(spec as HarborProjectMemberSpec);
  const target = identityOfResource(group);
  return inline !== undefined && target !== undefined && identityKey(inline) === identityKey(target);
}

/** The claim key part that names the member's entity. */
export function entityClaim(spec: HarborProjectMemberSpec, referenced?: ManagedObject): string {
  if (spec.user) return `user:${spec.user.name}`;
  const inline = inlineGroup(spec);
  if (inline) return `group:${identityKey(inline)}`;
  const identity = referenced && identityOfResource(referenced);
  return identity ? `group:${identityKey(identity)}` : `groupref:${spec.group?.groupRef?.name ?? ""}`;
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of created and diff; see shared/export.ts)

/** A member's key within one Harbor: its project, and the user's name or the group's identity. */
export function memberKey(project: string, entity: { user: string } | { group: GroupIdentity }): string {
  return "user" in entity
    ? `${project}/user:${entity.user}`
    : `${project}/group:${identityKey(entity.group)}`;
}

/**
 * The spec that reproduces a member: its project (by the metadata.name of the project's resource),
 * its role, and the user by name, or the group — by `groupRef` to the group's resource when the
 * export writes one, else inline by its identity (an LDAP group's DN, an HTTP or OIDC group's name).
 * `group` is Harbor's group of a group member (Harbor's member list names it only by id and name).
 */
export function specFromMember(
  member: ProjectMember,
  projectRef: string | undefined,
  group: UserGroup | undefined,
  groupRef: string | undefined,
): { spec: UnnamedSpecFields<typeof HarborProjectMemberSpec> } | { skip: string } {
  const who = `${member.entity_type === "g" ? "group" : "user"} "${member.entity_name ?? ""}"`;
  if (projectRef === undefined)
    return { skip: `the project of member ${who} (id ${member.project_id}) is not exported` };
  const role = roleName(member.role_id ?? -1);
  if (role === undefined || !MEMBER_ROLES.includes(role as MemberRole))
    return { skip: `member ${who} has Harbor's role ${member.role_id}, which the CRD does not know` };
  const base = { projectRef: { name: projectRef }, role: role as MemberRole };
  if (member.entity_type === "u") return { spec: { ...base, user: { name: member.entity_name ?? "" } } };
  if (member.entity_type !== "g") return { skip: `member ${who} is of entity type "${member.entity_type}"` };
  if (groupRef !== undefined) return { spec: { ...base, group: { groupRef: { name: groupRef } } } };
  const identity = group && identityOfGroup(group);
  if (!identity)
    return {
      skip: `member ${who}: Harbor does not list its group (id ${member.entity_id}) in this auth mode`,
    };
  return {
    spec: {
      ...base,
      group:
        identity.type === "ldap"
          ? { type: "ldap", ldapGroupDn: group?.ldap_group_dn ?? identity.dn }
          : { type: identity.type, name: identity.name },
    },
  };
}
