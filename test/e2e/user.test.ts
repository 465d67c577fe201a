// HarborUser end to end: a local user created with a generated password written into a Secret the
// resource owns, or with the password of an opted-in Secret (a changed Secret sets the new one),
// profile and admin flag applied and put back when changed in Harbor, an existing user refused
// under Create and adopted under CreateOrAdopt, one resource per user, bad input (admin included)
// refused by kubectl, a clear Stalled reason outside db_auth, and deletion deleting the user.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { condition, readyForSpec, secret, stalled, type UserCR, user } from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "users" });
const KIND = "harboruser";

const secretValue = async (name: string, key: string): Promise<string | undefined> => {
  const r = await op.kubectl.tryRun(["get", "secret", name, "-o", `jsonpath={.data.${key}}`]);
  return r.code === 0 && r.stdout ? Buffer.from(r.stdout, "base64").toString("utf8") : undefined;
};
const logsIn = (username: string, password: string) =>
  op.emulator.control.users.verifyPassword(username, password);

describe("HarborUser", () => {
  test("apply → the user with a generated password, written into a Secret the resource owns", async () => {
    await op.kubectl.apply(user("alice", { email: "alice@example.com", realname: "Alice", comment: "dev" }));
    const cr = await op.waitReady<UserCR>(KIND, "alice");
    const password = await secretValue("alice-harbor-user", "password");
    expect(password).toBeDefined();
    expect(await secretValue("alice-harbor-user", "username")).toBe("alice");
    expect(logsIn("alice", password ?? "")).toBe(true);
    const u = await op.harbor.users.byName("alice");
    expect(u).toMatchObject({
      email: "alice@example.com",
      realname: "Alice",
      comment: "dev",
      sysadmin_flag: false,
    });
    expect(cr.status).toMatchObject({
      harborId: u?.user_id,
      admin: false,
      passwordSecret: "alice-harbor-user",
    });
    expect(cr.status?.passwordHash).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(cr)).not.toContain(password);
    const table = await op.kubectl.run(["get", "harborusers"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+EMAIL\s+ADMIN\s+AGE/);
  });

  test("a deleted generated Secret gets a new password, set in Harbor within a drift interval", async () => {
    const old = (await secretValue("alice-harbor-user", "password")) ?? "";
    await op.kubectl.delete("secret", "alice-harbor-user");
    const deadline = Date.now() + 20_000;
    let fresh: string | undefined;
    for (;;) {
      fresh = await secretValue("alice-harbor-user", "password");
      if (fresh && fresh !== old && logsIn("alice", fresh)) break;
      if (Date.now() > deadline) throw new Error("no new password was set");
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(logsIn("alice", old)).toBe(false);
  });

  test("a password from an opted-in Secret; a changed Secret sets the new password", async () => {
    await op.kubectl.apply(
      secret("bob-pw", { password: "Bob-pw-123" }, { watched: true, usableAs: "harbor-user-password" }),
    );
    await op.kubectl.apply(
      user("bob", { email: "bob@example.com", admin: true, passwordSecretRef: { name: "bob-pw" } }),
    );
    await op.waitReady<UserCR>(KIND, "bob");
    expect(logsIn("bob", "Bob-pw-123")).toBe(true);
    expect((await op.harbor.users.byName("bob"))?.sysadmin_flag).toBe(true);

    await op.kubectl.apply(
      secret("bob-pw", { password: "Bob-pw-456" }, { watched: true, usableAs: "harbor-user-password" }),
    );
    const deadline = Date.now() + 20_000;
    while (!logsIn("bob", "Bob-pw-456")) {
      if (Date.now() > deadline) throw new Error("the new password was not set");
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  test("a Secret that does not opt in, or holds a password Harbor refuses, is a wait with a clear reason", async () => {
    await op.kubectl.apply(secret("weak-pw", { password: "weak" }, { watched: true }));
    await op.kubectl.apply(
      user("weak", { email: "weak@example.com", passwordSecretRef: { name: "weak-pw" } }),
    );
    const refused = await op.waitFor<UserCR>(
      KIND,
      "weak",
      (o) => condition(o, "Ready")?.reason === "SecretNotAllowed",
    );
    expect(condition(refused, "Ready")?.message).toContain("harborconfig.io/usable-as=harbor-user-password");
    await op.kubectl.apply(
      secret("weak-pw", { password: "weak" }, { watched: true, usableAs: "harbor-user-password" }),
    );
    const invalid = await op.waitFor<UserCR>(
      KIND,
      "weak",
      (o) => condition(o, "Ready")?.reason === "SecretInvalid",
    );
    expect(condition(invalid, "Ready")?.message).toContain("at least 8 characters");
    expect(await op.harbor.users.byName("weak")).toBeUndefined();
    await op.kubectl.delete(KIND, "weak", { wait: true });
  });

  test("a spec change is applied; a profile or admin flag changed in Harbor is put back and named", async () => {
    await op.kubectl.apply(
      user("alice", { email: "alice@corp.example.com", realname: "Alice", comment: "dev" }),
    );
    await op.waitFor<UserCR>(KIND, "alice", readyForSpec);
    const u = await op.harbor.users.byName("alice");
    expect(u?.email).toBe("alice@corp.example.com");

    await op.harbor.users.updateProfile(u?.user_id ?? 0, {
      email: "x@example.com",
      realname: "Alice",
      comment: "dev",
    });
    await op.harbor.users.setSysAdmin(u?.user_id ?? 0, true);
    const cr = await op.waitFor<UserCR>(
      KIND,
      "alice",
      (o) => (o.status?.lastDriftCorrection?.fields.length ?? 0) >= 2,
      20_000,
    );
    expect([...(cr.status?.lastDriftCorrection?.fields ?? [])].sort()).toEqual(["admin", "email"]);
    expect(await op.harbor.users.byName("alice")).toMatchObject({
      email: "alice@corp.example.com",
      sysadmin_flag: false,
    });
  });

  test("steady state: no writes, and one user list per drift interval", async () => {
    const before = op.emulator.counters.list();
    const writes = op.emulator.counters.writes();
    await new Promise((r) => setTimeout(r, 9_000));
    expect(op.emulator.counters.writes()).toBe(writes);
    const spent = op.emulator.counters.since(before);
    const own = Object.keys(spent).filter((o) => !["getSystemInfo", "getCurrentUserInfo"].includes(o));
    expect(own).toEqual(["listUsers"]);
    expect(spent.listUsers).toBeGreaterThanOrEqual(2);
    expect(spent.listUsers).toBeLessThanOrEqual(4);
  });

  test("an existing user: Create refuses it, CreateOrAdopt takes it over and sets its password", async () => {
    op.emulator.control.users.add({ username: "carol", password: "Carol-old-1" });
    await op.kubectl.apply(user("carol", { email: "carol@example.com" }));
    const refused = await op.waitFor<UserCR>(KIND, "carol", stalled);
    expect(condition(refused, "Ready")?.reason).toBe("AlreadyExists");
    await op.kubectl.apply(user("carol", { email: "carol@example.com", creationPolicy: "CreateOrAdopt" }));
    await op.waitFor<UserCR>(KIND, "carol", readyForSpec);
    const password = await secretValue("carol-harbor-user", "password");
    expect(logsIn("carol", password ?? "")).toBe(true);
    expect(logsIn("carol", "Carol-old-1")).toBe(false);
  });

  test("one resource per user: a second gets Conflict", async () => {
    await op.kubectl.apply(user("alice-again", { name: "alice", email: "other@example.com" }));
    const second = await op.waitFor<UserCR>(
      KIND,
      "alice-again",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(second, "Ready")?.message).toContain(`HarborUser ${op.namespace}/alice already manages`);
    expect((await op.harbor.users.byName("alice"))?.email).toBe("alice@corp.example.com");
    await op.kubectl.delete(KIND, "alice-again", { wait: true });
  });

  test("bad input is refused by kubectl, admin included", async () => {
    const rejected = async (name: string, spec: Record<string, unknown>) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], {
        input: JSON.stringify(user(name, spec as never)),
      });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected("x", { name: "admin", email: "a@example.com" })).toContain(
      "built-in administrator",
    );
    expect(await rejected("x", { email: "not-an-email" })).toMatch(/spec\.email/);
    expect(await rejected("x", { email: "x@example.com", comment: "c".repeat(31) })).toMatch(/spec\.comment/);
    expect(await rejected("x", { email: "x@example.com", realname: "a,b" })).toMatch(/spec\.realname/);
    expect(await rejected("x", { name: "has space", email: "x@example.com" })).toMatch(/spec\.name/);
  });

  test("outside db_auth: Stalled with a clear reason, nothing created", async () => {
    op.emulator.control.ldap.setAuthMode("ldap");
    try {
      await op.kubectl.apply(user("dave", { email: "dave@example.com" }));
      const cr = await op.waitFor<UserCR>(KIND, "dave", stalled);
      expect(condition(cr, "Ready")?.reason).toBe("NotDatabaseAuth");
      expect(condition(cr, "Ready")?.message).toContain("ldap_auth");
      expect(await op.harbor.users.byName("dave")).toBeUndefined();
    } finally {
      op.emulator.control.ldap.setAuthMode("db");
    }
    await op.kubectl.delete(KIND, "dave", { wait: true });
  });

  test("deletion deletes the user in Harbor", async () => {
    await op.kubectl.delete(KIND, "alice", { wait: true });
    expect(await op.harbor.users.byName("alice")).toBeUndefined();
    expect(await op.harbor.users.byName("bob")).toBeDefined();
    expect((await op.harbor.users.get(1)).username).toBe("admin");
  });
});
