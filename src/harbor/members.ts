// Project members (/projects/{p}/members): the users and user groups of a project, each with one
// role. Permissions: member on the project (project admins may do everything, maintainers,
// developers and guests may list and read).
//
// Harbor's create takes the member by id or by name. By name it does more than add a member: a user
// name Harbor does not know is searched in its authenticator and onboarded (an LDAP user becomes a
// Harbor user), and a group name or LDAP DN it does not know becomes a new user group. `create`
// here therefore takes ids only (`{ user_id }` or `{ id }` of a group); resolve a name first
// (`users.search`, `userGroups.list` / `userGroups.search`, `ldap.importUsers`).
import { z } from "zod";
import { type ProjectRef, projectHeaders } from "./common.ts";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

/** Harbor's built-in project roles by id. */
export const ProjectRole = {
  projectAdmin: 1,
  developer: 2,
  guest: 3,
  maintainer: 4,
  limitedGuest: 5,
} as const;
export type ProjectRoleName = keyof typeof ProjectRole;

/** The role name Harbor reports (role_name) for a built-in role id. */
export function roleName(id: number): ProjectRoleName | undefined {
  return (Object.keys(ProjectRole) as ProjectRoleName[]).find((k) => ProjectRole[k] === id);
}

/** ProjectMemberEntity. entity_type is "u" (user) or "g" (user group). */
export const ProjectMember = z.object({
  id: z.number().int().optional(),
  project_id: z.number().int().optional(),
  /** The user's name, or the group's name. */
  entity_name: z.string().optional(),
  role_name: z.string().optional(),
  role_id: z.number().int().optional(),
  /** The user's id, or the user group's id. */
  entity_id: z.number().int().optional(),
  entity_type: z.string().optional(),
});
export type ProjectMember = z.output<typeof ProjectMember>;

/** A member Harbor has stored, as get and list return it: its id is always there. */
export const PersistedProjectMember = ProjectMember.extend({ id: z.number().int() });
export type PersistedProjectMember = z.output<typeof PersistedProjectMember>;

const RoleId = z.number().int().min(1).max(5);

/** What create sends: a role and exactly one member, by id. */
export const ProjectMemberCreate = z.union([
  z.object({ role_id: RoleId, member_user: z.object({ user_id: z.number().int().positive() }) }),
  z.object({ role_id: RoleId, member_group: z.object({ id: z.number().int().positive() }) }),
]);
export type ProjectMemberCreate = z.input<typeof ProjectMemberCreate>;

export class MembersApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /**
   * listProjectMembers: every page, ordered by entity name. `entityName` keeps only the member
   * of exactly that name (Harbor's X-Total-Count still counts them all).
   */
  list(
    project: ProjectRef,
    params: { entityName?: string } = {},
    opts?: CallOptions,
  ): Promise<PersistedProjectMember[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "listProjectMembers",
        method: "GET",
        path: path`/projects/${project}/members`,
        headers: projectHeaders(project),
        query: { entityname: params.entityName },
      },
      PersistedProjectMember,
    );
  }

  /**
   * createProjectMember: adds a user or a user group by id and returns the member's id. A member
   * that is in the project already is a conflict (409).
   */
  async create(project: ProjectRef, member: ProjectMemberCreate, opts?: CallOptions): Promise<number> {
    const body = ProjectMemberCreate.parse(member);
    return Number(
      await this.#t.created({
        ...opts,
        operation: "createProjectMember",
        method: "POST",
        path: path`/projects/${project}/members`,
        headers: projectHeaders(project),
        body,
      }),
    );
  }

  /** getProjectMember: notFound when the member belongs to another project. */
  get(project: ProjectRef, id: number, opts?: CallOptions): Promise<PersistedProjectMember> {
    return this.#t.json(
      {
        ...opts,
        operation: "getProjectMember",
        method: "GET",
        path: path`/projects/${project}/members/${id}`,
        headers: projectHeaders(project),
      },
      PersistedProjectMember,
    );
  }

  /**
   * updateProjectMember: changes the member's role, the only thing that can change. Harbor answers
   * 200 for a member id that is not in the project, and changes nothing.
   */
  updateRole(project: ProjectRef, id: number, roleId: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "updateProjectMember",
      method: "PUT",
      path: path`/projects/${project}/members/${id}`,
      headers: projectHeaders(project),
      body: { role_id: RoleId.parse(roleId) },
    });
  }

  /** deleteProjectMember: 200 also for a member id that is not in the project. */
  delete(project: ProjectRef, id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "deleteProjectMember",
      method: "DELETE",
      path: path`/projects/${project}/members/${id}`,
      headers: projectHeaders(project),
    });
  }
}
