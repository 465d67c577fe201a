// LDAP against the emulator's simulated directory: ping always answers 200 and reports failures in
// its message; user search and import use the server's own configuration; import answers 404 with
// the list of failures; group search finds one group by name or DN and is 404 when nothing matches.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { harborError, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();
const ldap = () => h.emulator.control.ldap;

const GOOD = {
  ldap_url: "ldap://ldap.example.com",
  ldap_search_dn: "cn=admin,dc=example,dc=com",
  ldap_search_password: "ldap-admin-password",
  ldap_base_dn: "dc=example,dc=com",
  ldap_uid: "uid",
  ldap_scope: 2,
};

beforeAll(() => {
  ldap().addUser({
    uid: "alice",
    realname: "Alice Liddell",
    email: "alice@example.com",
    password: "Alice-pw1",
  });
  ldap().addUser({ uid: "bob", email: "bob@example.com" });
  ldap().addUser({ uid: "carol", email: "alice@example.com" }); // shares alice's email
  ldap().addGroup({ name: "developers" });
  ldap().addGroup({ name: "ops", dn: "cn=ops,ou=groups,dc=example,dc=com" });
});

describe("ping", () => {
  test("a working configuration: 200 with success and no message", async () => {
    expect(await h.admin.ldap.ping(GOOD)).toEqual({ success: true });
  });

  test.each([
    ["a wrong password", { ldap_search_password: "wrong" }, "error: invalid credential"],
    ["an unknown search DN", { ldap_search_dn: "cn=nobody,dc=example,dc=com" }, "error: invalid credential"],
    ["no search DN", { ldap_search_dn: "" }, "error: empty base dn"],
    ["another host", { ldap_url: "ldap://other.example.com" }, "error: ldap server network timeout"],
    [
      "a scheme LDAP does not speak",
      { ldap_url: "http://ldap.example.com" },
      "error: fail to ping LDAP server",
    ],
  ])("%s: still 200, success omitted, the reason in the message", async (_what, change, message) => {
    const res = await h.api("/ldap/ping", { method: "POST", body: JSON.stringify({ ...GOOD, ...change }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message });
  });

  test("the default port of the scheme is implied", async () => {
    expect(await h.admin.ldap.ping({ ...GOOD, ldap_url: "ldap.example.com:389" })).toEqual({ success: true });
  });

  test("a scheme-less ip:port does not parse (Go's url.Parse): the ping fails", async () => {
    ldap().configure({ url: "ldap://10.0.0.1:389" });
    try {
      // The same server with its scheme answers…
      expect(await h.admin.ldap.ping({ ...GOOD, ldap_url: "ldap://10.0.0.1:389" })).toEqual({
        success: true,
      });
      // …without it, Harbor cannot even parse the address.
      const res = await h.api("/ldap/ping", {
        method: "POST",
        body: JSON.stringify({ ...GOOD, ldap_url: "10.0.0.1:389" }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ message: "error: fail to ping LDAP server" });
    } finally {
      ldap().configure({ url: "ldap://ldap.example.com" });
    }
  });

  test("an empty password falls back to the stored one only in LDAP auth mode", async () => {
    const conf = { ...GOOD, ldap_search_password: "" };
    expect(await h.admin.ldap.ping(conf)).toEqual({ message: "error: empty password" });
    ldap().setAuthMode("ldap");
    try {
      expect(await h.admin.ldap.ping(conf)).toEqual({ success: true });
    } finally {
      ldap().setAuthMode("db");
    }
  });

  test("an unreachable server, or an untrusted certificate under ldaps with verification", async () => {
    ldap().configure({ reachable: false });
    expect(await h.admin.ldap.ping(GOOD)).toEqual({ message: "error: ldap server network timeout" });
    ldap().configure({ reachable: true, url: "ldaps://ldap.example.com", certTrusted: false });
    try {
      const ldaps = { ...GOOD, ldap_url: "ldaps://ldap.example.com" };
      expect(await h.admin.ldap.ping({ ...ldaps, ldap_verify_cert: true })).toEqual({
        message: "error: ldap server network timeout",
      });
      expect(await h.admin.ldap.ping({ ...ldaps, ldap_verify_cert: false })).toEqual({ success: true });
    } finally {
      ldap().configure({ url: "ldap://ldap.example.com", certTrusted: true });
    }
  });

  test("the search password never appears in the control API's view of the server", () => {
    expect(JSON.stringify(ldap().configure({}))).not.toContain("ldap-admin-password");
  });
});

describe("user search", () => {
  test("by uid (any case), every user without one, nothing for an unknown uid", async () => {
    expect(await h.admin.ldap.searchUsers("ALICE")).toEqual([
      { username: "alice", realname: "Alice Liddell", email: "alice@example.com" },
    ]);
    expect((await h.admin.ldap.searchUsers()).map((u) => u.username).sort()).toEqual([
      "alice",
      "bob",
      "carol",
    ]);
    expect(await h.admin.ldap.searchUsers("nobody")).toEqual([]);
  });

  test("uses the server's configuration: an unreachable directory is Harbor's masked 500", async () => {
    const noRetry = h.client({ maxRetries: 0 });
    ldap().configure({ reachable: false });
    try {
      await expect(noRetry.ldap.searchUsers("alice")).rejects.toMatchObject(
        harborError(500, "internal server error"),
      );
      await expect(noRetry.ldap.importUsers(["alice"])).rejects.toMatchObject({ status: 500 });
    } finally {
      ldap().configure({ reachable: true });
    }
  });
});

describe("user import", () => {
  test("in db_auth mode every user fails: onboarding goes through the database authenticator", async () => {
    const res = await h.api("/ldap/users/import", {
      method: "POST",
      body: JSON.stringify({ ldap_uid_list: ["bob", "ghost"] }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual([
      { uid: "bob", error: "failed to import user: bob" },
      { uid: "ghost", error: "unknown_user" },
    ]);
    expect(h.emulator.world.identities.byName("bob")).toBeUndefined();
  });
});

describe("user import in ldap_auth mode", () => {
  beforeAll(() => ldap().setAuthMode("ldap"));
  afterAll(() => ldap().setAuthMode("db"));

  test("success: 200 with no body; the user is a Harbor user from LDAP who can sign in", async () => {
    const res = await h.api("/ldap/users/import", {
      method: "POST",
      body: JSON.stringify({ ldap_uid_list: ["alice"] }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    const user = h.emulator.world.identities.byName("alice");
    expect(user).toMatchObject({ source: "ldap", realname: "Alice Liddell", email: "alice@example.com" });
    // The directory password works for basic auth.
    const alice = h.client({ username: "alice", password: "Alice-pw1" });
    await expect(alice.userGroups.search("x")).resolves.toEqual([]);
  });

  test("importing an existing user again counts as success", async () => {
    expect(await h.admin.ldap.importUsers(["alice", "bob"])).toEqual([]);
    expect(await h.admin.ldap.importUsers(["bob"])).toEqual([]);
  });

  test("failures: 404 with one entry per uid that could not be imported", async () => {
    const res = await h.api("/ldap/users/import", {
      method: "POST",
      body: JSON.stringify({ ldap_uid_list: ["", "ghost", "carol", "bob"] }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual([
      { error: "empty_uid" }, // an empty uid is omitted
      { uid: "ghost", error: "unknown_user" },
      { uid: "carol", error: "failed to import user: carol" }, // alice already has that email
    ]);
    expect(h.emulator.world.identities.byName("carol")).toBeUndefined();
  });

  test("the client returns the failure list instead of throwing", async () => {
    expect(await h.admin.ldap.importUsers(["ghost"])).toEqual([{ uid: "ghost", error: "unknown_user" }]);
  });

  test("imports are audited", () => {
    const created = h.emulator.control.audit
      .list()
      .filter((e) => e.resource_type === "user" && e.operation === "create");
    expect(created.map((e) => e.resource)).toContain("alice");
  });
});

describe("group search", () => {
  test("by name (any case): only group_name and ldap_group_dn", async () => {
    const raw = await h.api("/ldap/groups/search?groupname=Developers");
    expect(await raw.json()).toEqual([
      { group_name: "developers", ldap_group_dn: "cn=developers,ou=groups,dc=example,dc=com" },
    ]);
  });

  test("by DN, compared without regard to case or spaces; the name wins over the DN", async () => {
    expect(await h.admin.ldap.searchGroups({ groupDn: "CN=ops, OU=groups, DC=example, DC=com" })).toEqual([
      { group_name: "ops", ldap_group_dn: "cn=ops,ou=groups,dc=example,dc=com" },
    ]);
    const both = await h.admin.ldap.searchGroups({
      groupName: "developers",
      groupDn: "cn=ops,ou=groups,dc=example,dc=com",
    });
    expect(both.map((g) => g.group_name)).toEqual(["developers"]);
  });

  test("no match is 404 with the search terms in the message", async () => {
    await expect(h.admin.ldap.searchGroups({ groupName: "nope" })).rejects.toMatchObject(
      harborError(404, "resource not found: group name:nope, group DN:"),
    );
    // A DN outside the group base finds nothing either.
    await expect(h.admin.ldap.searchGroups({ groupDn: "cn=x,dc=other,dc=org" })).rejects.toMatchObject({
      status: 404,
    });
  });

  test("a malformed DN, or a missing entry under the group base, is a 500 in Harbor", async () => {
    const noRetry = h.client({ maxRetries: 0 });
    await expect(noRetry.ldap.searchGroups({ groupDn: "not a dn" })).rejects.toMatchObject({ status: 500 });
    await expect(
      noRetry.ldap.searchGroups({ groupDn: "cn=ghosts,ou=groups,dc=example,dc=com" }),
    ).rejects.toMatchObject({ status: 500 });
  });
});

describe("errors and permissions", () => {
  test("ping without a body panics inside Harbor: 500 with an empty body, no Content-Type", async () => {
    const res = await h.raw("POST", "/ldap/ping");
    expect(res.status).toBe(500);
    expect(res.text).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
  });

  test("import needs a body (422)", async () => {
    const res = await h.api("/ldap/users/import", { method: "POST" });
    expect(res.status).toBe(422);
  });

  test("every LDAP operation is system-level: 403 with the username", async () => {
    const eve = h.client(h.addUser("eve"));
    for (const call of [
      () => eve.ldap.ping(GOOD),
      () => eve.ldap.searchUsers(),
      () => eve.ldap.importUsers(["bob"]),
      () => eve.ldap.searchGroups({ groupName: "ops" }),
    ]) {
      await expect(call()).rejects.toMatchObject({ kind: "forbidden", status: 403, harborMessage: "eve" });
    }
  });

  test("the search password is scrubbed from client errors", async () => {
    h.emulator.control.faults.add({ op: "pingLdap", status: 400, times: 1 });
    const err = await h
      .client({ maxRetries: 0 })
      .ldap.ping(GOOD)
      .catch((e: unknown) => e);
    expect(String((err as Error).message)).not.toContain("ldap-admin-password");
  });
});
