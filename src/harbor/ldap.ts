// LDAP (/ldap): ping a configuration, search users and groups, import users. Search and import use
// the LDAP configuration stored in Harbor; ping tests the one it is given.
import { z } from "zod";
import type { CallOptions, HarborTransport } from "./transport.ts";
import { UserGroup } from "./user-group.ts";

export const LdapConf = z.object({
  ldap_url: z.string().optional(),
  ldap_search_dn: z.string().optional(),
  /** Empty: Harbor falls back to the stored password, but only when it runs in LDAP auth mode. */
  ldap_search_password: z.string().optional(),
  ldap_base_dn: z.string().optional(),
  ldap_filter: z.string().optional(),
  ldap_uid: z.string().optional(),
  ldap_scope: z.number().int().optional(),
  ldap_connection_timeout: z.number().int().optional(),
  ldap_verify_cert: z.boolean().optional(),
});
export type LdapConf = z.input<typeof LdapConf>;

/** A failed ping has no `success` (false is omitted) and a message "error: …". */
export const LdapPingResult = z.object({
  success: z.boolean().optional(),
  message: z.string().optional(),
});
export type LdapPingResult = z.output<typeof LdapPingResult>;

export const LdapUser = z.object({
  username: z.string().optional(),
  realname: z.string().optional(),
  email: z.string().optional(),
});
export type LdapUser = z.output<typeof LdapUser>;

/** `error` is empty_uid, failed_search_user, unknown_user or "failed to import user: <uid>". */
export const LdapFailedImportUser = z.object({
  uid: z.string().optional(),
  error: z.string().optional(),
});
export type LdapFailedImportUser = z.output<typeof LdapFailedImportUser>;

const LdapImportUsers = z.object({ ldap_uid_list: z.array(z.string()) });

export class LdapApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** pingLdap: Harbor answers 200 either way; a failed bind shows in the result, not as an error. */
  ping(conf: LdapConf, opts?: CallOptions): Promise<LdapPingResult> {
    const body = LdapConf.parse(conf);
    return this.#t.json(
      // Safe to repeat: it only tests the configuration.
      { ...opts, operation: "pingLdap", method: "POST", path: "/ldap/ping", body, idempotent: true },
      LdapPingResult,
    );
  }

  /** searchLdapUser: users whose uid equals `username`, or every user when it is omitted. */
  searchUsers(username?: string, opts?: CallOptions): Promise<LdapUser[]> {
    return this.#t.json(
      {
        ...opts,
        operation: "searchLdapUser",
        method: "GET",
        path: "/ldap/users/search",
        query: { username },
      },
      LdapUser.array(),
    );
  }

  /**
   * importLdapUser: makes LDAP users Harbor users. Resolves with the uids that could not be
   * imported (Harbor's 404 answer), empty when all were; users that already exist count as imported.
   */
  async importUsers(uids: readonly string[], opts?: CallOptions): Promise<LdapFailedImportUser[]> {
    const body = LdapImportUsers.parse({ ldap_uid_list: uids });
    const failures = await this.#t.jsonOrEmpty(
      {
        ...opts,
        operation: "importLdapUser",
        method: "POST",
        path: "/ldap/users/import",
        body,
        // Importing the same users again changes nothing.
        idempotent: true,
        acceptStatus: [404],
      },
      LdapFailedImportUser.array(),
    );
    return failures ?? [];
  }

  /**
   * searchLdapGroup: the group with this name, or else with this DN; only group_name and
   * ldap_group_dn are filled. No match is a notFound error.
   */
  searchGroups(by: { groupName?: string; groupDn?: string }, opts?: CallOptions): Promise<UserGroup[]> {
    return this.#t.json(
      {
        ...opts,
        operation: "searchLdapGroup",
        method: "GET",
        path: "/ldap/groups/search",
        query: { groupname: by.groupName, groupdn: by.groupDn },
      },
      UserGroup.array(),
    );
  }
}
