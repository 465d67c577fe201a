// Project members and user search: the client against the emulator, with Harbor's semantics — the
// creator as first projectAdmin, members by id, the side effects of members by name (an onboarded
// LDAP user, an implicitly created group), duplicates, roles, and the quirks of update and delete
// (200 for a member of another project, which stays untouched).
import { beforeAll, describe, expect, test } from "vitest";
import { ProjectRole } from "../../../src/harbor/members.ts";
import { UserGroupType } from "../../../src/harbor/user-group.ts";
import { harborError, onlyError, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();
let seq = 0;
const newProject = async () => {
  const name = `members-${++seq}`;
  const id = await h.admin.projects.create({ project_name: name });
  return { name, id };
};

describe("the member list", () => {
  test("a new project has its creator as projectAdmin", async () => {
    const p = await newProject();
    expect(await h.admin.members.list(p.name)).toEqual([
      {
        id: expect.any(Number),
        project_id: p.id,
        entity_name: "admin",
        role_name: "projectAdmin",
        role_id: 1,
        entity_id: 1,
        entity_type: "u",
      },
    ]);
  });

  test("ordered by name; entityname keeps the exact name only, X-Total-Count still counts all", async () => {
    const p = await newProject();
    const zed = h.addUser("zed-member");
    const amy = h.addUser("amy-member");
    const zedId = (await h.admin.users.search(zed.username))[0]?.user_id as number;
    const amyId = (await h.admin.users.search(amy.username))[0]?.user_id as number;
    await h.admin.members.create(p.id, { role_id: ProjectRole.developer, member_user: { user_id: zedId } });
    await h.admin.members.create(p.id, { role_id: ProjectRole.guest, member_user: { user_id: amyId } });
    expect((await h.admin.members.list(p.id)).map((m) => m.entity_name)).toEqual([
      "admin",
      "amy-member",
      "zed-member",
    ]);
    const res = await h.api(`/projects/${p.id}/members?entityname=amy-member&page_size=1`);
    expect(res.headers.get("x-total-count")).toBe("3");
    expect(((await res.json()) as Array<{ entity_name: string }>).map((m) => m.entity_name)).toEqual([
      "amy-member",
    ]);
    expect(await h.admin.members.list(p.name, { entityName: "amy" })).toEqual([]);
    expect((await h.admin.members.list(p.name, { entityName: "amy-member" }))[0]?.role_name).toBe("guest");
  });

  test("the summary counts members by role, groups included", async () => {
    const p = await newProject();
    const g = await h.admin.userGroups.create({ group_name: "summary-devs", group_type: UserGroupType.oidc });
    await h.admin.members.create(p.name, { role_id: ProjectRole.developer, member_group: { id: g } });
    expect(await h.admin.projects.summary(p.id)).toMatchObject({
      project_admin_count: 1,
      developer_count: 1,
    });
  });

  test("an unknown project: 404 for the admin, 403 for other users", async () => {
    await expect(h.admin.members.list("no-such-project")).rejects.toMatchObject(
      harborError(404, "project no-such-project not found"),
    );
    const other = h.client(h.addUser("outsider"));
    await expect(other.members.list("no-such-project")).rejects.toMatchObject({ status: 403 });
  });
});

describe("create, get, update, delete", () => {
  test("a user and a group by id; get, role change, delete", async () => {
    const p = await newProject();
    const user = h.addUser("crud-user");
    const userId = (await h.admin.users.search("crud-user"))[0]?.user_id as number;
    const mid = await h.admin.members.create(p.name, {
      role_id: ProjectRole.maintainer,
      member_user: { user_id: userId },
    });
    const created = await h.raw("POST", `/projects/${p.id}/members`, {
      role_id: 2,
      member_group: { id: await h.admin.userGroups.create({ group_name: "crud-g", group_type: 3 }) },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toMatch(
      new RegExp(`^/api/v2\\.0/projects/${p.id}/members/\\d+$`),
    );
    expect(await h.admin.members.get(p.name, mid)).toEqual({
      id: mid,
      project_id: p.id,
      entity_name: user.username,
      role_name: "maintainer",
      role_id: 4,
      entity_id: userId,
      entity_type: "u",
    });
    await h.admin.members.updateRole(p.name, mid, ProjectRole.limitedGuest);
    expect((await h.admin.members.get(p.id, mid)).role_name).toBe("limitedGuest");
    await h.admin.members.delete(p.name, mid);
    await expect(h.admin.members.get(p.name, mid)).rejects.toMatchObject(
      harborError(404, `the project member is not found, project id ${p.id}, member id ${mid}`),
    );
    // Delete is 200 again, for a member that is not there.
    await expect(h.admin.members.delete(p.name, mid)).resolves.toBeUndefined();
  });

  test("the member's role decides what the user may do in the project", async () => {
    const p = await newProject();
    const login = h.addUser("role-user");
    const client = h.client(login);
    await expect(client.members.list(p.name)).rejects.toMatchObject({ status: 403 });
    const userId = (await h.admin.users.search("role-user"))[0]?.user_id as number;
    const mid = await h.admin.members.create(p.id, { role_id: 3, member_user: { user_id: userId } });
    expect((await client.members.list(p.name)).length).toBe(2); // guests may list members
    await expect(client.members.delete(p.name, mid)).rejects.toMatchObject({ status: 403 });
  });

  test("update and delete of another project's member: 200, and nothing changes", async () => {
    const a = await newProject();
    const b = await newProject();
    const [adminOfA] = await h.admin.members.list(a.id);
    const mid = adminOfA?.id as number;
    await h.admin.members.updateRole(b.id, mid, ProjectRole.guest);
    await h.admin.members.delete(b.id, mid);
    expect(await h.admin.members.get(a.id, mid)).toMatchObject({ role_id: 1 });
    await expect(h.admin.members.get(b.id, mid)).rejects.toMatchObject({ status: 404 });
  });

  test("a member twice is 409; unknown ids and roles are 400", async () => {
    const p = await newProject();
    await expect(
      h.admin.members.create(p.id, { role_id: 2, member_user: { user_id: 1 } }),
    ).rejects.toMatchObject(harborError(409, "The project member specified already exist"));
    await expect(
      h.admin.members.create(p.id, { role_id: 2, member_user: { user_id: 99999 } }),
    ).rejects.toMatchObject(harborError(400, "User 99999 not found"));
    await expect(
      h.admin.members.create(p.id, { role_id: 2, member_group: { id: 99999 } }),
    ).rejects.toMatchObject(harborError(400, "Group 99999 not found"));
    const user = h.addUser("bad-role");
    const id = (await h.admin.users.search(user.username))[0]?.user_id;
    const badRole = await h.api(`/projects/${p.id}/members`, {
      method: "POST",
      body: JSON.stringify({ role_id: 9, member_user: { user_id: id } }),
    });
    expect(badRole.status).toBe(400);
    expect(await onlyError(badRole)).toEqual({
      code: "BAD_REQUEST",
      message: "Failed to update project member, role is not in 1,2,3,4,5",
    });
    const nothing = await h.api(`/projects/${p.id}/members`, { method: "POST", body: "{}" });
    expect(await onlyError(nothing)).toEqual({
      code: "BAD_REQUEST",
      message: "at least one of member_user or member_group must be provided",
    });
    const noRole = await h.api(`/projects/${p.id}/members/1`, { method: "PUT" });
    expect(await onlyError(noRole)).toEqual({ code: "BAD_REQUEST", message: "role can not be empty" });
    // The client refuses a role Harbor does not have before sending anything.
    expect(() => h.admin.members.updateRole(p.id, 1, 7)).toThrow();
  });
});

describe("members by name: Harbor's side effects", () => {
  beforeAll(() => {
    h.emulator.control.ldap.addUser({ uid: "lisa", email: "lisa@example.com" });
    h.emulator.control.ldap.addGroup({ name: "ldap-devs" });
  });

  test("a user name in db_auth mode that Harbor does not know is 404", async () => {
    const p = await newProject();
    const res = await h.api(`/projects/${p.id}/members`, {
      method: "POST",
      body: JSON.stringify({ role_id: 2, member_user: { username: "lisa" } }),
    });
    expect(res.status).toBe(404);
    expect((await h.admin.users.search("lisa")).length).toBe(0);
  });

  test("in LDAP mode a user name onboards the LDAP user; a DN or group name creates a group", async () => {
    h.emulator.control.ldap.setAuthMode("ldap");
    try {
      const p = await newProject();
      const byName = await h.api(`/projects/${p.id}/members`, {
        method: "POST",
        body: JSON.stringify({ role_id: 2, member_user: { username: "lisa" } }),
      });
      expect(byName.status).toBe(201);
      expect((await h.admin.users.search("lisa")).map((u) => u.username)).toEqual(["lisa"]);

      const groupsBefore = h.emulator.control.userGroups.list().length;
      const dn = "cn=ldap-devs,ou=groups,dc=example,dc=com";
      const byDn = await h.api(`/projects/${p.id}/members`, {
        method: "POST",
        body: JSON.stringify({ role_id: 3, member_group: { ldap_group_dn: dn, group_name: "Devs" } }),
      });
      expect(byDn.status).toBe(201);
      const groups = h.emulator.control.userGroups.list();
      expect(groups.length).toBe(groupsBefore + 1); // the side effect: a group nobody asked for
      expect(groups.at(-1)).toMatchObject({ group_name: "Devs", group_type: 1, ldap_group_dn: dn });
    } finally {
      h.emulator.control.ldap.setAuthMode("db");
    }
  });

  test("in OIDC mode an unknown group name becomes an OIDC group", async () => {
    h.emulator.control.ldap.setAuthMode("oidc");
    try {
      const p = await newProject();
      const res = await h.api(`/projects/${p.id}/members`, {
        method: "POST",
        body: JSON.stringify({ role_id: 2, member_group: { group_name: "oidc-implicit", group_type: 3 } }),
      });
      expect(res.status).toBe(201);
      expect(
        h.emulator.control.userGroups.list().find((g) => g.group_name === "oidc-implicit"),
      ).toMatchObject({
        group_type: 3,
      });
    } finally {
      h.emulator.control.ldap.setAuthMode("db");
    }
  });

  test("deleting a group deletes its memberships in every project", async () => {
    const a = await newProject();
    const b = await newProject();
    const g = await h.admin.userGroups.create({ group_name: "everywhere", group_type: 2 });
    await h.admin.members.create(a.id, { role_id: 2, member_group: { id: g } });
    await h.admin.members.create(b.id, { role_id: 4, member_group: { id: g } });
    expect(h.emulator.control.userGroups.memberships(g)).toEqual({ [a.name]: 2, [b.name]: 4 });
    await h.admin.userGroups.delete(g);
    expect((await h.admin.members.list(a.id)).map((m) => m.entity_type)).toEqual(["u"]);
    expect((await h.admin.members.list(b.id)).map((m) => m.entity_type)).toEqual(["u"]);
  });

  test("deleting a project deletes its members", async () => {
    const p = await newProject();
    await h.admin.projects.delete(p.id);
    expect(() => h.emulator.control.members.list(p.name)).toThrow(/no project/);
  });
});

describe("user search", () => {
  test("any signed-in user; fuzzy and case-insensitive; every page", async () => {
    for (let i = 0; i < 12; i++) h.addUser(`searchable-${i}`);
    const login = h.addUser("plain-searcher");
    const found = await h.client(login).users.search("SEARCHABLE-");
    expect(found.map((u) => u.username).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `searchable-${i}`).sort(),
    );
    expect(found.every((u) => typeof u.user_id === "number")).toBe(true);
    const anonymous = await h.api("/users/search?username=a", { as: "anonymous" });
    expect(anonymous.status).toBe(401);
    const missing = await h.api("/users/search");
    expect(missing.status).toBe(422);
    const none = await h.api("/users/search?username=nobody-at-all");
    expect(none.headers.get("x-total-count")).toBe("0");
    expect(none.headers.get("link")).toBeNull();
    expect(await none.json()).toEqual([]);
  });
});
