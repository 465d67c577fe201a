// The system area: systeminfo answers everyone (anonymous callers get a subset), the current user
// tells valid credentials from wrong ones (401) and robots (412), and the configurations read shows
// the auth mode and LDAP settings to administrators only.
import { describe, expect, test } from "vitest";
import { harborFailure, systemRobot, useEmulator } from "../../env/harbor.ts";

// A wrong password here is only a way to a 401: no login freeze (observed.test.ts proves it).
const h = useEmulator({ loginFreezeMs: 0 });

describe("getSystemInfo", () => {
  test("an anonymous caller gets the auth mode, not the protected fields (nor, from 2.13, the version)", async () => {
    const res = await fetch(`${h.emulator.url}/api/v2.0/systeminfo`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ auth_mode: "db_auth", self_registration: false });
    // Up to 2.12 the version too (versions.test.ts has both).
    if (h.emulator.world.version.has("systemInfoVersionAuthenticated")) {
      expect(body).not.toHaveProperty("harbor_version");
    } else expect(body.harbor_version).toBe(h.emulator.world.version.display);
    expect(body).not.toHaveProperty("registry_url");
    expect(body).not.toHaveProperty("current_time");
    // Wrong credentials make the caller anonymous, which systeminfo allows.
    const wrong = h.client({ password: "not-the-password" });
    expect((await wrong.system.getSystemInfo()).registry_url ?? undefined).toBeUndefined();
  });

  test("an authenticated caller also gets the registry's host and the server time", async () => {
    const info = await h.admin.system.getSystemInfo();
    // As a real build says it: the release, a dash and eight hex digits of a commit.
    expect(info.harbor_version).toBe(h.emulator.world.version.display);
    expect(info.harbor_version).toMatch(
      new RegExp(`^v${h.emulator.harborVersion.replaceAll(".", "\\.")}-[0-9a-f]{8}$`),
    );
    expect(info.registry_url).toBe(new URL(h.emulator.url).host);
    expect(info.external_url).toBe(h.emulator.url);
    expect(Date.parse(info.current_time ?? "")).not.toBeNaN();
  });

  test("the version and the auth mode follow the emulator's controls", async () => {
    h.emulator.control.system.setVersion("v2.10.3-abcdef12");
    h.emulator.control.ldap.setAuthMode("ldap");
    try {
      const info = await h.admin.system.getSystemInfo();
      expect(info.harbor_version).toBe("v2.10.3-abcdef12");
      expect(info.auth_mode).toBe("ldap_auth");
    } finally {
      h.emulator.control.system.setVersion(h.emulator.world.version.display);
      h.emulator.control.ldap.setAuthMode("db");
    }
  });
});

describe("getCurrentUser", () => {
  test("the admin: its user record with sysadmin_flag", async () => {
    const me = await h.admin.system.getCurrentUser();
    expect(me).toMatchObject({
      user_id: 1,
      username: "admin",
      sysadmin_flag: true,
      admin_role_in_auth: false,
    });
  });

  test("a plain user: sysadmin_flag is false and still present", async () => {
    h.addUser("plain", "Plain-pw1");
    const me = await h.client({ username: "plain", password: "Plain-pw1" }).system.getCurrentUser();
    expect(me.username).toBe("plain");
    expect(me.sysadmin_flag).toBe(false);
  });

  test("wrong credentials: 401 unauthorized, without the password in the error", async () => {
    const e = await harborFailure(h.client({ password: "Wrong-password-1" }).system.getCurrentUser());
    expect(e).toMatchObject({ kind: "unauthorized", status: 401, operation: "getCurrentUserInfo" });
    expect(e.message).not.toContain("Wrong-password-1");
  });

  test("a robot logs in but has no user record: 412", async () => {
    const robot = await h.admin.robots.create(
      systemRobot("probe", [{ resource: "project", action: "list" }]),
    );
    const e = await harborFailure(
      h.client({ username: robot.name, password: robot.secret }).system.getCurrentUser(),
    );
    expect(e).toMatchObject({ kind: "precondition", status: 412 });
    expect(e.harborMessage).toContain("robot");
  });
});

describe("getConfigurations", () => {
  test("an administrator reads the auth mode and the LDAP settings, never a password", async () => {
    const conf = await h.admin.system.getConfigurations();
    expect(conf.auth_mode?.value).toBe("db_auth");
    expect(conf.ldap_url?.value).toBe("ldap://ldap.example.com");
    expect(conf.ldap_search_dn?.value).toBe("cn=admin,dc=example,dc=com");
    const raw = await fetch(`${h.emulator.url}/api/v2.0/configurations`, {
      headers: {
        authorization: `Basic ${Buffer.from(`admin:${h.emulator.adminPassword}`).toString("base64")}`,
      },
    });
    expect(await raw.text()).not.toContain("ldap-admin-password");
  });

  test("anyone else is refused: 403 for a plain user, 401 for anonymous callers", async () => {
    h.addUser("reader", "Reader-pw1");
    const e = await harborFailure(
      h.client({ username: "reader", password: "Reader-pw1" }).system.getConfigurations(),
    );
    expect(e).toMatchObject({ kind: "forbidden", status: 403 });
    const anon = await harborFailure(h.client({ password: "Wrong-password-1" }).system.getConfigurations());
    expect(anon).toMatchObject({ kind: "unauthorized", status: 401 });
  });
});
