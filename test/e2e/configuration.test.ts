// HarborConfiguration end to end: only the settings a spec sets are written (others left alone),
// changes applied, settings changed in Harbor put back and named, the LDAP bind password from an
// opted-in Secret written again when the Secret changes (a hash in status, never the value), one per
// Harbor, someone else's settings refused under Create and adopted under CreateOrAdopt, Harbor's
// refusals (auth mode with users, settings fixed by the environment) Stalled, bad input refused by
// kubectl, and deletion putting the system settings back to Harbor's defaults.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  type ConfigurationCR,
  condition,
  configuration,
  readyForSpec,
  secret,
  stalled,
} from "../env/resources.ts";
import { onlyWithSystemSettings } from "../env/tenancy.ts";

const op = useOperator({ namespacePrefix: "config" });
const KIND = "harborconfiguration";

const settings = async () => op.harbor.system.getConfigurations();
const base = {
  robotTokenDurationDays: 90,
  projectCreationRestriction: "adminonly" as const,
  storagePerProject: "50Gi",
  banner: { message: "Maintenance on Saturday", type: "warning" as const, closable: true },
  cveAllowlist: { items: ["CVE-2024-0001", "CVE-2024-0002"] },
};

describe("HarborConfiguration", () => {
  test("apply → the settings it sets are written, the rest left alone", async () => {
    await op.kubectl.apply(configuration("config", base));
    const cr = await op.waitReady<ConfigurationCR>(KIND, "config");
    const c = await settings();
    expect(c.robot_token_duration?.value).toBe(90);
    expect(c.project_creation_restriction?.value).toBe("adminonly");
    expect(c.storage_per_project?.value).toBe(50 * 2 ** 30);
    expect(JSON.parse(c.banner_message?.value ?? "{}")).toEqual({
      message: "Maintenance on Saturday",
      type: "warning",
      closable: true,
    });
    expect(c.token_expiration?.value).toBe(30); // not set: Harbor's default, untouched
    const allowlist = await op.harbor.system.getCveAllowlist();
    expect(allowlist.items?.map((i) => i.cve_id).sort()).toEqual(["CVE-2024-0001", "CVE-2024-0002"]);
    expect(cr.status).toMatchObject({ harborId: 0, authMode: "db_auth", robotNamePrefix: "robot$" });
    const table = await op.kubectl.run(["get", "harborconfigurations"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+AUTH\s+ROBOT PREFIX\s+AGE/);
    expect(table).toMatch(/config\s+True\s+Synced\s+db_auth\s+robot\$\s/);
  });

  test("a spec change is applied", async () => {
    await op.kubectl.apply(
      configuration("config", { ...base, robotTokenDurationDays: 60, tokenExpirationMinutes: 45 }),
    );
    await op.waitFor<ConfigurationCR>(KIND, "config", readyForSpec);
    const c = await settings();
    expect(c.robot_token_duration?.value).toBe(60);
    expect(c.token_expiration?.value).toBe(45);
  });

  test("settings changed in Harbor are put back within a drift interval and named", async () => {
    await op.harbor.system.updateConfigurations({
      robot_token_duration: 5,
      project_creation_restriction: "everyone",
    });
    await op.harbor.system.putCveAllowlist({ items: ["CVE-1999-0001"] });
    const cr = await op.waitFor<ConfigurationCR>(
      KIND,
      "config",
      (o) => (o.status?.lastDriftCorrection?.fields.length ?? 0) >= 3,
      20_000,
    );
    expect([...(cr.status?.lastDriftCorrection?.fields ?? [])].sort()).toEqual([
      "cveAllowlist",
      "projectCreationRestriction",
      "robotTokenDurationDays",
    ]);
    const c = await settings();
    expect(c.robot_token_duration?.value).toBe(60);
    expect(c.project_creation_restriction?.value).toBe("adminonly");
  });

  test("the LDAP bind password comes from an opted-in Secret and is written again when it changes", async () => {
    await op.kubectl.apply(secret("ldap-bind", { password: "Bind-pw-1" }, { watched: true }));
    await op.kubectl.apply(
      configuration("config", {
        ...base,
        robotTokenDurationDays: 60,
        tokenExpirationMinutes: 45,
        auth: {
          ldap: { searchDn: "cn=admin,dc=example,dc=com", bindPasswordSecretRef: { name: "ldap-bind" } },
        },
      }),
    );
    const refused = await op.waitFor<ConfigurationCR>(
      KIND,
      "config",
      (o) => condition(o, "Ready")?.reason === "SecretNotAllowed",
    );
    expect(condition(refused, "Ready")?.message).toContain("harborconfig.io/usable-as=ldap-bind-password");
    await op.kubectl.apply(
      secret("ldap-bind", { password: "Bind-pw-1" }, { watched: true, usableAs: "ldap-bind-password" }),
    );
    const cr = await op.waitFor<ConfigurationCR>(KIND, "config", readyForSpec);
    expect(op.emulator.control.configurations.get("ldap_search_password")).toBe("Bind-pw-1");
    const hash = cr.status?.writtenSecrets?.ldapBindPassword ?? "";
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(cr)).not.toContain("Bind-pw-1");

    await op.kubectl.apply(
      secret("ldap-bind", { password: "Bind-pw-2" }, { watched: true, usableAs: "ldap-bind-password" }),
    );
    await op.waitFor<ConfigurationCR>(
      KIND,
      "config",
      (o) => (o.status?.writtenSecrets?.ldapBindPassword ?? hash) !== hash,
      20_000,
    );
    expect(op.emulator.control.configurations.get("ldap_search_password")).toBe("Bind-pw-2");
  });

  test("steady state: no writes, and two reads per drift interval (configurations, allowlist)", async () => {
    const before = op.emulator.counters.list();
    const writes = op.emulator.counters.writes();
    await new Promise((r) => setTimeout(r, 9_000));
    expect(op.emulator.counters.writes()).toBe(writes);
    const spent = op.emulator.counters.since(before);
    const own = Object.keys(spent).filter((o) => !["getSystemInfo", "getCurrentUserInfo"].includes(o));
    expect(own.sort()).toEqual(["getConfigurations", "getSystemCVEAllowlist"]);
    expect(spent.getConfigurations).toBe(spent.getSystemCVEAllowlist);
    expect(spent.getConfigurations).toBeGreaterThanOrEqual(2);
    expect(spent.getConfigurations).toBeLessThanOrEqual(4);
  });

  test("one per Harbor: a second resource gets Conflict and writes nothing", async () => {
    await op.kubectl.apply(configuration("config-2", { robotTokenDurationDays: 7 }));
    const second = await op.waitFor<ConfigurationCR>(
      KIND,
      "config-2",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(second, "Ready")?.message).toContain(
      `HarborConfiguration ${op.namespace}/config already manages`,
    );
    expect((await settings()).robot_token_duration?.value).toBe(60);
    await op.kubectl.delete(KIND, "config-2", { wait: true });
  });

  test("Harbor's refusals end Stalled with Harbor's reason: the auth mode with users, settings fixed by the environment", async () => {
    op.emulator.control.users.add({ username: "someone", password: "Someone-pw-1" });
    await op.kubectl.apply(configuration("config", { ...base, auth: { mode: "ldap_auth" } }));
    const locked = await op.waitFor<ConfigurationCR>(
      KIND,
      "config",
      (o) => stalled(o) && o.status?.observedGeneration === o.metadata.generation,
    );
    expect(condition(locked, "Ready")?.reason).toBe("AuthModeNotEditable");
    expect(condition(locked, "Ready")?.message).toContain("the auth mode cannot be modified");
    const mode = (await settings()).auth_mode;
    expect(mode).toEqual({ value: "db_auth", editable: false });

    op.emulator.control.configurations.fixByEnvironment(true);
    try {
      await op.kubectl.apply(configuration("config", { ...base, robotTokenDurationDays: 14 }));
      const fixed = await op.waitFor<ConfigurationCR>(
        KIND,
        "config",
        (o) => stalled(o) && o.status?.observedGeneration === o.metadata.generation,
      );
      expect(condition(fixed, "Ready")?.reason).toBe("SettingNotEditable");
      expect(condition(fixed, "Ready")?.message).toContain("robotTokenDurationDays");
    } finally {
      op.emulator.control.configurations.fixByEnvironment(false);
    }
    await op.kubectl.apply(configuration("config", base));
    await op.waitFor<ConfigurationCR>(KIND, "config", readyForSpec);
  });

  test("bad input is refused by kubectl", async () => {
    const rejected = async (spec: Record<string, unknown>) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], {
        input: JSON.stringify(configuration("bad", spec as never)),
      });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected({ projectCreationRestriction: "nobody" })).toMatch(
      /spec\.projectCreationRestriction/,
    );
    expect(await rejected({ auditLog: { skipDatabase: true } })).toContain("auditLog.skipDatabase needs");
    expect(await rejected({ storagePerProject: "0" })).toMatch(/spec\.storagePerProject/);
    expect(await rejected({ robotTokenDurationDays: 0 })).toMatch(/spec\.robotTokenDurationDays/);
    expect(await rejected({ auth: { mode: "kerberos" } })).toMatch(/spec\.auth\.mode/);
    expect(await rejected({ auth: { ldap: { scope: "Everything" } } })).toMatch(/spec\.auth\.ldap\.scope/);
    expect(await rejected({ robotNamePrefix: "bot@" })).toMatch(/spec\.robotNamePrefix/);
  });

  test("deletion puts the system settings it set back to Harbor's defaults and empties the allowlist", async () => {
    await op.kubectl.delete(KIND, "config", { wait: true });
    const c = await settings();
    expect(c.robot_token_duration?.value).toBe(30);
    expect(c.project_creation_restriction?.value).toBe("everyone");
    expect(c.storage_per_project?.value).toBe(-1);
    expect(c.banner_message?.value).toBe("");
    expect((await op.harbor.system.getCveAllowlist()).items ?? []).toEqual([]);
  });

  test("someone else's setting: Create refuses it by name, CreateOrAdopt takes it over; the robot prefix follows", async () => {
    await op.harbor.system.updateConfigurations({ robot_name_prefix: "bot@" });
    await op.kubectl.apply(configuration("prefix", { robotNamePrefix: "svc$" }));
    const refused = await op.waitFor<ConfigurationCR>(KIND, "prefix", stalled);
    expect(condition(refused, "Ready")?.reason).toBe("AlreadyExists");
    expect((await settings()).robot_name_prefix?.value).toBe("bot@");
    await op.kubectl.apply(
      configuration("prefix", { robotNamePrefix: "svc$", creationPolicy: "CreateOrAdopt" }),
    );
    const adopted = await op.waitFor<ConfigurationCR>(KIND, "prefix", readyForSpec);
    expect(adopted.status?.robotNamePrefix).toBe("svc$");
    expect((await settings()).robot_name_prefix?.value).toBe("svc$");
    await op.kubectl.delete(KIND, "prefix", { wait: true });
    expect((await settings()).robot_name_prefix?.value).toBe("robot$");
  });

  test("through a ClusterHarborConnection, only a tenancy with allowSystemSettings may manage the configuration", async () => {
    // Left at 45 by the resource deleted above (it no longer set it): Harbor's default again, so
    // that the tenant's resource creates its setting rather than finding someone else's.
    await op.harbor.system.updateConfigurations({ token_expiration: 30 });
    const before = 30;
    await onlyWithSystemSettings(op, {
      kind: KIND,
      resource: (connectionRef) => configuration("tenant", { connectionRef, tokenExpirationMinutes: 20 }),
      whileRefused: async () => expect((await settings()).token_expiration?.value).toBe(before),
      whenReady: async () => expect((await settings()).token_expiration?.value).toBe(20),
      afterDelete: async () => expect((await settings()).token_expiration?.value).toBe(30), // Harbor's default
    });
  });
});
