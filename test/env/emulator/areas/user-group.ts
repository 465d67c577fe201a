// User groups (type 1 LDAP, 2 HTTP, 3 OIDC); their project memberships are member rows of the
// projects (members.ts). LDAP groups can only be created for a DN the directory knows, and only in
// LDAP auth mode (Harbor asks the authenticator of the current mode, and only the LDAP one can find
// groups). The auth mode also filters the list.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireAuthenticated, requireSystem } from "../auth.ts";
import { BareError, badRequest, conflict, notFound } from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { page } from "../listing.ts";
import { type Ctx, createdAt, ok, type RouteSpec } from "../router.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export const GROUP_TYPES = { ldap: 1, http: 2, oidc: 3 } as const;

export interface UserGroupRecord {
  id: number;
  group_name: string;
  group_type: number;
  /** Stored trimmed and lower-cased, as Harbor does. */
  ldap_group_dn: string;
  creation_time: string;
  update_time: string;
}

export class UserGroupStore {
  readonly #world: World;
  readonly #groups = new Map<number, UserGroupRecord>();

  constructor(world: World) {
    this.#world = world;
  }

  get world(): World {
    return this.#world;
  }

  get(id: number): UserGroupRecord | undefined {
    return this.#groups.get(id);
  }

  /** Every group, in creation order (Harbor's list has no explicit order). */
  all(): UserGroupRecord[] {
    return [...this.#groups.values()];
  }

  create(g: { name: string; type: number; dn: string }): UserGroupRecord {
    if (g.type === GROUP_TYPES.ldap && !this.#world.ldap.groupForUserGroup(g.dn)) {
      // Harbor's check tests "not found" first, which also catches malformed DNs.
      throw badRequest(`LDAP Group DN is not found: DN:${g.dn}`);
    }
    const same = (x: UserGroupRecord, type: number) => x.group_name === g.name && x.group_type === type;
    if (this.all().some((x) => same(x, g.type))) {
      throw conflict(
        `duplicate user group, group name:${g.name}, group type: ${g.type}, ldap group DN: ${g.dn}`,
      );
    }
    // The DAO also refuses any name an HTTP group already has, whatever the new group's type.
    if (this.all().some((x) => same(x, GROUP_TYPES.http))) throw conflict("duplicated user group name");
    const now = this.#world.nowText();
    const rec: UserGroupRecord = {
      id: this.#world.ids.next("usergroup"),
      group_name: g.name,
      group_type: g.type,
      ldap_group_dn: g.dn.trim().toLowerCase(),
      creation_time: now,
      update_time: now,
    };
    this.#groups.set(rec.id, rec);
    return rec;
  }

  /** Renames a group; Harbor checks neither uniqueness nor anything else here. */
  rename(rec: UserGroupRecord, name: string): void {
    rec.group_name = name;
  }

  /** Deletes the group and its project memberships (its member rows in every project). */
  delete(id: number): void {
    this.#groups.delete(id);
    for (const p of this.#world.projects.all()) p.members.removeGroup(id);
  }

  /** Makes the group a member of the project, or changes its role there. */
  setMembership(groupId: number, projectId: number, role: number): void {
    const members = this.#world.projects.byId(projectId)?.members;
    if (!members) throw new Error(`no project ${projectId}`);
    const row = members.find("g", groupId);
    if (row) row.role = role;
    else members.add("g", groupId, role);
  }

  /** project id → role id of a group. */
  memberships(groupId: number): Map<number, number> {
    const out = new Map<number, number>();
    for (const p of this.#world.projects.all()) {
      const row = p.members.find("g", groupId);
      if (row) out.set(p.project_id, row.role);
    }
    return out;
  }
}

/** "Most match" first: the exact name, then shorter names, then alphabetical order. */
function mostMatch(word: string) {
  return (a: UserGroupRecord, b: UserGroupRecord): number => {
    if (a.group_name === b.group_name) return 0;
    if (a.group_name === word) return -1;
    if (b.group_name === word) return 1;
    if (a.group_name.length !== b.group_name.length) return a.group_name.length - b.group_name.length;
    return a.group_name < b.group_name ? -1 : 1;
  };
}

const containsFold = (text: string, part: string) => text.toUpperCase().includes(part.toUpperCase());

const UserGroupBody = z
  .object({
    id: z.number().int().nullish(),
    group_name: z.string().nullish(),
    group_type: z.number().int().nullish(),
    ldap_group_dn: z.string().nullish(),
  })
  .meta({ goType: "UserGroup" });
type UserGroupBody = z.output<typeof UserGroupBody>;

const render = (g: UserGroupRecord) =>
  omitEmpty({ id: g.id, group_name: g.group_name, group_type: g.group_type, ldap_group_dn: g.ldap_group_dn });

/** Get and delete refuse ids below 1 with a message; update does so with a bare 400. */
function groupId(ctx: Ctx): number {
  const id = ctx.params.group_id as number;
  if (id <= 0) throw badRequest("the group id should be provided");
  return id;
}

const routes: RouteSpec[] = [
  {
    op: "listUserGroups",
    method: "GET",
    path: "/usergroups",
    paged: true,
    query: { ldap_group_dn: { type: "string" }, group_name: { type: "string" } },
    handle(ctx) {
      requireSystem(ctx, "user-group", "list");
      const mode = ctx.world.ldap.authMode;
      const name = ctx.query.group_name as string | undefined;
      const dn = ctx.query.ldap_group_dn as string | undefined;
      let items = ctx.world.userGroups.all();
      if (name) items = items.filter((g) => containsFold(g.group_name, name));
      if (mode === "ldap") {
        items = items.filter((g) => g.group_type === GROUP_TYPES.ldap);
        // The DN filter only exists in LDAP mode.
        if (dn) items = items.filter((g) => g.ldap_group_dn === dn);
      } else if (mode === "http") items = items.filter((g) => g.group_type === GROUP_TYPES.http);
      return page(ctx, items.map(render), { noLinkWhenEmpty: true });
    },
  },
  {
    op: "createUserGroup",
    method: "POST",
    path: "/usergroups",
    body: { name: "usergroup", schema: UserGroupBody, optional: true },
    handle(ctx) {
      requireSystem(ctx, "user-group", "create");
      const b = ctx.body as UserGroupBody | undefined;
      if (!b?.group_name) throw new BareError(400);
      const group = ctx.world.userGroups.create({
        name: b.group_name,
        type: b.group_type ?? 0,
        dn: b.ldap_group_dn ?? "",
      });
      auditWrite(ctx, {
        project_id: 0,
        resource: group.group_name,
        resource_type: "user_group",
        operation: "create",
      });
      return createdAt(ctx, group.id);
    },
  },
  {
    op: "getUserGroup",
    method: "GET",
    path: "/usergroups/{group_id}",
    params: { group_id: "int" },
    handle(ctx) {
      requireSystem(ctx, "user-group", "read");
      const id = groupId(ctx);
      const group = ctx.world.userGroups.get(id);
      if (!group) throw notFound(`the user group with id ${id} is not found`);
      const { id: _omitted, ...rest } = render(group);
      return ok(rest);
    },
  },
  {
    op: "updateUserGroup",
    method: "PUT",
    path: "/usergroups/{group_id}",
    params: { group_id: "int" },
    body: { name: "usergroup", schema: UserGroupBody, optional: true },
    handle(ctx) {
      requireSystem(ctx, "user-group", "update");
      const id = ctx.params.group_id as number;
      const b = ctx.body as UserGroupBody | undefined;
      if (id <= 0 || !b?.group_name) throw new BareError(400);
      const group = ctx.world.userGroups.get(id);
      if (!group) throw notFound(`the user group with id ${id} is not found`);
      ctx.world.userGroups.rename(group, b.group_name);
      auditWrite(ctx, {
        project_id: 0,
        resource: group.group_name,
        resource_type: "user_group",
        operation: "update",
      });
      return ok();
    },
  },
  {
    op: "deleteUserGroup",
    method: "DELETE",
    path: "/usergroups/{group_id}",
    params: { group_id: "int" },
    handle(ctx) {
      requireSystem(ctx, "user-group", "delete");
      const id = groupId(ctx);
      const group = ctx.world.userGroups.get(id);
      if (group) {
        ctx.world.userGroups.delete(id);
        auditWrite(ctx, {
          project_id: 0,
          resource: group.group_name,
          resource_type: "user_group",
          operation: "delete",
        });
      }
      return ok();
    },
  },
  {
    op: "searchUserGroups",
    method: "GET",
    path: "/usergroups/search",
    paged: true,
    query: { groupname: { type: "string", required: true } },
    handle(ctx) {
      requireAuthenticated(ctx);
      const word = ctx.query.groupname as string;
      const items = ctx.world.userGroups
        .all()
        .filter((g) => containsFold(g.group_name, word))
        .sort(mostMatch(word));
      return page(
        ctx,
        items.map((g) => omitEmpty({ id: g.id, group_name: g.group_name, group_type: g.group_type })),
        { noLinkWhenEmpty: true },
      );
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** Every user group as stored (the auth-mode filter of the list does not apply). */
    list: () => world.userGroups.all(),
    /**
     * Makes a user group a member of a project with a built-in role (1 projectAdmin, 2 developer,
     * 3 guest, 4 maintainer, 5 limitedGuest). Deleting the group removes its memberships.
     */
    addToProject(groupId: number, project: string, role: number): void {
      const p = world.projects.byName(project);
      if (!p || !world.userGroups.get(groupId))
        throw new Error(`no project ${project} or user group ${groupId}`);
      world.userGroups.setMembership(groupId, p.project_id, role);
    },
    /** The projects (by name) a user group is a member of, with the role id. */
    memberships(groupId: number): Record<string, number> {
      const out: Record<string, number> = {};
      for (const [projectId, role] of world.userGroups.memberships(groupId)) {
        const name = world.projects.byId(projectId)?.name;
        if (name) out[name] = role;
      }
      return out;
    },
  }),
});
