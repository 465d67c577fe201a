// The system configuration, the system CVE allowlist, local users and the repositories listing, as
// the emulator answers them (Harbor 2.12's rules; see src/harbor/README.md, "System configuration
// and users").
import { describe, expect, test } from "vitest";
import { configItems } from "../../env/emulator/areas/configurations.ts";
import { harborFailure, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();

describe("configurations", () => {
  test("GET answers every user-scope setting with its default as {value, editable}, never a password", async () => {
    const res = await h.raw("GET", "/configurations");
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text) as Record<string, { value: unknown; editable: boolean }>;
    const keys = Object.keys(configItems(h.emulator.world.version)).filter(
      (k) => !["ldap_search_password", "oidc_client_secret"].includes(k),
    );
    expect(Object.keys(body).sort()).toEqual(keys.sort());
    expect(body.robot_name_prefix).toEqual({ value: "robot$", editable: true });
    expect(body.storage_per_project).toEqual({ value: -1, editable: true });
    expect(body.project_creation_restriction?.value).toBe("everyone");
    expect(body.token_expiration?.value).toBe(30);
    expect(res.text).not.toContain("ldap_search_password");
    expect(res.text).not.toContain("oidc_client_secret");
    expect(res.text).not.toContain("ldap-admin-password");
  });

  test("PUT takes plain values; a password is stored and never shown", async () => {
    await h.admin.system.updateConfigurations({
      token_expiration: 45,
      project_creation_restriction: "adminonly",
      oidc_client_secret: "Oidc-secret-1",
      banner_message: '{"message":"hi","type":"info","closable":false}',
    });
    const conf = await h.admin.system.getConfigurations();
    expect(conf.token_expiration?.value).toBe(45);
    expect(conf.project_creation_restriction?.value).toBe("adminonly");
    expect(h.emulator.control.configurations.get("oidc_client_secret")).toBe("Oidc-secret-1");
    expect(JSON.stringify(conf)).not.toContain("Oidc-secret-1");
    expect((await h.admin.system.getSystemInfo()).project_creation_restriction).toBe("adminonly");
    // adminonly: a plain user may no longer create projects.
    const u = h.addUser("maker");
    const e = await harborFailure(h.client(u).projects.create({ project_name: "by-maker" }));
    expect(e).toMatchObject({ status: 403 });
    await h.admin.system.updateConfigurations({ project_creation_restriction: "everyone" });
  });

  test("PUT refuses what Harbor's types and checks refuse (400)", async () => {
    const bads: Array<Record<string, string | number | boolean>> = [
      { project_creation_restriction: "nobody" },
      { ldap_scope: 3 },
      { storage_per_project: 0 },
      { token_expiration: 0 },
      { robot_token_duration: 10_000_000_000 },
      { auth_mode: "kerberos_auth" },
      { skip_audit_log_database: true },
    ];
    for (const bad of bads) {
      const e = await harborFailure(h.admin.system.updateConfigurations(bad));
      expect(e, JSON.stringify(bad)).toMatchObject({ status: 400 });
    }
  });

  test("PUT decodes into Harbor's model: a key outside it is dropped (200), a value of the wrong JSON type is a 422", async () => {
    // scan_all_policy is in ConfigurationsResponse, not in the Configurations model PUT decodes.
    const dropped = await h.raw("PUT", "/configurations", {
      token_expiration: 31,
      no_such_item: 1,
      scan_all_policy: { type: "daily" },
    });
    expect(dropped).toMatchObject({ status: 200, text: "" });
    const after = JSON.parse((await h.raw("GET", "/configurations")).text) as Record<string, unknown>;
    expect(after.token_expiration).toEqual({ value: 31, editable: true });
    expect(after).not.toHaveProperty("no_such_item");
    // null leaves a setting as it is (Go leaves the pointer nil).
    expect((await h.raw("PUT", "/configurations", { token_expiration: null })).status).toBe(200);
    expect((await h.admin.system.getConfigurations()).token_expiration?.value).toBe(31);

    const typed = await h.raw("PUT", "/configurations", { read_only: "true" });
    expect(typed.status).toBe(422);
    expect(JSON.parse(typed.text).errors[0].message).toContain(
      "json: cannot unmarshal string into Go struct field Configurations.read_only of type bool",
    );
    const fraction = await h.raw("PUT", "/configurations", { ldap_timeout: 1.5 });
    expect(fraction.status).toBe(422);
    expect((await h.admin.system.getConfigurations()).read_only?.value).toBe(false);
    await h.admin.system.updateConfigurations({ token_expiration: 30 });
  });

  test("the auth mode is not editable once a user other than admin exists", async () => {
    const before = await h.admin.system.getConfigurations();
    expect(before.auth_mode?.editable).toBe(false); // "maker" exists since the test above
    const e = await harborFailure(h.admin.system.updateConfigurations({ auth_mode: "ldap_auth" }));
    expect(e).toMatchObject({ status: 400 });
    expect(e.harborMessage).toContain("the auth mode cannot be modified");
  });

  test("a configuration fixed by the environment is not editable and PUT is 403", async () => {
    h.emulator.control.configurations.fixByEnvironment(true);
    try {
      const conf = await h.admin.system.getConfigurations();
      expect(conf.robot_name_prefix?.editable).toBe(false);
      const e = await harborFailure(h.admin.system.updateConfigurations({ read_only: true }));
      expect(e).toMatchObject({ status: 403 });
    } finally {
      h.emulator.control.configurations.fixByEnvironment(false);
    }
  });

  test("robot_name_prefix renames every robot as shown and as it logs in", async () => {
    await h.admin.projects.create({ project_name: "prefixed" });
    const created = await h.admin.robots.create({
      name: "ci",
      level: "project",
      duration: -1,
      permissions: [
        { kind: "project", namespace: "prefixed", access: [{ resource: "repository", action: "pull" }] },
      ],
    });
    expect(created.name).toBe("robot$prefixed+ci");
    await h.admin.system.updateConfigurations({ robot_name_prefix: "bot@" });
    try {
      const robot = await h.admin.robots.get(created.id);
      expect(robot.name).toBe("bot@prefixed+ci");
      expect(h.emulator.control.robots.verify("bot@prefixed+ci", created.secret ?? "")).toBe(true);
    } finally {
      await h.admin.system.updateConfigurations({ robot_name_prefix: "robot$" });
    }
  });

  test("the system CVE allowlist round-trips", async () => {
    await h.admin.system.putCveAllowlist({ items: ["CVE-2024-1", "CVE-2024-2"], expiresAt: 4102444800 });
    const a = await h.admin.system.getCveAllowlist();
    expect(a.items?.map((i) => i.cve_id)).toEqual(["CVE-2024-1", "CVE-2024-2"]);
    expect(a.expires_at).toBe(4102444800);
    expect(a.project_id).toBe(0);
  });
});

describe("users", () => {
  test("create, read, profile, admin flag, password, delete", async () => {
    const id = await h.admin.users.create({
      username: "alice",
      email: "alice@example.com",
      realname: "Alice",
      password: "Alice-pw-1",
    });
    const got = await h.admin.users.get(id);
    expect(got).toMatchObject({ username: "alice", email: "alice@example.com", sysadmin_flag: false });
    await h.admin.users.updateProfile(id, { email: "a@example.com", realname: "Alice A", comment: "c" });
    await h.admin.users.setSysAdmin(id, true);
    expect(await h.admin.users.byName("alice")).toMatchObject({
      email: "a@example.com",
      sysadmin_flag: true,
      comment: "c",
    });
    await h.admin.users.setPassword(id, "Alice-pw-2");
    expect(h.emulator.control.users.verifyPassword("alice", "Alice-pw-2")).toBe(true);
    const same = await harborFailure(h.admin.users.setPassword(id, "Alice-pw-2"));
    expect(same).toMatchObject({ status: 400 });
    await h.admin.users.delete(id);
    expect(await h.admin.users.byName("alice")).toBeUndefined();
  });

  test("Harbor's rules: password strength, email, uniqueness, admin never deleted", async () => {
    const base = { username: "bob", email: "bob@example.com", realname: "Bob" };
    expect(await harborFailure(h.admin.users.create({ ...base, password: "weak" }))).toMatchObject({
      status: 400,
    });
    expect(
      await harborFailure(h.admin.users.create({ ...base, email: "not-an-email", password: "Bob-pw-123" })),
    ).toMatchObject({ status: 400 });
    await h.admin.users.create({ ...base, password: "Bob-pw-123" });
    expect(await harborFailure(h.admin.users.create({ ...base, password: "Bob-pw-123" }))).toMatchObject({
      status: 409,
    });
    expect(await harborFailure(h.admin.users.delete(1))).toMatchObject({ status: 403 });
  });

  test("users can be created only in db_auth mode", async () => {
    h.emulator.control.ldap.setAuthMode("ldap");
    try {
      const e = await harborFailure(
        h.admin.users.create({
          username: "carol",
          email: "carol@example.com",
          realname: "C",
          password: "Carol-pw-1",
        }),
      );
      expect(e).toMatchObject({ status: 403 });
      expect(e.harborMessage).toContain("ldap_auth");
    } finally {
      h.emulator.control.ldap.setAuthMode("db");
    }
  });
});

describe("repositories", () => {
  test("a project without repositories lists []", async () => {
    await h.admin.projects.create({ project_name: "empty-repos" });
    const res = await h.raw("GET", "/projects/empty-repos/repositories");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual([]);
    expect(res.headers.get("x-total-count")).toBe("0");
    expect((await h.raw("GET", "/projects/no-such-project/repositories")).status).toBe(404);
  });
});
