// HarborProjectMember's ExternalClient: how a user or user group becomes a member of a project with
// a role, and how the role is kept.
// - Members are added by id only. Harbor's create also takes a name or an LDAP DN, but then it
//   onboards an unknown LDAP user or creates a user group as a side effect (an orphan group when the
//   member goes, terraform-provider-harbor#591). So the id is resolved first: a user by Harbor's
//   user search (exact name), a group from its HarborUserGroup's status or, for an inline identity,
//   by Harbor's group list (LDAP DN) or search (HTTP/OIDC name).
// - A user Harbor does not have is imported with Harbor's LDAP user import, then searched again.
//   Harbor imports only in LDAP auth mode (in db_auth mode every import fails): a user that cannot
//   be imported waits, retried, with reason UserNotFound and what Harbor said — that its directory
//   lacks the user, or that it runs in another auth mode (read from /systeminfo on that path only).
// - An inline group Harbor does not have waits with reason GroupNotFound: it is never created here.
// - Harbor stores a member as sent: no read-back. Converging costs, besides the lookup of the
//   project's members: a user's search and the create; a referenced group's create; an inline
//   group's lookup and the create. The role is the only thing that changes (updateRole).
// - On deletion the project or the group may be gone already: the ids status recorded still serve.
// - The drift sweep reads one member list per project.
import type { HarborProjectMemberSpec, HarborProjectMemberStatus } from "../../api/member.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { PersistedProjectMember } from "../../harbor/members.ts";
import { forEachBounded, SWEEP_CONCURRENCY } from "../../runtime/bounded.ts";
import { type ExternalClient, type ManagedObject, NotReady } from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { authMode, LDAP_AUTH } from "../shared/auth-mode.ts";
import type { FreshProjects } from "../shared/fresh-projects.ts";
import { projectScope } from "../shared/project-scope.ts";
import { resolveReference } from "../shared/references.ts";
import { type GroupIdentity, matchesIdentity } from "../user-group/mapping.ts";
import {
  created,
  describeMember,
  diff,
  type Entity,
  entityClaim,
  inlineGroup,
  isEntity,
  type ObservedMember,
  roleId,
  status,
  withRole,
} from "./mapping.ts";

/** Ready=False: no Harbor user of that name, and none could be imported; retried. */
export const USER_NOT_FOUND = "UserNotFound";
/** Ready=False: no Harbor user group with the inline identity; retried. */
export const GROUP_NOT_FOUND = "GroupNotFound";

export interface MemberExtra {
  projectId: number;
  /** Who the member is; an inline group's id is filled in once looked up (observe, for create). */
  entity: Entity;
}

type Client = ExternalClient<
  HarborProjectMemberSpec,
  ObservedMember,
  HarborConnectionHandle,
  MemberExtra,
  HarborProjectMemberStatus
>;

export interface MemberExternalDeps {
  projects: Informer<ManagedObject>;
  groups: Informer<ManagedObject>;
  /** Projects just created: their first group member lookup needs no list. */
  fresh?: FreshProjects;
}

export function memberExternal(deps: MemberExternalDeps): Client {
  /** The id and name of the Harbor group with this identity; GroupNotFound when there is none. */
  const findGroup = async (conn: HarborConnectionHandle, id: GroupIdentity, signal: AbortSignal) => {
    const candidates =
      id.type === "ldap"
        ? await conn.client.userGroups.list({ ldapGroupDn: id.dn }, { signal })
        : await conn.client.userGroups.search(id.name, { signal });
    const group = candidates.find((g) => typeof g.id === "number" && matchesIdentity(id, g));
    if (!group) {
      const what = id.type === "ldap" ? `with DN "${id.dn}"` : `named "${id.name}"`;
      throw new NotReady(
        GROUP_NOT_FOUND,
        `Harbor has no ${id.type} user group ${what}; the operator never has Harbor create one as a side effect: create it with a HarborUserGroup (or in Harbor). Retrying`,
      );
    }
    return { id: group.id as number, name: group.group_name ?? "" };
  };

  /** The exact user of Harbor's (fuzzy) user search. */
  const findUser = async (conn: HarborConnectionHandle, name: string, signal: AbortSignal) =>
    (await conn.client.users.search(name, { signal })).find((u) => u.username === name);

  /** A Harbor user's id: searched, else imported from Harbor's LDAP directory and searched again. */
  const resolveUser = async (
    conn: HarborConnectionHandle,
    name: string,
    signal: AbortSignal,
  ): Promise<number> => {
    const known = await findUser(conn, name, signal);
    if (known) return known.user_id;
    let failures: Array<{ uid?: string | undefined; error?: string | undefined }>;
    try {
      failures = await conn.client.ldap.importUsers([name], { signal });
    } catch (e) {
      if (!isHarborError(e, "server")) throw e;
      throw new NotReady(
        USER_NOT_FOUND,
        `Harbor has no user "${name}", and its LDAP import failed (${e.status ?? "no answer"}: no LDAP server configured, or Harbor cannot reach it). Create the user in Harbor or fix Harbor's LDAP settings. Retrying`,
      );
    }
    const failure = failures[0]?.error;
    if (failure === "unknown_user" || failure === "failed_search_user") {
      throw new NotReady(
        USER_NOT_FOUND,
        `Harbor has no user "${name}", and its LDAP directory none either (import: ${failure}). Create the user, or correct user.name. Retrying`,
      );
    }
    if (failure !== undefined) {
      const mode = await authMode(conn, signal);
      throw new NotReady(
        USER_NOT_FOUND,
        mode !== LDAP_AUTH
          ? `Harbor has no user "${name}", and it runs in ${mode ?? "an unknown"} mode, where it imports no LDAP users (import: ${failure}). Create the user in Harbor. Retrying`
          : `Harbor has no user "${name}" and could not import it from LDAP (${failure}). Retrying`,
      );
    }
    const imported = await findUser(conn, name, signal);
    if (!imported)
      throw new NotReady(
        USER_NOT_FOUND,
        `Harbor imported "${name}" from LDAP but does not list it under that name. Retrying`,
      );
    return imported.user_id;
  };

  const get = async (conn: HarborConnectionHandle, projectId: number, id: number, signal: AbortSignal) => {
    try {
      return await conn.client.members.get(projectId, id, { signal });
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  return {
    async prepare({ resource, spec, conn }) {
      const deleting = resource.metadata.deletionTimestamp !== undefined;
      const recorded = resource.status ?? {};
      const fallback = <T>(e: unknown, value: unknown): T => {
        // Being deleted after what it referenced went: the ids status recorded still serve.
        if (!deleting || !(e instanceof NotReady) || typeof value !== "number") throw e;
        return value as T;
      };
      const { projectId } = projectScope(deps.projects, resource, spec, conn);
      if (spec.user) return { projectId, entity: { type: "u", name: spec.user.name } };
      const ref = spec.group?.groupRef;
      if (ref) {
        try {
          const group = resolveReference(deps.groups, resource, ref, spec.connectionRef, conn.harbor);
          return { projectId, entity: { type: "g", id: group.harborId, name: group.harborName } };
        } catch (e) {
          return { projectId, entity: { type: "g", id: fallback<number>(e, recorded.entityId) } };
        }
      }
      const inline = inlineGroup(spec) as GroupIdentity;
      const id = recorded.memberType === "group" ? recorded.entityId : undefined;
      return { projectId, entity: { type: "g", inline, ...(typeof id === "number" ? { id } : {}) } };
    },

    async observe({ conn, knownId, extra, signal }) {
      if (knownId !== undefined) return get(conn, extra.projectId, knownId, signal);
      const entity = extra.entity;
      if (entity.type === "g" && entity.inline) {
        // Looked up afresh (the group may have been replaced); create reuses what is found here.
        const group = await findGroup(conn, entity.inline, signal);
        Object.assign(entity, { id: group.id, name: group.name, lookedUp: true });
      }
      // A new project's only member is its creator, a user: a group is not among them.
      if (entity.type === "g" && deps.fresh?.firstLookup(conn.harbor, extra.projectId, "group member"))
        return undefined;
      const members = await conn.client.members.list(extra.projectId, {}, { signal });
      return members.find((m) => isEntity(entity, m));
    },

    async create({ conn, spec, extra, signal }) {
      const entity = extra.entity;
      let member: { type: "u" | "g"; id: number; name: string };
      if (entity.type === "u") {
        member = { type: "u", id: await resolveUser(conn, entity.name, signal), name: entity.name };
      } else {
        // An inline group is looked up afresh: the id status recorded may be of a group since
        // deleted (with its memberships) and created again.
        if (entity.inline && !entity.lookedUp) {
          const group = await findGroup(conn, entity.inline, signal);
          Object.assign(entity, { id: group.id, name: group.name, lookedUp: true });
        }
        if (entity.id === undefined) throw new Error(`${describeMember(spec)} has no Harbor id yet`);
        member = { type: "g", id: entity.id, name: entity.name ?? "" };
      }
      const role = roleId(spec.role);
      const id = await conn.client.members.create(
        extra.projectId,
        member.type === "u"
          ? { role_id: role, member_user: { user_id: member.id } }
          : { role_id: role, member_group: { id: member.id } },
        { signal },
      );
      return created(id, extra.projectId, member, spec.role);
    },

    async update({ conn, spec, extra, signal }, current) {
      await conn.client.members.updateRole(extra.projectId, current.id, roleId(spec.role), { signal });
      return withRole(current, spec.role);
    },

    async delete({ conn, extra, signal }, current) {
      try {
        await conn.client.members.delete(extra.projectId, current.id, { signal });
      } catch (e) {
        // The project is gone, and its members with it.
        if (!isHarborError(e, "notFound")) throw e;
      }
    },

    diff: ({ spec }, observed) => diff(spec, observed),
    id: (observed) => observed.id,
    identifies: ({ extra }, observed) =>
      observed.project_id === extra.projectId && isEntity(extra.entity, observed),
    status: ({ extra }, observed) => status(extra.projectId, observed),

    async observeMany(conn, inputs) {
      const found = new Map<number, PersistedProjectMember>();
      const projects = new Map(inputs.map((i) => [i.extra.projectId, i.signal]));
      await forEachBounded(projects, SWEEP_CONCURRENCY, async ([projectId, signal]) => {
        let members: PersistedProjectMember[];
        try {
          members = await conn.client.members.list(projectId, {}, { signal });
        } catch (e) {
          // The project is gone: its members are missing, which their reconciles handle.
          if (isHarborError(e, "notFound")) return;
          throw e;
        }
        for (const m of members) found.set(m.id, m);
      });
      return found;
    },

    // One member per entity and project; the project is named by its resource in the namespace.
    claim: (spec, _harborName, namespace) => {
      const ref = spec.group?.groupRef;
      const referenced = ref ? deps.groups.get(`${namespace}/${ref.name}`) : undefined;
      return `member:${namespace}/${spec.projectRef.name}/${entityClaim(spec, referenced)}`;
    },
  };
}
