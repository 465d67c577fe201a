// User groups: create/get/update/delete with Harbor's quirks (bare 400s, GET without id, idempotent
// delete), LDAP groups checked against the directory in LDAP mode only, the list filtered by auth
// mode, and search open to every signed-in user with the best match first.
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { UserGroupType } from "../../../src/harbor/user-group.ts";
import { harborError, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();
const DN = "cn=Platform,ou=groups,dc=example,dc=com";

beforeAll(() => {
  h.emulator.control.ldap.addGroup({ name: "platform", dn: DN });
});
afterEach(() => {
  h.emulator.control.ldap.setAuthMode("db");
});

describe("lifecycle", () => {
  test("create, get (without id), list, rename, delete", async () => {
    const res = await h.api("/usergroups", {
      method: "POST",
      body: JSON.stringify({ group_name: "web", group_type: 2 }),
    });
    expect(res.status).toBe(201);
    const location = res.headers.get("location") as string;
    expect(location).toMatch(/^\/api\/v2\.0\/usergroups\/\d+$/);
    const id = Number(location.split("/").pop());

    const raw = (await (await h.api(`/usergroups/${id}`)).json()) as Record<string, unknown>;
    expect(raw).toEqual({ group_name: "web", group_type: 2 }); // no id, empty DN omitted
    expect(await h.admin.userGroups.get(id)).toEqual({ group_name: "web", group_type: 2 });

    expect(await h.admin.userGroups.list()).toContainEqual({ id, group_name: "web", group_type: 2 });

    await h.admin.userGroups.update(id, { group_name: "webteam" });
    expect((await h.admin.userGroups.get(id)).group_name).toBe("webteam");

    await h.admin.userGroups.delete(id);
    await expect(h.admin.userGroups.get(id)).rejects.toMatchObject(
      harborError(404, `the user group with id ${id} is not found`),
    );
  });

  test("delete is idempotent: 200 for an id that does not exist", async () => {
    await expect(h.admin.userGroups.delete(987654)).resolves.toBeUndefined();
    const res = await h.api("/usergroups/987654", { method: "DELETE" });
    expect(res.status).toBe(200);
  });

  test("delete removes the group's project memberships", async () => {
    const id = await h.admin.userGroups.create({ group_name: "auditors", group_type: UserGroupType.oidc });
    h.emulator.control.userGroups.addToProject(id, "library", 3);
    expect(h.emulator.control.userGroups.memberships(id)).toEqual({ library: 3 });
    await h.admin.userGroups.delete(id);
    expect(h.emulator.control.userGroups.memberships(id)).toEqual({});
  });

  test("writes are audited", async () => {
    const id = await h.admin.userGroups.create({ group_name: "audited", group_type: 2 });
    await h.admin.userGroups.delete(id);
    const ops = h.emulator.control.audit
      .list()
      .filter((e) => e.resource_type === "user_group" && e.resource === "audited")
      .map((e) => e.operation);
    expect(ops).toEqual(["create", "delete"]);
  });
});

describe("validation", () => {
  test.each([
    ["no body", undefined],
    ["no group_name", JSON.stringify({ group_type: 2 })],
    ["an empty group_name", JSON.stringify({ group_name: "", group_type: 2 })],
  ])("create with %s: 400 with no body at all", async (_what, body) => {
    const res = await h.api("/usergroups", { method: "POST", ...(body ? { body } : {}) });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
  });

  test("the client surfaces a bare 400 as invalid, without Harbor code or message", async () => {
    const id = await h.admin.userGroups.create({ group_name: "bare", group_type: 2 });
    const err = await h.admin.transport
      .noContent({ operation: "updateUserGroup", method: "PUT", path: `/usergroups/${id}`, body: {} })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "invalid", status: 400, code: undefined, harborMessage: undefined });
  });

  test("a duplicate name and type is 409 with Harbor's message", async () => {
    await h.admin.userGroups.create({ group_name: "dup", group_type: 3 });
    await expect(h.admin.userGroups.create({ group_name: "dup", group_type: 3 })).rejects.toMatchObject(
      harborError(409, "duplicate user group, group name:dup, group type: 3, ldap group DN: "),
    );
  });

  test("the name of an HTTP group is taken for every type", async () => {
    await h.admin.userGroups.create({ group_name: "shared", group_type: UserGroupType.oidc }); // fine
    await h.admin.userGroups.create({ group_name: "shared", group_type: UserGroupType.http });
    await expect(
      h.admin.userGroups.create({ group_name: "shared", group_type: UserGroupType.oidc }),
    ).rejects.toMatchObject({
      status: 409,
      harborMessage: "duplicate user group, group name:shared, group type: 3, ldap group DN: ",
    });
    const other = await h.api("/usergroups", {
      method: "POST",
      body: JSON.stringify({ group_name: "shared", group_type: 4 }),
    });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { errors: Array<{ message: string }> }).errors[0]?.message).toBe(
      "duplicated user group name",
    );
  });

  test("ids below 1: get and delete say so, update answers a bare 400", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await h.api("/usergroups/0", { method });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        errors: [{ code: "BAD_REQUEST", message: "the group id should be provided" }],
      });
    }
    const put = await h.api("/usergroups/0", { method: "PUT", body: JSON.stringify({ group_name: "x" }) });
    expect(put.status).toBe(400);
    expect(await put.text()).toBe("");
    const notInt = await h.api("/usergroups/abc");
    expect(notInt.status).toBe(422);
  });

  test("renaming an unknown group is 404", async () => {
    await expect(h.admin.userGroups.update(424242, { group_name: "x" })).rejects.toMatchObject({
      status: 404,
      harborMessage: "the user group with id 424242 is not found",
    });
  });
});

describe("LDAP groups", () => {
  test("outside LDAP auth mode no LDAP group can be created", async () => {
    await expect(
      h.admin.userGroups.create({
        group_name: "platform",
        group_type: UserGroupType.ldap,
        ldap_group_dn: DN,
      }),
    ).rejects.toMatchObject({
      kind: "invalid",
      status: 400,
      harborMessage: `LDAP Group DN is not found: DN:${DN}`,
    });
  });

  test("in LDAP mode the DN must exist in the directory; it is stored lower-cased", async () => {
    h.emulator.control.ldap.setAuthMode("ldap");
    const id = await h.admin.userGroups.create({
      group_name: "platform",
      group_type: 1,
      ldap_group_dn: ` ${DN} `,
    });
    expect(await h.admin.userGroups.get(id)).toEqual({
      group_name: "platform",
      group_type: 1,
      ldap_group_dn: DN.toLowerCase(),
    });
    for (const dn of ["cn=ghosts,ou=groups,dc=example,dc=com", "not a dn"]) {
      await expect(
        h.admin.userGroups.create({ group_name: "ghosts", group_type: 1, ldap_group_dn: dn }),
      ).rejects.toMatchObject({ status: 400, harborMessage: `LDAP Group DN is not found: DN:${dn}` });
    }
  });
});

describe("list", () => {
  test("filtered by auth mode: LDAP groups in ldap mode, HTTP groups in http mode, all otherwise", async () => {
    const all = await h.admin.userGroups.list();
    const types = new Set(all.map((g) => g.group_type));
    expect(types).toEqual(new Set([1, 2, 3]));

    h.emulator.control.ldap.setAuthMode("ldap");
    expect(new Set((await h.admin.userGroups.list()).map((g) => g.group_type))).toEqual(new Set([1]));
    h.emulator.control.ldap.setAuthMode("http");
    expect(new Set((await h.admin.userGroups.list()).map((g) => g.group_type))).toEqual(new Set([2]));
    h.emulator.control.ldap.setAuthMode("oidc");
    expect(await h.admin.userGroups.list()).toHaveLength(all.length);
  });

  test("group_name matches fuzzily; ldap_group_dn only filters in LDAP mode", async () => {
    expect((await h.admin.userGroups.list({ groupName: "HARE" })).map((g) => g.group_name)).toEqual([
      "shared",
      "shared",
    ]);
    const byDn = await h.admin.userGroups.list({ ldapGroupDn: "cn=nothing" });
    expect(byDn.length).toBeGreaterThan(0); // ignored outside LDAP mode
    h.emulator.control.ldap.setAuthMode("ldap");
    expect(await h.admin.userGroups.list({ ldapGroupDn: "cn=nothing" })).toEqual([]);
    expect(
      (await h.admin.userGroups.list({ ldapGroupDn: DN.toLowerCase() })).map((g) => g.group_name),
    ).toEqual(["platform"]);
  });

  test("paging headers; no Link when nothing matches; q and sort are not part of this list", async () => {
    const res = await h.api("/usergroups?page_size=1&group_name=shared");
    expect(res.headers.get("x-total-count")).toBe("2");
    expect(res.headers.get("link")).toBe(
      '</api/v2.0/usergroups?group_name=shared&page=2&page_size=1>; rel="next"',
    );
    const none = await h.api("/usergroups?group_name=zzz&page=2");
    expect(none.headers.get("x-total-count")).toBe("0");
    expect(none.headers.get("link")).toBeNull();
    expect(await none.json()).toEqual([]);
    const withQ = await h.api("/usergroups?q=group_name%3Dnothing");
    expect(Number(withQ.headers.get("x-total-count"))).toBeGreaterThan(0);
  });
});

describe("search", () => {
  test("any signed-in user may search; the best match comes first", async () => {
    for (const name of ["ops-team", "ops", "devops", "sre-ops", "Ops2"]) {
      await h.admin.userGroups.create({ group_name: name, group_type: 3 });
    }
    const dana = h.client(h.addUser("dana", "Dana1234"));
    const found = await dana.userGroups.search("ops");
    expect(found.map((g) => g.group_name)).toEqual(["ops", "Ops2", "devops", "sre-ops", "ops-team"]);
    expect(Object.keys(found[0] ?? {}).sort()).toEqual(["group_name", "group_type", "id"]);
  });

  test("groupname is required (422); anonymous callers get 401", async () => {
    const missing = await h.api("/usergroups/search");
    expect(missing.status).toBe(422);
    const anonymous = await fetch(`${h.emulator.url}/api/v2.0/usergroups/search?groupname=ops`);
    expect(anonymous.status).toBe(401);
  });
});

describe("permissions", () => {
  test("everything but search is system-level: 403 with the username", async () => {
    const max = h.client(h.addUser("max"));
    for (const call of [
      () => max.userGroups.list(),
      () => max.userGroups.create({ group_name: "x", group_type: 2 }),
      () => max.userGroups.get(1),
      () => max.userGroups.update(1, { group_name: "y" }),
      () => max.userGroups.delete(1),
    ]) {
      await expect(call()).rejects.toMatchObject({ kind: "forbidden", status: 403, harborMessage: "max" });
    }
  });
});
