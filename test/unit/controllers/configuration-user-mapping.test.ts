// The pure mappings of HarborConfiguration and HarborUser: which settings a spec sets and how they
// compare with Harbor's (JSON text as JSON, storage as bytes, only set fields), which are someone
// else's, what deletion puts back; Secret-held values by hash only; a user's drift field by field.
import { describe, expect, test } from "vitest";
import { HarborConfigurationSpec } from "../../../src/api/configuration.ts";
import { HarborUserSpec } from "../../../src/api/user.ts";
import { configurationExternal } from "../../../src/controllers/configuration/external.ts";
import {
  changedSecrets,
  diff,
  heldSettings,
  legacySecretHash,
  type ObservedConfiguration,
  resetChange,
  settings,
  specFromConfiguration,
  status,
} from "../../../src/controllers/configuration/mapping.ts";
import type { HarborConnectionHandle } from "../../../src/controllers/connection/handle.ts";
import type { SecretUses } from "../../../src/controllers/shared/secret-uses.ts";
import { userExternal } from "../../../src/controllers/user/external.ts";
import {
  generatePassword,
  legacyPasswordHash,
  specFromUser,
  diff as userDiff,
  status as userStatus,
} from "../../../src/controllers/user/mapping.ts";
import { passwordProblem } from "../../../src/harbor/users.ts";
import { OWNER_ANNOTATION, ownerIdentity } from "../../../src/kube/secrets.ts";
import { inputOf, ownConnection, tenantConnection } from "./fakes.ts";

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

  test("2.13's settings: OIDC logout, and disabled audit-log event types as Harbor's comma list", () => {
    const s = spec({
      auth: { oidc: { logout: true } },
      auditLog: { disabledEventTypes: ["pull_artifact", "login_user", "pull_artifact"] },
    });
    expect(settings(s).map((x) => [x.key, x.value])).toEqual([
      ["oidc_logout", true],
      ["disabled_audit_log_event_types", "login_user,pull_artifact"],
    ]);
    // Order, blanks and repeats in Harbor's text do not count.
    const same = observed({
      oidc_logout: item(true),
      disabled_audit_log_event_types: item("pull_artifact, login_user,"),
    });
    expect(diff(s, same, "u", {}, undefined)).toEqual([]);
    const other = observed({
      oidc_logout: item(false),
      disabled_audit_log_event_types: item("pull_artifact"),
    });
    expect(diff(s, other, "u", {}, undefined)).toEqual(["auth.oidc.logout", "auditLog.disabledEventTypes"]);
    // Deletion puts Harbor's default back (nothing disabled); auth settings stay.
    expect(resetChange(s)).toEqual({ disabled_audit_log_event_types: "" });
  });

  test("a release without those keys (2.12) meets false and [], and nothing is held there", () => {
    const s = spec({ auth: { oidc: { logout: false } }, auditLog: { disabledEventTypes: [] } });
    expect(diff(s, observed({}), "u", {}, undefined)).toEqual([]);
    expect(heldSettings(s, observed({}))).toEqual([]);
    // true and a list are refused before they get here (release-fields); were they not, they would differ.
    const asked = spec({
      auth: { oidc: { logout: true } },
      auditLog: { disabledEventTypes: ["pull_artifact"] },
    });
    expect(diff(asked, observed({}), "u", {}, undefined)).toEqual([
      "auth.oidc.logout",
      "auditLog.disabledEventTypes",
    ]);
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

  test("Secret-held values: written when their Secret's version is new to the status, which records that version, nothing of the value", () => {
    const written = { ldapBindPassword: "41" };
    const pw = (value: string, version: string) => ({ ldapBindPassword: { value, version } });
    expect(changedSecrets("uid", pw("Pw-one-1", "41"), written)).toEqual([]);
    expect(changedSecrets("uid", pw("Pw-two-2", "57"), written).map((c) => c.key)).toEqual([
      "ldap_search_password",
    ]);
    const st = status(observed({}), pw("Pw-two-2", "57"), written, new Set(["ldapBindPassword"]));
    expect(JSON.stringify(st)).not.toContain("Pw-two-2");
    expect(st.writtenSecrets).toEqual({ ldapBindPassword: "57" });
    // A sweep that did not read the Secret keeps what was written; a reference removed drops it.
    expect(status(observed({}), {}, written, new Set(["ldapBindPassword"])).writtenSecrets).toEqual(written);
    expect(status(observed({}), {}, written, new Set()).writtenSecrets).toBeUndefined();
  });

  test("a record of an earlier release (a hash of the value) counts as written once, and gives way to the version", () => {
    const legacy = { ldapBindPassword: legacySecretHash("uid", "ldapBindPassword", "Pw-one-1") };
    const same = { ldapBindPassword: { value: "Pw-one-1", version: "41" } };
    expect(changedSecrets("uid", same, legacy)).toEqual([]);
    expect(
      changedSecrets("uid", { ldapBindPassword: { value: "Pw-two-2", version: "57" } }, legacy).map(
        (c) => c.key,
      ),
    ).toEqual(["ldap_search_password"]);
    expect(status(observed({}), same, legacy, new Set(["ldapBindPassword"])).writtenSecrets).toEqual({
      ldapBindPassword: "41",
    });
  });

  test("status: the auth mode and the robot prefix Harbor uses now, whoever set them", () => {
    expect(status(observed({}), {}, undefined, new Set())).toMatchObject({
      authMode: "db_auth",
      robotNamePrefix: "robot$",
    });
    expect(
      status(
        observed({ robot_name_prefix: item("svc$"), auth_mode: item("ldap_auth", false) }),
        {},
        undefined,
        new Set(),
      ),
    ).toMatchObject({ authMode: "ldap_auth", authModeEditable: false, robotNamePrefix: "svc$" });
  });

  test("admission refuses a robot prefix HarborRobot could not read, and skipDatabase rules stay in CEL", () => {
    expect(HarborConfigurationSpec.safeParse({ ...conn, robotNamePrefix: "bot@" }).success).toBe(false);
    expect(HarborConfigurationSpec.safeParse({ ...conn, robotNamePrefix: "a+b$" }).success).toBe(false);
    expect(HarborConfigurationSpec.safeParse({ ...conn, robotNamePrefix: "svc$" }).success).toBe(true);
  });

  describe("what the shared lifecycle asks of the kind", () => {
    /** Reading a Secret would mean the tenancy check came too late. */
    const secrets: SecretUses = { read: () => Promise.reject(new Error("no Secret should be read")) };
    const ext = configurationExternal({ secrets });
    /** A connection to a Harbor whose configuration and allowlist are these. */
    const harborWith = (o: ObservedConfiguration): HarborConnectionHandle => ({
      ...ownConnection,
      client: {
        system: {
          getConfigurations: async () => o.config,
          getCveAllowlist: async () => o.allowlist,
        },
      } as unknown as HarborConnectionHandle["client"],
    });

    test("one resource per Harbor, whatever it sets; the object it finds is always the configuration", () => {
      const a = spec({ robotTokenDurationDays: 90 });
      const b = spec({ banner: { message: "hi" } });
      expect(ext.claim(a, "config", "x")).toBe(ext.claim(b, "other", "y"));
      // No name to check: whatever the recorded id finds is this resource's (the lifecycle's default).
      expect(ext.identifies).toBeUndefined();
    });

    test("the first reconcile finds the configuration only where Harbor holds one of its settings at other than Harbor's default", async () => {
      const s = spec({ robotNamePrefix: "svc$", cveAllowlist: { items: ["CVE-1"] } });
      const observe = (o: ObservedConfiguration) =>
        ext.observe({ ...inputOf(s, { conn: harborWith(o) }), extra: {} });
      // Harbor's defaults: nothing to adopt, Create applies the spec.
      expect(await observe(observed({}))).toBeUndefined();
      // Someone else's prefix or allowlist: found, so Create refuses and CreateOrAdopt takes it over.
      expect(await observe(observed({ robot_name_prefix: item("bot@") }))).toBeDefined();
      expect(await observe(observed({}, ["CVE-9"]))).toBeDefined();
      // A setting the spec leaves alone is nobody's business.
      expect(await observe(observed({ robot_token_duration: item(5) }))).toBeUndefined();
    });

    test("the configuration is Harbor-wide: a tenant of a shared connection needs allowSystemSettings", async () => {
      const s = spec({ auth: { ldap: { bindPasswordSecretRef: { name: "ldap-bind" } } } });
      await expect(ext.prepare(inputOf(s, { conn: tenantConnection() }))).rejects.toMatchObject({
        name: "Stalled",
        reason: "NotAllowed",
        message: expect.stringContaining(
          "does not let namespace team manage the system configuration, which every tenant of this Harbor shares (spec.tenancy.allowSystemSettings)",
        ),
      });
      expect(
        await ext.prepare(inputOf(spec({}), { conn: tenantConnection({ allowSystemSettings: true }) })),
      ).toEqual({});
    });
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

  test("drift field by field; the password by the version of the Secret it was last set from", () => {
    expect(userDiff(u, "alice", harbor, "uid", {}, {})).toEqual([]);
    expect(
      userDiff(u, "alice", { ...harbor, email: "b@example.com", sysadmin_flag: false }, "uid", {}, {}),
    ).toEqual(["email", "admin"]);
    const set = { passwordSecretVersion: "41" };
    expect(userDiff(u, "alice", harbor, "uid", { password: "Pw-123456", version: "41" }, set)).toEqual([]);
    expect(userDiff(u, "alice", harbor, "uid", { password: "Pw-654321", version: "57" }, set)).toEqual([
      "password",
    ]);
    // The status records the version, nothing derived from the password, and drops an old hash.
    const st = userStatus(
      harbor,
      { password: "Pw-654321", secretName: "alice-pw", version: "57" },
      {
        ...set,
        passwordHash: "0".repeat(32),
      },
    );
    expect(st).toMatchObject({
      passwordSecret: "alice-pw",
      passwordSecretVersion: "57",
      passwordHash: undefined,
    });
    expect(JSON.stringify(st)).not.toContain("Pw-654321");
  });

  test("an earlier release's record (a hash of the password) counts as set once, then gives way to the version", () => {
    const legacy = { passwordHash: legacyPasswordHash("uid", "Pw-123456") };
    expect(userDiff(u, "alice", harbor, "uid", { password: "Pw-123456", version: "41" }, legacy)).toEqual([]);
    expect(userDiff(u, "alice", harbor, "uid", { password: "Pw-654321", version: "57" }, legacy)).toEqual([
      "password",
    ]);
    expect(userStatus(harbor, { password: "Pw-123456", version: "41" }, legacy)).toMatchObject({
      passwordSecretVersion: "41",
      passwordHash: undefined,
    });
  });

  test("generated passwords meet Harbor's rule", () => {
    for (let i = 0; i < 50; i++) expect(passwordProblem(generatePassword())).toBeUndefined();
    expect(passwordProblem("lowercase1")).toBeDefined();
  });

  test("admin is refused by the spec's own rules", () => {
    expect(HarborUserSpec.safeParse({ ...conn, name: "admin", email: "a@example.com" }).success).toBe(false);
  });

  describe("what the shared lifecycle asks of the kind", () => {
    const secrets: SecretUses = { read: () => Promise.reject(new Error("no Secret should be read")) };
    const ext = userExternal({ secrets, writer: {} as never });

    test("one resource per username in a Harbor, from any namespace; adopted only by its exact username", () => {
      expect(ext.claim(u, "alice", "a")).toBe(ext.claim(u, "alice", "b"));
      expect(ext.claim(u, "alice", "a")).not.toBe(ext.claim(u, "bob", "a"));
      const input = inputOf(u, { harborName: "alice", extra: {} });
      expect(ext.identifies?.(input, harbor)).toBe(true);
      expect(ext.identifies?.(input, { ...harbor, username: "Alice" })).toBe(false);
    });

    test("generatedSecretName takes only a Secret this resource wrote: another one's password is neither used nor overwritten", async () => {
      const generated = HarborUserSpec.parse({
        ...conn,
        email: "a@example.com",
        generatedSecretName: "their-secret",
      });
      const input = inputOf(generated, { name: "alice", harborName: "alice" });
      const written: string[] = [];
      const writerWith = (annotations: Record<string, string>) =>
        ({
          read: async () => ({
            object: {
              metadata: { name: "their-secret", namespace: "team", resourceVersion: "7", annotations },
            },
            values: { username: "alice", password: "Their-Password-1" },
          }),
          apply: async (_owner: unknown, d: { name: string }) => {
            written.push(d.name);
            return "updated";
          },
        }) as never;
      const theirs = userExternal({
        secrets,
        writer: writerWith({ [OWNER_ANNOTATION]: "HarborRobot/team/x/uid-x" }),
      });
      await expect(theirs.prepare(input)).rejects.toMatchObject({
        name: "SecretConflictError",
        message: expect.stringContaining(
          "Secret team/their-secret exists and was not written by this resource",
        ),
      });
      expect(written).toEqual([]);
      const ours = userExternal({
        secrets,
        writer: writerWith({ [OWNER_ANNOTATION]: ownerIdentity(input.resource) }),
      });
      await expect(ours.prepare(input)).resolves.toEqual({
        password: "Their-Password-1",
        secretName: "their-secret",
        version: "7",
      });
    });

    test("users are Harbor-wide: a tenant of a shared connection needs allowSystemSettings", async () => {
      const withSecret = HarborUserSpec.parse({
        ...conn,
        email: "a@example.com",
        passwordSecretRef: { name: "alice-pw" },
      });
      await expect(
        ext.prepare(inputOf(withSecret, { harborName: "alice", conn: tenantConnection() })),
      ).rejects.toMatchObject({
        name: "Stalled",
        reason: "NotAllowed",
        message: expect.stringContaining(
          "does not let namespace team manage Harbor's users, which every tenant of this Harbor shares (spec.tenancy.allowSystemSettings)",
        ),
      });
    });
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
        oidc_logout: item(true),
        disabled_audit_log_event_types: item("pull_artifact,create_artifact"),
      },
      ["CVE-2", "CVE-1"],
    );
    const out = specFromConfiguration(harbor);
    const s = HarborConfigurationSpec.parse({ ...conn, ...out?.spec });
    expect(s).toMatchObject({
      auth: {
        mode: "ldap_auth",
        ldap: { url: "ldaps://ldap.example.com", scope: "OneLevel" },
        oidc: { extraRedirectParams: { prompt: "login" }, logout: true },
        http: { adminGroups: ["ops", "dev"] },
      },
      auditLog: { disabledEventTypes: ["create_artifact", "pull_artifact"] },
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
    expect(userDiff(s, "bob_builder", harbor, "", {}, {})).toEqual([]);
    expect(specFromUser({ ...harbor, user_id: 1, username: "admin" })).toMatchObject({
      skip: expect.any(String),
    });
  });
});
