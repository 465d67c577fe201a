// Project members: the rows of Harbor's project_member table (a user or a user group, with one role
// per project) and the member API of Harbor v2.12 (list, create, get, update role, delete), plus
// the user search (/users/search) by which a client finds a user's id.
//
// Harbor's create takes a member by id or by name, and by name it has side effects: a user name it
// does not know is searched in the authenticator and onboarded (in LDAP mode an LDAP user becomes a
// Harbor user), an LDAP DN it does not know becomes a new LDAP user group, and a group name it does
// not know becomes a new group of the auth mode's kind (OIDC or HTTP). This is modelled, so that a
// client that adds members by name shows its orphan groups in tests (terraform-provider-harbor#591).
//
// Every project keeps its rows (deleting the project deletes them); deleting a user group deletes
// its rows in every project. The project creator starts as projectAdmin.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { projectAccess, ROLES, requireAuthenticated } from "../auth.ts";
import { badRequest, conflict, internal, notFound } from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { page } from "../listing.ts";
import { type Ctx, createdAt, ok, type ParamSpec, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import type { ProjectRecord } from "./projects.ts";
import { GROUP_TYPES, type UserGroupRecord } from "./user-group.ts";

export type EntityType = "u" | "g";

export interface MemberRecord {
  id: number;
  entity_type: EntityType;
  /** The user's id, or the user group's. */
  entity_id: number;
  role: number;
}

/** Harbor's role table: id → name. */
export const ROLE_NAMES: Record<number, string> = {
  [ROLES.projectAdmin]: "projectAdmin",
  [ROLES.developer]: "developer",
  [ROLES.guest]: "guest",
  [ROLES.maintainer]: "maintainer",
  [ROLES.limitedGuest]: "limitedGuest",
};

const validRole = (role: number) => ROLE_NAMES[role] !== undefined;

/**
 * One project's members. Reads by user id (`get`, `has`, `values`) serve the permission checks and
 * the summary's counts, which count every row, groups included, as Harbor's does.
 */
export class ProjectMembers {
  readonly #world: World;
  readonly #rows = new Map<number, MemberRecord>();

  constructor(world: World, owner?: { userId: number; role: number }) {
    this.#world = world;
    if (owner) this.add("u", owner.userId, owner.role);
  }

  /** The role of this user's own row (not via groups). */
  get(userId: number): number | undefined {
    return this.find("u", userId)?.role;
  }

  has(userId: number): boolean {
    return this.find("u", userId) !== undefined;
  }

  /** Adds the user, or changes the role of its row. */
  set(userId: number, role: number): void {
    const row = this.find("u", userId);
    if (row) row.role = role;
    else this.add("u", userId, role);
  }

  /** The role of every row. */
  values(): number[] {
    return [...this.#rows.values()].map((r) => r.role);
  }

  rows(): MemberRecord[] {
    return [...this.#rows.values()];
  }

  byId(id: number): MemberRecord | undefined {
    return this.#rows.get(id);
  }

  find(type: EntityType, entityId: number): MemberRecord | undefined {
    for (const r of this.#rows.values()) if (r.entity_type === type && r.entity_id === entityId) return r;
    return undefined;
  }

  add(type: EntityType, entityId: number, role: number): MemberRecord {
    const row = { id: this.#world.ids.next("member"), entity_type: type, entity_id: entityId, role };
    this.#rows.set(row.id, row);
    return row;
  }

  delete(id: number): void {
    this.#rows.delete(id);
  }

  /** Removes the rows of a user group (the group was deleted). */
  removeGroup(groupId: number): void {
    for (const r of this.#rows.values())
      if (r.entity_type === "g" && r.entity_id === groupId) this.delete(r.id);
  }
}

/** A row as Harbor's member list shows it (ProjectMemberEntity), or undefined when its entity is gone. */
function entity(world: World, project: ProjectRecord, row: MemberRecord) {
  const name =
    row.entity_type === "u"
      ? world.identities.byId(row.entity_id)?.username
      : world.userGroups.get(row.entity_id)?.group_name;
  if (name === undefined) return undefined;
  return omitEmpty({
    id: row.id,
    project_id: project.project_id,
    entity_name: name,
    role_name: ROLE_NAMES[row.role] ?? "",
    role_id: row.role,
    entity_id: row.entity_id,
    entity_type: row.entity_type,
  });
}

/** The project's members as the list shows them: ordered by entity name. */
export function membersOf(world: World, project: ProjectRecord) {
  return project.members
    .rows()
    .map((r) => entity(world, project, r))
    .filter((e) => e !== undefined)
    .sort((a, b) => String(a.entity_name).localeCompare(String(b.entity_name)));
}

/**
 * SearchAndOnBoardUser: in LDAP mode a directory user becomes a Harbor user (Harbor's side effect);
 * the database authenticator knows no one the database lacks.
 */
function onboardUser(world: World, username: string): number {
  if (world.ldap.authMode !== "ldap") throw notFound(`user ${username} not found`);
  const entry = world.ldap.directoryUser(username);
  // Harbor's ErrorUserNotExist is a plain error: a masked 500.
  if (!entry) throw internal("user does not exist");
  const failures = world.ldap.importUsers([entry.uid]);
  if (failures.length) throw internal(failures[0]?.error ?? "failed to onboard user");
  const user = world.identities.byName(entry.uid);
  if (!user) throw internal("user does not exist");
  return user.user_id;
}

/**
 * SearchAndOnBoardGroup: the authenticator looks the key up and stores a new user group (Harbor's
 * side effect). LDAP mode searches the directory by DN; OIDC and HTTP modes take any name as a
 * group of their kind; the database authenticator supports no groups.
 */
function onboardGroup(world: World, key: string, altName: string): number {
  const mode = world.ldap.authMode;
  let group: UserGroupRecord;
  if (mode === "ldap") {
    const found = world.ldap.groupForUserGroup(key);
    if (!found) throw notFound(`${key} not found`);
    group = world.userGroups.create({ name: altName || found.name, type: GROUP_TYPES.ldap, dn: key });
  } else if (mode === "oidc" || mode === "http") {
    group = world.userGroups.create({ name: key, type: GROUP_TYPES[mode], dn: "" });
  } else {
    throw notFound(`${key} not found`);
  }
  return group.id;
}

const ProjectMemberBody = z
  .object({
    role_id: z.number().int().nullish(),
    member_user: z
      .object({ user_id: z.number().int().nullish(), username: z.string().nullish() })
      .meta({ goType: "UserEntity" })
      .nullish(),
    member_group: z
      .object({
        id: z.number().int().nullish(),
        group_name: z.string().nullish(),
        group_type: z.number().int().nullish(),
        ldap_group_dn: z.string().nullish(),
      })
      .meta({ goType: "UserGroup" })
      .nullish(),
  })
  .meta({ goType: "ProjectMember" });
type ProjectMemberBody = z.output<typeof ProjectMemberBody>;

const RoleRequest = z.object({ role_id: z.number().int().nullish() }).meta({ goType: "RoleRequest" });

const INVALID_ROLE = "Failed to update project member, role is not in 1,2,3,4,5";

/** The member controller's Create: resolve the entity (with Harbor's side effects), then add it. */
function createMember(world: World, project: ProjectRecord, b: ProjectMemberBody): MemberRecord {
  const user = b.member_user ?? {};
  const group = b.member_group ?? {};
  const userId = user.user_id ?? 0;
  const username = user.username ?? "";
  const groupId = group.id ?? 0;
  const groupName = group.group_name ?? "";
  const dn = group.ldap_group_dn ?? "";
  if (userId <= 0 && username === "" && groupId <= 0 && groupName === "" && dn === "") {
    throw badRequest("at least one of member_user or member_group must be provided");
  }
  let type: EntityType = "g";
  let entityId = 0;
  if (userId > 0) {
    if (!world.identities.byId(userId)) throw badRequest(`User ${userId} not found`);
    type = "u";
    entityId = userId;
  } else if (groupId > 0) {
    if (!world.userGroups.get(groupId)) throw badRequest(`Group ${groupId} not found`);
    entityId = groupId;
  } else if (username !== "") {
    type = "u";
    entityId = world.identities.byName(username)?.user_id ?? onboardUser(world, username);
  } else if (dn !== "") {
    const canonical = dn.trim().toLowerCase();
    const existing = world.userGroups
      .all()
      .find((g) => g.group_type === GROUP_TYPES.ldap && g.ldap_group_dn === canonical);
    entityId = existing?.id ?? onboardGroup(world, dn, groupName);
  } else {
    const wanted = group.group_type ?? 0;
    const existing = world.userGroups
      .all()
      .find((g) => g.group_name === groupName && g.group_type === wanted);
    entityId = existing?.id ?? onboardGroup(world, groupName, "");
  }
  if (project.members.find(type, entityId)) throw conflict("The project member specified already exist");
  const role = b.role_id ?? 0;
  if (!validRole(role)) throw badRequest(INVALID_ROLE);
  return project.members.add(type, entityId, role);
}

const PROJECT_HEADER: Record<string, ParamSpec> = { "X-Is-Resource-Name": { type: "bool", default: false } };
const MEMBERS = "/projects/{project_name_or_id}/members";
const MEMBER = `${MEMBERS}/{mid}`;

const projectOf = (ctx: Ctx, action: string) =>
  projectAccess(ctx, ctx.params.project_name_or_id as string, "member", action);

function audit(
  ctx: Ctx,
  project: ProjectRecord,
  row: MemberRecord,
  operation: "create" | "update" | "delete",
) {
  auditWrite(ctx, {
    project_id: project.project_id,
    resource: String(entity(ctx.world, project, row)?.entity_name ?? row.entity_id),
    resource_type: "member",
    operation,
  });
}

const routes: RouteSpec[] = [
  {
    op: "listProjectMembers",
    method: "GET",
    path: MEMBERS,
    paged: true,
    headers: PROJECT_HEADER,
    query: { entityname: { type: "string" } },
    handle(ctx) {
      const project = projectOf(ctx, "list");
      const name = (ctx.query.entityname as string | undefined) ?? "";
      const all = membersOf(ctx.world, project);
      // The count is of every member, whatever the name filter; nothing at all answers early.
      if (all.length === 0) return { status: 200, json: [], headers: { "x-total-count": "0" } };
      const items = name === "" ? all : all.filter((m) => m.entity_name === name);
      return page(ctx, items, { total: all.length });
    },
  },
  {
    op: "createProjectMember",
    method: "POST",
    path: MEMBERS,
    headers: PROJECT_HEADER,
    body: { name: "project_member", schema: ProjectMemberBody, optional: true },
    handle(ctx) {
      const project = projectOf(ctx, "create");
      if (ctx.body === undefined) throw badRequest("the project member should provide");
      const row = createMember(ctx.world, project, ctx.body as ProjectMemberBody);
      audit(ctx, project, row, "create");
      return createdAt(ctx, row.id);
    },
  },
  {
    op: "getProjectMember",
    method: "GET",
    path: MEMBER,
    params: { mid: "int" },
    headers: PROJECT_HEADER,
    handle(ctx) {
      const project = projectOf(ctx, "read");
      const id = ctx.params.mid as number;
      if (id === 0) throw badRequest("the member id can not be empty!");
      const row = project.members.byId(id);
      const found = row && entity(ctx.world, project, row);
      if (!found) {
        throw notFound(`the project member is not found, project id ${project.project_id}, member id ${id}`);
      }
      return ok(found);
    },
  },
  {
    op: "updateProjectMember",
    method: "PUT",
    path: MEMBER,
    params: { mid: "int" },
    headers: PROJECT_HEADER,
    body: { name: "role", schema: RoleRequest, optional: true },
    handle(ctx) {
      const project = projectOf(ctx, "update");
      const b = ctx.body as z.output<typeof RoleRequest> | undefined;
      if (b === undefined) throw badRequest("role can not be empty");
      const id = ctx.params.mid as number;
      if (id === 0) throw badRequest("member id can not be empty");
      const role = b.role_id ?? 0;
      if (!validRole(role)) throw badRequest(INVALID_ROLE);
      // UPDATE … WHERE project_id = ? AND id = ?: another project's member is silently left alone.
      const row = project.members.byId(id);
      if (row) {
        row.role = role;
        audit(ctx, project, row, "update");
      }
      return ok();
    },
  },
  {
    op: "deleteProjectMember",
    method: "DELETE",
    path: MEMBER,
    params: { mid: "int" },
    headers: PROJECT_HEADER,
    handle(ctx) {
      const project = projectOf(ctx, "delete");
      const id = ctx.params.mid as number;
      if (id === 0) throw badRequest("the project member id is required.");
      const row = project.members.byId(id);
      if (row) {
        project.members.delete(id);
        audit(ctx, project, row, "delete");
      }
      return ok();
    },
  },
  {
    op: "searchUsers",
    method: "GET",
    path: "/users/search",
    paged: true,
    query: { username: { type: "string", required: true } },
    handle(ctx) {
      requireAuthenticated(ctx);
      const word = (ctx.query.username as string).toUpperCase();
      const users = ctx.world.identities
        .all()
        .filter((u) => u.username.toUpperCase().includes(word))
        .map((u) => ({ user_id: u.user_id, username: u.username }));
      return page(ctx, users, { noLinkWhenEmpty: true });
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** A project's members as Harbor's member list shows them (every one, by entity name). */
    list(project: string) {
      const p = world.projects.byName(project);
      if (!p) throw new Error(`no project ${project}`);
      return membersOf(world, p);
    },
  }),
});
