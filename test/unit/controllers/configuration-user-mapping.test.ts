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
  status,
} from "../../../src/controllers/configuration/mapping.ts";
import { generatePassword, passwordHash, diff as userDiff } from "../../../src/controllers/user/mapping.ts";
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
