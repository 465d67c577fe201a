// User groups (/usergroups): LDAP (type 1), HTTP (type 2) and OIDC (type 3) groups. Everything but
// search needs the system permission user-group; search is open to any signed-in user.
import { z } from "zod";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

export const UserGroupType = { ldap: 1, http: 2, oidc: 3 } as const;

/** GET by id leaves out `id`; LDAP search results carry only group_name and ldap_group_dn. */
export const UserGroup = z.object({
  id: z.number().int().optional(),
  group_name: z.string().optional(),
  group_type: z.number().int().optional(),
  /** Stored trimmed and lower-cased. */
  ldap_group_dn: z.string().optional(),
});
export type UserGroup = z.output<typeof UserGroup>;

export const UserGroupSearchItem = z.object({
  id: z.number().int().optional(),
  group_name: z.string().optional(),
  group_type: z.number().int().optional(),
});
export type UserGroupSearchItem = z.output<typeof UserGroupSearchItem>;

export const UserGroupCreate = z.object({
  group_name: z.string().min(1),
  group_type: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  /** Required for LDAP groups: it must exist in the directory, and Harbor must run in LDAP mode. */
  ldap_group_dn: z.string().optional(),
});
export type UserGroupCreate = z.input<typeof UserGroupCreate>;

/** Only the name can change. */
export const UserGroupUpdate = z.object({ group_name: z.string().min(1) });
export type UserGroupUpdate = z.input<typeof UserGroupUpdate>;

export interface UserGroupListParams {
  /** Fuzzy match on the name. */
  groupName?: string;
  /** Exact DN; Harbor applies it only in LDAP auth mode. */
  ldapGroupDn?: string;
}

export class UserGroupsApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /**
   * listUserGroups: every page. In LDAP auth mode Harbor lists only LDAP groups, in HTTP mode only
   * HTTP groups.
   */
  list(params: UserGroupListParams = {}, opts?: CallOptions): Promise<UserGroup[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listUserGroups",
        method: "GET",
        path: "/usergroups",
        query: { group_name: params.groupName, ldap_group_dn: params.ldapGroupDn },
      },
      UserGroup,
    );
  }

  /** createUserGroup: returns the new group's id. */
  async create(group: UserGroupCreate, opts?: CallOptions): Promise<number> {
    const body = UserGroupCreate.parse(group);
    return Number(
      await this.#t.created({
        ...opts,
        operation: "createUserGroup",
        method: "POST",
        path: "/usergroups",
        body,
      }),
    );
  }

  /** getUserGroup: the answer has no `id`. */
  get(id: number, opts?: CallOptions): Promise<UserGroup> {
    return this.#t.json(
      { ...opts, operation: "getUserGroup", method: "GET", path: path`/usergroups/${id}` },
      UserGroup,
    );
  }

  /** updateUserGroup: renames the group. */
  update(id: number, change: UserGroupUpdate, opts?: CallOptions): Promise<void> {
    const body = UserGroupUpdate.parse(change);
    return this.#t.noContent({
      ...opts,
      operation: "updateUserGroup",
      method: "PUT",
      path: path`/usergroups/${id}`,
      body,
    });
  }

  /** deleteUserGroup: also removes the group's project memberships; unknown ids succeed. */
  delete(id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "deleteUserGroup",
      method: "DELETE",
      path: path`/usergroups/${id}`,
    });
  }

  /** searchUserGroups: every page of groups whose name contains `groupName`, best match first. */
  search(groupName: string, opts?: CallOptions): Promise<UserGroupSearchItem[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "searchUserGroups",
        method: "GET",
        path: "/usergroups/search",
        query: { groupname: groupName },
      },
      UserGroupSearchItem,
    );
  }
}
