// HarborConfiguration end to end: only the settings a spec sets are written (others left alone),
// changes applied, settings changed in Harbor put back and named, the LDAP bind password from an
// opted-in Secret written again when the Secret changes (a hash in status, never the value), the
// drift sweep's cost, Harbor's refusals (auth mode with users, settings fixed by the environment)
// Stalled, deletion putting the system settings back to Harbor's defaults, and the tenancy of a
// ClusterHarborConnection. What every kind does alike (creationPolicy, one resource per Harbor) is
// proven in test/unit/runtime/managed-lifecycle.test.ts, with the kind's own claim, what it takes
// over and its tenancy check in test/unit/controllers/configuration-user-mapping.test.ts; admission
// refusals in test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { requestsOverSweeps } from "../env/operator-log.ts";
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
const edited = { ...base, robotTokenDurationDays: 60, tokenExpirationMinutes: 45 };

describe("HarborConfiguration", () => {
  test("apply → the settings it sets are written, the rest left alone; a spec change is applied; settings changed in Harbor are put back and named", async () => {
    await op.kubectl.apply(configuration("config", base));
    const cr = await op.waitReady<ConfigurationCR>(KIND, "config");
    let c = await settings();
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

    await op.kubectl.apply(configuration("config", edited));
    await op.waitFor<ConfigurationCR>(KIND, "config", readyForSpec);
    c = await settings();
    expect(c.robot_token_duration?.value).toBe(60);
    expect(c.token_expiration?.value).toBe(45);

    // Right after a drift sweep, so that the next one (seconds away) reads both changes: a sweep that
    // read Harbor between these two calls (or between its own two reads) would put them back in two
    // passes, and the last correction would name only some of the fields.
    await op.sweeps("HarborConfiguration", 1);
    await op.harbor.system.updateConfigurations({
      robot_token_duration: 5,
      project_creation_restriction: "everyone",
    });
    await op.harbor.system.putCveAllowlist({ items: ["CVE-1999-0001"] });
    const reverted = await op.waitFor<ConfigurationCR>(
      KIND,
      "config",
      (o) => (o.status?.lastDriftCorrection?.fields.length ?? 0) >= 3,
    );
    expect([...(reverted.status?.lastDriftCorrection?.fields ?? [])].sort()).toEqual([
      "cveAllowlist",
      "projectCreationRestriction",
      "robotTokenDurationDays",
    ]);
    c = await settings();
    expect(c.robot_token_duration?.value).toBe(60);
    expect(c.project_creation_restriction?.value).toBe("adminonly");
    expect((await op.harbor.system.getCveAllowlist()).items?.map((i) => i.cve_id).sort()).toEqual([
      "CVE-2024-0001",
      "CVE-2024-0002",
    ]);
  });

  test("the LDAP bind password comes from an opted-in Secret and is written again when it changes", async () => {
    const bind = (password: string) =>
      secret("ldap-bind", { password }, { watched: true, usableAs: "ldap-bind-password" });
    await op.kubectl.apply(bind("Bind-pw-1"));
    await op.kubectl.apply(
      configuration("config", {
        ...edited,
        auth: {
          ldap: { searchDn: "cn=admin,dc=example,dc=com", bindPasswordSecretRef: { name: "ldap-bind" } },
        },
      }),
    );
    const cr = await op.waitFor<ConfigurationCR>(KIND, "config", readyForSpec);
    expect(op.emulator.control.configurations.get("ldap_search_password")).toBe("Bind-pw-1");
    // Recorded by the Secret's version, nothing derived from the value.
    const recorded = cr.status?.writtenSecrets?.ldapBindPassword ?? "";
    const bindSecret = await op.kubectl.get<{ metadata: { resourceVersion: string } }>("secret", "ldap-bind");
    expect(recorded).toBe(bindSecret.metadata.resourceVersion);
    expect(JSON.stringify(cr)).not.toContain("Bind-pw-1");

    await op.kubectl.apply(bind("Bind-pw-2"));
    const rewritten = await op.waitFor<ConfigurationCR>(
      KIND,
      "config",
      (o) => (o.status?.writtenSecrets?.ldapBindPassword ?? recorded) !== recorded,
    );
    expect(op.emulator.control.configurations.get("ldap_search_password")).toBe("Bind-pw-2");
    expect(JSON.stringify(rewritten)).not.toContain("Bind-pw-2");
    expect(op.output()).not.toContain("Bind-pw-2");
  });

  test("steady state: a drift sweep reads the configurations and the allowlist once each, and writes nothing", async () => {
    // One sweep first, so that no reconcile of the changes above is still reading.
    await op.sweeps("HarborConfiguration", 1);
    // Counted from the operator's log between sweep lines (the connection's own health checks
    // aside): a snapshot of the emulator's counters could take in part of a sweep before or after.
    const writes = op.emulator.counters.writes();
    const spent = await requestsOverSweeps(op, "HarborConfiguration", 2);
    expect(spent.writes).toBe(0);
    expect(op.emulator.counters.writes()).toBe(writes);
    expect(spent.requests).toEqual({ getConfigurations: 2, getSystemCVEAllowlist: 2 });
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

  test("deletion puts the system settings it set back to Harbor's defaults and empties the allowlist", async () => {
    await op.kubectl.delete(KIND, "config", { wait: true });
    const c = await settings();
    expect(c.robot_token_duration?.value).toBe(30);
    expect(c.project_creation_restriction?.value).toBe("everyone");
    expect(c.storage_per_project?.value).toBe(-1);
    expect(c.banner_message?.value).toBe("");
    expect((await op.harbor.system.getCveAllowlist()).items ?? []).toEqual([]);
  });

  test("through a ClusterHarborConnection, only a tenancy with allowSystemSettings may manage the configuration", async () => {
    // Left at 45 by the resource deleted above (it no longer set it): Harbor's default again, so
    // that the tenant's resource creates its setting rather than finding someone else's.
    await op.harbor.system.updateConfigurations({ token_expiration: 30 });
    await onlyWithSystemSettings(op, {
      kind: KIND,
      resource: (connectionRef) => configuration("tenant", { connectionRef, tokenExpirationMinutes: 20 }),
      whileRefused: async () => expect((await settings()).token_expiration?.value).toBe(30),
      whenReady: async () => expect((await settings()).token_expiration?.value).toBe(20),
      afterDelete: async () => expect((await settings()).token_expiration?.value).toBe(30), // Harbor's default
    });
  });
});
