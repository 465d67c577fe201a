// The pure mappings of HarborConfiguration and HarborUser: which settings a spec sets and how they
// compare with Harbor's (JSON text as JSON, storage as bytes, only set fields), which are someone
// else's, what deletion puts back; Secret-held values by hash only; a user's drift field by field.
import { describe, expect, test } from "vitest";
import { HarborConfigurationSpec } from "../../../src/api/configuration.ts";
import { HarborUserSpec } from "../../../src/api/user.ts";
import {
  changedSecrets,
  diff,
  heldSettings,
  type ObservedConfiguration,
  resetChange,
  secretHash,
  settings,
  specFromConfiguration,
  status,
} from "../../../src/controllers/configuration/mapping.ts";
import {
  generatePassword,
  passwordHash,
  specFromUser,
  diff as userDiff,
} from "../../../src/controllers/user/mapping.ts";
import { passwordProblem } from "../../../src/harbor/users.ts";

const conn = { connectionRef: { name: "harbor" } };
const spec = (s: object) => HarborConfigurationSpec.parse({ ...conn, ...s });
const item = <T>(value: T, editable = true) => ({ value, editable });
const observed = (config: Record<string, unknown>, items: string[] = []): ObservedConfiguration => ({
  config: {
    auth_mode: item("db_auth"),
    robot_name_prefix: item("robot$"),
    robot_token_duration: item(30),
    storage_per_project: item(-1),
    banner_message: item(""),
    ...config,
  } as ObservedConfiguration["config"],
  allowlist: { id: 1, project_id: 0, items: items.map((cve_id) => ({ cve_id })) },
});

describe("HarborConfiguration mapping", () => {
  test("only the fields set are settings; values as Harbor keeps them", () => {
    const s = spec({
      robotTokenDurationDays: 90,
      storagePerProject: "1Gi",
      auth: { ldap: { scope: "OneLevel" } },
    });
    expect(settings(s).map((x) => [x.key, x.value])).toEqual([
      ["ldap_scope", 1],
      ["robot_token_duration", 90],
      ["storage_per_project", 2 ** 30],
    ]);
  });

  test("the banner compares as JSON, whatever Harbor's key order and spacing", () => {
    const s = spec({ banner: { message: "hi", type: "warning", closable: true } });
    const same = observed({
      banner_message: item('{ "type": "warning", "message": "hi", "closable": true }'),
    });
    expect(diff(s, same, "uid", {}, undefined)).toEqual([]);
    const other = observed({ banner_message: item('{"type":"info","message":"hi","closable":true}') });
    expect(diff(s, other, "uid", {}, undefined)).toEqual(["banner"]);
  });

  test("the allowlist compares as a set; someone else's values are held; deletion resets system settings only", () => {
    const s = spec({
      cveAllowlist: { items: ["CVE-2", "CVE-1"] },
      robotNamePrefix: "svc$",
      auth: { mode: "db_auth" },
    });
    expect(
      diff(s, observed({ robot_name_prefix: item("svc$") }, ["CVE-1", "CVE-2"]), "u", {}, undefined),
    ).toEqual([]);
    expect(heldSettings(s, observed({}))).toEqual([]);
    expect(heldSettings(s, observed({ robot_name_prefix: item("x$") }, ["CVE-9"]))).toEqual([
      "robotNamePrefix",
      "cveAllowlist",
    ]);
    expect(resetChange(s)).toEqual({ robot_name_prefix: "robot$" });
  });

  test("Secret-held values: written when their hash is new, the hash in status, never the value", () => {
    const written = { ldapBindPassword: secretHash("uid", "ldapBindPassword", "pw-1") };
    expect(changedSecrets("uid", { ldapBindPassword: "pw-1" }, written)).toEqual([]);
    expect(changedSecrets("uid", { ldapBindPassword: "pw-2" }, written).map((c) => c.key)).toEqual([
      "ldap_search_password",
    ]);
    const st = status(
      observed({}),
      "uid",
      { ldapBindPassword: "pw-2" },
      written,
      new Set(["ldapBindPassword"]),
    );
    expect(JSON.stringify(st)).not.toContain("pw-2");
    expect(st.writtenSecrets?.ldapBindPassword).toBe(secretHash("uid", "ldapBindPassword", "pw-2"));
    // A sweep that did not read the Secret keeps what was written; a reference removed drops it.
    expect(status(observed({}), "uid", {}, written, new Set(["ldapBindPassword"])).writtenSecrets).toEqual(
      written,
    );
    expect(status(observed({}), "uid", {}, written, new Set()).writtenSecrets).toBeUndefined();
  });

  test("admission refuses a robot prefix HarborRobot could not read, and skipDatabase rules stay in CEL", () => {
    expect(HarborConfigurationSpec.safeParse({ ...conn, robotNamePrefix: "bot@" }).success).toBe(false);
    expect(HarborConfigurationSpec.safeParse({ ...conn, robotNamePrefix: "a+b$" }).success).toBe(false);
    expect(HarborConfigurationSpec.safeParse({ ...conn, robotNamePrefix: "svc$" }).success).toBe(true);
  });
});

describe("HarborUser mapping", () => {
  const u = HarborUserSpec.parse({ ...conn, email: "a@example.com", admin: true });
  const harbor = {
    user_id: 3,
    username: "alice",
    email: "a@example.com",
    realname: "alice",
    comment: "",
    sysadmin_flag: true,
  };

  test("drift field by field; the password by the hash of the one last set", () => {
    expect(userDiff(u, "alice", harbor, "uid", {}, undefined)).toEqual([]);
    expect(
      userDiff(u, "alice", { ...harbor, email: "b@example.com", sysadmin_flag: false }, "uid", {}, undefined),
    ).toEqual(["email", "admin"]);
    const hash = passwordHash("uid", "Pw-123456");
    expect(userDiff(u, "alice", harbor, "uid", { password: "Pw-123456" }, hash)).toEqual([]);
    expect(userDiff(u, "alice", harbor, "uid", { password: "Pw-654321" }, hash)).toEqual(["password"]);
  });

  test("generated passwords meet Harbor's rule", () => {
    for (let i = 0; i < 50; i++) expect(passwordProblem(generatePassword())).toBeUndefined();
    expect(passwordProblem("lowercase1")).toBeDefined();
  });

  test("admin is refused by the spec's own rules", () => {
    expect(HarborUserSpec.safeParse({ ...conn, name: "admin", email: "a@example.com" }).success).toBe(false);
  });
});

describe("export: the inverse mappings round-trip", () => {
  test("a configuration: every non-default setting and the allowlist; at defaults nothing", () => {
    expect(specFromConfiguration(observed({}))).toBeUndefined();
    const harbor = observed(
      {
        auth_mode: item("ldap_auth"),
        ldap_url: item("ldaps://ldap.example.com"),
        ldap_scope: item(1),
        oidc_extra_redirect_parms: item('{"prompt":"login"}'),
        http_authproxy_admin_groups: item("ops,dev"),
        robot_token_duration: item(90),
        storage_per_project: item(50 * 2 ** 30),
        banner_message: item('{"closable":true,"message":"hi","type":"warning"}'),
      },
      ["CVE-2", "CVE-1"],
    );
    const out = specFromConfiguration(harbor);
    const s = HarborConfigurationSpec.parse({ ...conn, ...out?.spec });
    expect(s).toMatchObject({
      auth: {
        mode: "ldap_auth",
        ldap: { url: "ldaps://ldap.example.com", scope: "OneLevel" },
        oidc: { extraRedirectParams: { prompt: "login" } },
        http: { adminGroups: ["ops", "dev"] },
      },
      robotTokenDurationDays: 90,
      storagePerProject: "50Gi",
      banner: { message: "hi", type: "warning", closable: true },
      cveAllowlist: { items: ["CVE-1", "CVE-2"] },
    });
    expect(diff(s, harbor, "", {}, undefined)).toEqual([]);
    expect(out?.notes.join(" ")).toContain("bind password is not exported");
  });

  test("what the spec cannot express is left unmanaged and said", () => {
    const odd = { robot_name_prefix: item("bot@"), banner_message: item('{"message":"hi","extra":1}') };
    expect(specFromConfiguration(observed(odd))).toBeUndefined(); // nothing else: no resource
    const out = specFromConfiguration(observed({ ...odd, token_expiration: item(45) }));
    expect(out?.spec).toEqual({ tokenExpirationMinutes: 45 });
    expect(out?.notes).toEqual([
      "robotNamePrefix is left unmanaged: Harbor holds a value the spec cannot express",
      "banner is left unmanaged: Harbor holds a value the spec cannot express",
    ]);
  });

  test("a user: profile and admin flag, the password left alone; admin skipped", () => {
    const harbor = {
      user_id: 5,
      username: "bob_builder",
      email: "b@example.com",
      realname: "Bob",
      comment: "ci",
      sysadmin_flag: true,
    };
    const out = specFromUser(harbor);
    if ("skip" in out) throw new Error(out.skip);
    const s = HarborUserSpec.parse({ ...conn, ...out.spec });
    expect(s).toMatchObject({
      name: "bob_builder",
      realname: "Bob",
      comment: "ci",
      admin: true,
      managePassword: false,
    });
    expect(userDiff(s, "bob_builder", harbor, "", {}, undefined)).toEqual([]);
    expect(specFromUser({ ...harbor, user_id: 1, username: "admin" })).toMatchObject({
      skip: expect.any(String),
    });
  });
});
