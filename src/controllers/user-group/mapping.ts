// HarborUserGroup's pure mapping: spec → Harbor's requests, Harbor's group → drift and status, and
// a group's identity (an LDAP group's DN, an HTTP or OIDC group's type and name).
import {
  canonicalDn,
  type HarborUserGroupSpec,
  type HarborUserGroupStatus,
  type UserGroupKind,
} from "../../api/user-group.ts";
import type { UserGroup, UserGroupCreate } from "../../harbor/user-group.ts";
import type { ManagedObject } from "../../runtime/external-client.ts";
import type { SpecFields } from "../shared/export.ts";

/** Harbor's group_type of each kind. */
export const GROUP_TYPE: Record<UserGroupKind, 1 | 2 | 3> = { ldap: 1, http: 2, oidc: 3 };

/** A group Harbor holds, with its id (Harbor's GET by id leaves the id out; the caller knows it). */
export type ObservedGroup = UserGroup & { id: number };

/**
 * What makes a group the one a spec means: an LDAP group is its DN (canonical: trimmed, lower
 * case, as Harbor stores it), an HTTP or OIDC group its name.
 */
export type GroupIdentity = { type: "ldap"; dn: string } | { type: "http" | "oidc"; name: string };

export function identityOf(
  spec: Pick<HarborUserGroupSpec, "type" | "ldapGroupDn">,
  harborName: string,
): GroupIdentity {
  return spec.type === "ldap"
    ? { type: "ldap", dn: canonicalDn(spec.ldapGroupDn ?? "") }
    : { type: spec.type, name: harborName };
}

/** The identity a HarborUserGroup resource declares, from its stored spec; undefined when unreadable. */
export function identityOfResource(group: ManagedObject): GroupIdentity | undefined {
  const spec = (group.spec ?? {}) as Partial<HarborUserGroupSpec>;
  if (spec.type !== "ldap" && spec.type !== "http" && spec.type !== "oidc") return undefined;
  if (spec.type === "ldap" && !spec.ldapGroupDn) return undefined;
  return identityOf({ type: spec.type, ldapGroupDn: spec.ldapGroupDn }, spec.name ?? group.metadata.name);
}

/** A stable text for an identity: claims and messages. */
export function identityKey(id: GroupIdentity): string {
  return id.type === "ldap" ? `ldap:${id.dn}` : `${id.type}:${id.name}`;
}

/** Whether Harbor's group is the one with this identity. */
export function matchesIdentity(id: GroupIdentity, observed: UserGroup): boolean {
  if (observed.group_type !== GROUP_TYPE[id.type]) return false;
  return id.type === "ldap"
    ? canonicalDn(observed.ldap_group_dn ?? "") === id.dn
    : observed.group_name === id.name;
}

export function createRequest(spec: HarborUserGroupSpec, harborName: string): UserGroupCreate {
  return {
    group_name: harborName,
    group_type: GROUP_TYPE[spec.type],
    ...(spec.type === "ldap" ? { ldap_group_dn: spec.ldapGroupDn } : {}),
  };
}

/** The group as Harbor stores it after createRequest: the DN trimmed and lower-cased. */
export function created(id: number, request: UserGroupCreate): ObservedGroup {
  return {
    id,
    group_name: request.group_name,
    group_type: request.group_type,
    ...(request.ldap_group_dn ? { ldap_group_dn: canonicalDn(request.ldap_group_dn) } : {}),
  };
}

/** Only an LDAP group's name can differ from the spec: the name is the identity of the others. */
export function diff(spec: HarborUserGroupSpec, harborName: string, observed: UserGroup): string[] {
  return spec.type === "ldap" && observed.group_name !== harborName ? ["name"] : [];
}

export function status(observed: UserGroup): Partial<HarborUserGroupStatus> {
  return { ldapGroupDn: observed.ldap_group_dn || undefined };
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of createRequest and identityOf; see shared/export.ts)

/** The kind of Harbor's group_type; undefined for a type this operator does not know. */
export function kindOfGroup(observed: UserGroup): UserGroupKind | undefined {
  return (Object.keys(GROUP_TYPE) as UserGroupKind[]).find((k) => GROUP_TYPE[k] === observed.group_type);
}

/** The identity of a group Harbor holds (as identityOf gives it for the spec that means it). */
export function identityOfGroup(observed: UserGroup): GroupIdentity | undefined {
  const type = kindOfGroup(observed);
  if (type === undefined) return undefined;
  return type === "ldap"
    ? { type, dn: canonicalDn(observed.ldap_group_dn ?? "") }
    : { type, name: observed.group_name ?? "" };
}

/** The spec that reproduces a group: its type, its name, and an LDAP group's DN as Harbor stores it. */
export function specFromGroup(
  observed: UserGroup,
): { spec: SpecFields<typeof HarborUserGroupSpec> } | { skip: string } {
  const type = kindOfGroup(observed);
  const name = observed.group_name ?? "";
  if (type === undefined)
    return {
      skip: `group "${name}" is of Harbor's group type ${observed.group_type}, which the CRD does not know`,
    };
  return {
    spec: { type, name, ...(type === "ldap" ? { ldapGroupDn: observed.ldap_group_dn ?? "" } : {}) },
  };
}
