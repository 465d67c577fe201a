// HarborUserGroup's ExternalClient: how a user group is observed, created, renamed and deleted.
// - An LDAP group is found by its DN (Harbor's list filters by it exactly, in LDAP mode), an HTTP or
//   OIDC group by its name and type (Harbor's search, which every auth mode answers in full).
// - Before an LDAP group is created, Harbor's LDAP group search must find its DN: a DN the directory
//   lacks waits with reason LdapGroupNotFound and is retried, instead of Harbor's 400 (or the 500
//   its search gives for a DN under the group base that does not exist, or a directory it cannot
//   reach). Harbor creates LDAP groups only in LDAP auth mode and otherwise answers that the DN is
//   not found; the operator then reads the auth mode and says so (LdapAuthRequired), retried too.
// - Harbor stores a group as sent (the DN trimmed and lower-cased): no read-back after a create.
//   An HTTP or OIDC group costs two requests (the search and the create), an LDAP group three (the
//   list by DN, the directory search, the create).
// - Only the name can change, and only an LDAP group's (the others are their name): a renamed LDAP
//   group is renamed back.
// - A group that HarborProjectMembers of the cluster grant (through a connection to the same Harbor,
//   by groupRef or by its identity) is not deleted while they do (DeletionBlocked): Harbor would
//   remove their memberships with it. The Deleted Event says that Harbor removed the group's other
//   memberships, in every project.
// - Tenancy: a group reaches every project (its deletion removes its memberships everywhere), so
//   through a ClusterHarborConnection it needs every project (tenancy.projects "*").
// - The drift sweep lists the groups once per Harbor. Harbor's list leaves out the groups of other
//   types than its auth mode's in LDAP and HTTP mode; those few are read one by one.
import type { HarborProjectMemberSpec } from "../../api/member.ts";
import type { HarborUserGroupSpec, HarborUserGroupStatus } from "../../api/user-group.ts";
import { isHarborError } from "../../harbor/errors.ts";
import {
  type ConnectionResolver,
  DeletionBlocked,
  type ExternalClient,
  type ManagedObject,
  NotReady,
} from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { grants } from "../member/mapping.ts";
import { authMode, LDAP_AUTH } from "../shared/auth-mode.ts";
import { requireProjects } from "../shared/tenancy.ts";
import {
  created,
  createRequest,
  diff,
  type GroupIdentity,
  identityKey,
  identityOf,
  matchesIdentity,
  type ObservedGroup,
  status,
} from "./mapping.ts";

/** Ready=False: Harbor's LDAP group search does not find the DN; retried. */
export const LDAP_GROUP_NOT_FOUND = "LdapGroupNotFound";
/** Ready=False: Harbor is not in LDAP auth mode, where alone it creates LDAP groups; retried. */
export const LDAP_AUTH_REQUIRED = "LdapAuthRequired";

type Client = ExternalClient<
  HarborUserGroupSpec,
  ObservedGroup,
  HarborConnectionHandle,
  GroupIdentity,
  HarborUserGroupStatus
>;

export interface UserGroupExternalDeps {
  members: Informer<ManagedObject>;
  connections: Pick<ConnectionResolver<HarborConnectionHandle>, "harborKey">;
}

export function userGroupExternal(deps: UserGroupExternalDeps): Client {
  const get = async (conn: HarborConnectionHandle, id: number, signal?: AbortSignal) => {
    try {
      return { ...(await conn.client.userGroups.get(id, signal ? { signal } : {})), id };
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  /** Harbor's LDAP group search must find the DN before Harbor is asked to create the group. */
  const inDirectory = async (conn: HarborConnectionHandle, dn: string, signal: AbortSignal) => {
    try {
      await conn.client.ldap.searchGroups({ groupDn: dn }, { signal });
    } catch (e) {
      if (isHarborError(e, "notFound")) {
        throw new NotReady(
          LDAP_GROUP_NOT_FOUND,
          `Harbor's LDAP group search finds no group with DN "${dn}" below its LDAP group base DN; create it in the directory or correct ldapGroupDn. Retrying`,
        );
      }
      if (isHarborError(e, "server")) {
        throw new NotReady(
          LDAP_GROUP_NOT_FOUND,
          `Harbor's LDAP group search failed for DN "${dn}" (${e.status ?? "no answer"}): Harbor answers so for a DN below its group base DN that does not exist, and when it cannot reach its LDAP server (check its LDAP settings). Retrying`,
        );
      }
      throw e;
    }
  };

  return {
    async prepare({ spec, conn, harborName }) {
      requireProjects(conn, "all");
      return identityOf(spec, harborName);
    },

    async observe({ conn, knownId, extra, signal }) {
      if (knownId !== undefined) return get(conn, knownId, signal);
      const candidates =
        extra.type === "ldap"
          ? await conn.client.userGroups.list({ ldapGroupDn: extra.dn }, { signal })
          : await conn.client.userGroups.search(extra.name, { signal });
      const found = candidates.find((g) => typeof g.id === "number" && matchesIdentity(extra, g));
      return found as ObservedGroup | undefined;
    },

    async create({ conn, spec, harborName, extra, signal }) {
      if (extra.type === "ldap") await inDirectory(conn, spec.ldapGroupDn ?? "", signal);
      const request = createRequest(spec, harborName);
      try {
        return created(await conn.client.userGroups.create(request, { signal }), request);
      } catch (e) {
        // Outside LDAP auth mode Harbor cannot find any LDAP group, and says the DN is not found.
        if (
          extra.type === "ldap" &&
          isHarborError(e, "invalid") &&
          /not found/i.test(e.harborMessage ?? "")
        ) {
          const mode = await authMode(conn, signal);
          if (mode !== LDAP_AUTH) {
            throw new NotReady(
              LDAP_AUTH_REQUIRED,
              `Harbor runs in ${mode ?? "an unknown"} mode and creates LDAP groups only in ${LDAP_AUTH} mode (its directory does hold "${spec.ldapGroupDn}"). Retrying`,
            );
          }
          throw new NotReady(
            LDAP_GROUP_NOT_FOUND,
            `Harbor did not find DN "${spec.ldapGroupDn}": ${e.harborMessage}. Retrying`,
          );
        }
        throw e;
      }
    },

    async update({ conn, harborName, signal }, current) {
      await conn.client.userGroups.update(current.id, { group_name: harborName }, { signal });
      return { ...current, group_name: harborName };
    },

    async delete({ resource, conn, signal }, current) {
      const users = deps.members
        .list()
        .filter((m) => {
          const spec = (m.spec ?? {}) as HarborProjectMemberSpec;
          const ns = m.metadata.namespace ?? "";
          return (
            grants(spec, ns, resource) && deps.connections.harborKey(ns, spec.connectionRef) === conn.harbor
          );
        })
        .map((m) => `${m.metadata.namespace}/${m.metadata.name}`)
        .sort();
      if (users.length) {
        throw new DeletionBlocked(
          `HarborProjectMember ${users.join(", ")} grant${users.length === 1 ? "s" : ""} the group a role, and Harbor would remove those memberships with it. Delete the members first (this deletion then proceeds), or set deletionPolicy: Orphan`,
        );
      }
      // Idempotent in Harbor: an id that is gone answers 200 too.
      await conn.client.userGroups.delete(current.id, { signal });
      return { note: "Harbor also removed the group's memberships in every project" };
    },

    diff: ({ spec, harborName }, observed) => diff(spec, harborName, observed),
    id: (observed) => observed.id,
    identifies: ({ extra }, observed) => matchesIdentity(extra, observed),
    status: (_input, observed) => status(observed),

    async observeMany(conn, inputs) {
      const found = new Map<number, ObservedGroup>();
      for (const g of await conn.client.userGroups.list()) {
        if (typeof g.id === "number") found.set(g.id, g as ObservedGroup);
      }
      // In LDAP and HTTP auth mode the list shows only that mode's groups: read the others by id.
      for (const i of inputs) {
        const id = i.knownId;
        if (id === undefined || found.has(id)) continue;
        const g = await get(conn, id, i.signal);
        if (g) found.set(id, g);
      }
      return found;
    },

    claim: (spec, harborName) => `usergroup:${identityKey(identityOf(spec, harborName))}`,
  };
}
