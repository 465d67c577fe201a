// HarborUser end to end: a local user created with a generated password written into a Secret the
// resource owns (a deleted Secret gets a new password), or with the password of an opted-in Secret
// (a changed Secret sets the new one, one Harbor refuses is a wait), profile and admin flag applied
// and put back when changed in Harbor, an existing user taken over with a password of its own, the
// drift sweep's cost, a clear Stalled reason outside db_auth, and deletion deleting the user. What
// every kind does alike (creationPolicy, one resource per user, a Secret that does not opt in) is
// proven in test/unit/runtime/managed-lifecycle.test.ts, with the kind's own claim, identity and
// tenancy check in test/unit/controllers/configuration-user-mapping.test.ts; admission refusals in
// test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { clusterApi } from "../env/kube-api.ts";
import { useOperator } from "../env/operator.ts";
import { requestsOverSweeps } from "../env/operator-log.ts";
import {
  condition,
  readyForSpec,
  type SecretObject,
  secret,
  stalled,
  type UserCR,
  user,
} from "../env/resources.ts";
import { until, untilTrue } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "users" });
const KIND = "harboruser";

/** A value of a Secret in the namespace, or undefined while there is no such Secret or key. */
const secretValue = async (name: string, key: string): Promise<string | undefined> => {
  const s = await clusterApi(op.kubectl.kubeconfigPath).find<SecretObject>("secret", op.namespace, name);
  const value = s?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");
};
const logsIn = (username: string, password: string) =>
  op.emulator.control.users.verifyPassword(username, password);
const password = (name: string, value: string) =>
  secret(name, { password: value }, { watched: true, usableAs: "harbor-user-password" });

describe("HarborUser", () => {
  test("apply → the user with a generated password in a Secret the resource owns; a spec change is applied; a profile or admin flag changed in Harbor is put back and named", async () => {
    await op.kubectl.apply(user("alice", { email: "alice@example.com", realname: "Alice", comment: "dev" }));
    const cr = await op.waitReady<UserCR>(KIND, "alice");
    const generated = (await secretValue("alice-harbor-user", "password")) ?? "";
    expect(generated).not.toBe("");
    expect(await secretValue("alice-harbor-user", "username")).toBe("alice");
    expect(logsIn("alice", generated)).toBe(true);
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
    // Which password was set: the generated Secret's version, nothing derived from the password.
    const written = await op.kubectl.get<{ metadata: { resourceVersion: string } }>(
      "secret",
      "alice-harbor-user",
    );
    expect(cr.status?.passwordSecretVersion).toBe(written.metadata.resourceVersion);
    expect(cr.status?.passwordHash).toBeUndefined();
    expect(JSON.stringify(cr)).not.toContain(generated);
    const table = await op.kubectl.run(["get", "harborusers"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+EMAIL\s+ADMIN\s+AGE/);

    await op.kubectl.apply(
      user("alice", { email: "alice@corp.example.com", realname: "Alice", comment: "dev" }),
    );
    await op.waitFor<UserCR>(KIND, "alice", readyForSpec);
    expect((await op.harbor.users.byName("alice"))?.email).toBe("alice@corp.example.com");

    // Both changes at once, in Harbor's own records (the emulator serves requests on this process's
    // event loop, so no read falls in between): a drift sweep that listed the users between two API
    // calls would put them back in two passes, and the last correction would name one field only.
    const alice = op.emulator.world.identities.byName("alice");
    expect(alice?.user_id).toBe(u?.user_id);
    if (alice) Object.assign(alice, { email: "x@example.com", sysadmin: true });
    const reverted = await op.waitFor<UserCR>(
      KIND,
      "alice",
      (o) => (o.status?.lastDriftCorrection?.fields.length ?? 0) >= 2,
    );
    expect([...(reverted.status?.lastDriftCorrection?.fields ?? [])].sort()).toEqual(["admin", "email"]);
    expect(await op.harbor.users.byName("alice")).toMatchObject({
      email: "alice@corp.example.com",
      sysadmin_flag: false,
    });
  });

  test("a deleted generated Secret gets a new password, set in Harbor", async () => {
    const old = (await secretValue("alice-harbor-user", "password")) ?? "";
    await op.kubectl.delete("secret", "alice-harbor-user");
    const fresh = await until("a new password that logs in", async () => {
      const now = await secretValue("alice-harbor-user", "password");
      return now && now !== old && logsIn("alice", now) ? now : undefined;
    });
    expect(fresh).not.toBe(old);
    expect(logsIn("alice", old)).toBe(false);
  });

  test("a password from an opted-in Secret; a changed Secret sets the new password", async () => {
    await op.kubectl.apply(password("bob-pw", "Bob-pw-123"));
    await op.kubectl.apply(
      user("bob", { email: "bob@example.com", admin: true, passwordSecretRef: { name: "bob-pw" } }),
    );
    await op.waitReady<UserCR>(KIND, "bob");
    expect(logsIn("bob", "Bob-pw-123")).toBe(true);
    expect((await op.harbor.users.byName("bob"))?.sysadmin_flag).toBe(true);

    await op.kubectl.apply(password("bob-pw", "Bob-pw-456"));
    await untilTrue("the new password to log in", () => logsIn("bob", "Bob-pw-456"));
    expect(logsIn("bob", "Bob-pw-123")).toBe(false);
  });

  test("a Secret holding a password Harbor refuses is a wait with a clear reason, and no user is created", async () => {
    await op.kubectl.apply(password("weak-pw", "weak"));
    await op.kubectl.apply(
      user("weak", { email: "weak@example.com", passwordSecretRef: { name: "weak-pw" } }),
    );
    const invalid = await op.waitFor<UserCR>(
      KIND,
      "weak",
      (o) => condition(o, "Ready")?.reason === "SecretInvalid",
    );
    expect(condition(invalid, "Ready")?.message).toContain("at least 8 characters");
    expect(condition(invalid, "Ready")?.message).not.toContain('weak"');
    expect(await op.harbor.users.byName("weak")).toBeUndefined();
    await op.kubectl.delete(KIND, "weak", { wait: true });
  });

  test("steady state: a drift sweep lists the users once, and nothing is written", async () => {
    // One sweep first, so that no reconcile of the changes above is still reading.
    await op.sweeps("HarborUser", 1);
    // Counted from the operator's log between sweep lines (the connection's own health checks
    // aside): a snapshot of the emulator's counters could take in part of a sweep before or after.
    const writes = op.emulator.counters.writes();
    const spent = await requestsOverSweeps(op, "HarborUser", 2);
    expect(spent.writes).toBe(0);
    expect(op.emulator.counters.writes()).toBe(writes);
    expect(spent.requests).toEqual({ listUsers: 2 });
  });

  test("an existing user taken over (CreateOrAdopt) gets a generated password of its own; the old one no longer logs in", async () => {
    op.emulator.control.users.add({ username: "carol", password: "Carol-old-1" });
    await op.kubectl.apply(user("carol", { email: "carol@example.com", creationPolicy: "CreateOrAdopt" }));
    await op.waitReady<UserCR>(KIND, "carol");
    const generated = (await secretValue("carol-harbor-user", "password")) ?? "";
    expect(logsIn("carol", generated)).toBe(true);
    expect(logsIn("carol", "Carol-old-1")).toBe(false);
    expect((await op.harbor.users.byName("carol"))?.email).toBe("carol@example.com");
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
