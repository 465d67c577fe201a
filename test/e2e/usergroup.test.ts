// HarborUserGroup end to end: kubectl → apiserver → the operator process → Harbor (the emulator).
// What is the group's own: HTTP and OIDC groups by name and type, LDAP groups by DN (looked up in the
// directory first, waiting while it or Harbor's auth mode does not allow them), renaming an LDAP
// group, adoption by DN or by name and type, deletion blocked while members in the cluster grant the
// group, and input refused at admission. The shared lifecycle cases are proven on projects.
import { afterAll, describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { refusedByKubectl } from "../env/refused.ts";
import {
  condition,
  eventsOf,
  invalid,
  project,
  projectMember,
  readyForSpec,
  stalled,
  type UserGroupCR,
  userGroup,
} from "../env/resources.ts";

const RESOURCE = "harborusergroup";
const op = useOperator({ namespacePrefix: "ugroup" });
const DN = "cn=Platform Team,ou=groups,dc=example,dc=com";

/** Harbor's groups as stored (the list's auth-mode filter does not apply). */
const groups = () => op.emulator.control.userGroups.list();

afterAll(() => {
  op.emulator.control.ldap.setAuthMode("db");
});

describe("HarborUserGroup", () => {
  test("an OIDC group: Ready, in Harbor by name and type, in two Harbor requests", async () => {
    const before = op.emulator.counters.list();
    await op.kubectl.apply(userGroup("devs", { name: "Developers (EU)" }));
    const cr = await op.waitReady<UserGroupCR>(RESOURCE, "devs");
    const id = cr.status?.harborId as number;
    // The drift sweep's list may run meanwhile; the reconcile made two requests.
    const { listUserGroups: _sweep, ...reconcile } = op.emulator.counters.since(before);
    expect(reconcile).toEqual({ searchUserGroups: 1, createUserGroup: 1 });
    expect(await op.harbor.userGroups.get(id)).toEqual({ group_name: "Developers (EU)", group_type: 3 });
    const table = await op.kubectl.run(["get", "harborusergroups"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+TYPE\s+AGE/);
    expect(table).toMatch(new RegExp(`devs\\s+True\\s+Synced\\s+${id}\\s+oidc\\s`));
  });

  test("adoption of an HTTP group by name and type, not by name alone", async () => {
    await op.harbor.userGroups.create({ group_name: "ops", group_type: 3 }); // same name, other type
    await op.harbor.userGroups.create({ group_name: "ops-team", group_type: 2 }); // contains the name
    const id = await op.harbor.userGroups.create({ group_name: "ops", group_type: 2 });
    await op.kubectl.apply(userGroup("ops", { type: "http", creationPolicy: "Adopt" }));
    const cr = await op.waitReady<UserGroupCR>(RESOURCE, "ops");
    expect(cr.status?.harborId).toBe(id);
  });

  test("an LDAP group waits for its DN in the directory, then for LDAP auth mode, then is created", async () => {
    const creates = op.emulator.counters.total({ op: "createUserGroup" });
    await op.kubectl.apply(userGroup("platform", { type: "ldap", name: "platform", ldapGroupDn: DN }));
    const missing = await op.waitFor<UserGroupCR>(
      RESOURCE,
      "platform",
      (o) => condition(o, "Ready")?.reason === "LdapGroupNotFound",
    );
    expect(condition(missing, "Ready")?.message).toContain(`"${DN}"`);
    expect(stalled(missing)).toBe(false);
    // Harbor was never asked: no 400, no group.
    expect(op.emulator.counters.total({ op: "createUserGroup" })).toBe(creates);

    op.emulator.control.ldap.addGroup({ name: "Platform Team", dn: DN });
    const wrongMode = await op.waitFor<UserGroupCR>(
      RESOURCE,
      "platform",
      (o) => condition(o, "Ready")?.reason === "LdapAuthRequired",
      45_000,
    );
    expect(condition(wrongMode, "Ready")?.message).toContain("runs in db_auth mode");

    op.emulator.control.ldap.setAuthMode("ldap");
    const cr = await op.waitReady<UserGroupCR>(RESOURCE, "platform", 45_000);
    // Harbor keeps the DN trimmed and lower-cased.
    expect(cr.status?.ldapGroupDn).toBe(DN.toLowerCase());
    expect(await op.harbor.userGroups.get(cr.status?.harborId as number)).toEqual({
      group_name: "platform",
      group_type: 1,
      ldap_group_dn: DN.toLowerCase(),
    });
  });

  test("an LDAP group's name follows the spec, and a rename in Harbor is put back", async () => {
    await op.kubectl.apply(userGroup("platform", { type: "ldap", name: "Platform Team", ldapGroupDn: DN }));
    const cr = await op.waitFor<UserGroupCR>(RESOURCE, "platform", readyForSpec);
    const id = cr.status?.harborId as number;
    expect((await op.harbor.userGroups.get(id)).group_name).toBe("Platform Team");
    await op.harbor.userGroups.update(id, { group_name: "renamed in the UI" });
    const after = await op.waitFor<UserGroupCR>(
      RESOURCE,
      "platform",
      (o) => JSON.stringify(o.status?.lastDriftCorrection?.fields) === '["name"]',
      30_000,
    );
    expect(after.status?.harborId).toBe(id);
    expect((await op.harbor.userGroups.get(id)).group_name).toBe("Platform Team");
  });

  test("an LDAP group is adopted by its DN, whatever its letter case or name", async () => {
    const dn = "cn=auditors,ou=groups,dc=example,dc=com";
    op.emulator.control.ldap.addGroup({ name: "auditors", dn });
    const id = await op.harbor.userGroups.create({ group_name: "Audit", group_type: 1, ldap_group_dn: dn });
    await op.kubectl.apply(
      userGroup("auditors", {
        type: "ldap",
        name: "Audit",
        ldapGroupDn: "CN=Auditors,OU=Groups,DC=Example,DC=Com",
        creationPolicy: "Adopt",
      }),
    );
    const cr = await op.waitReady<UserGroupCR>(RESOURCE, "auditors");
    expect(cr.status?.harborId).toBe(id);
  });

  test("deletion waits while a member grants the group, and Harbor's removal of memberships is named", async () => {
    await op.kubectl.apply([
      project("team"),
      userGroup("granted", { name: "granted" }),
      projectMember("team-granted", {
        projectRef: { name: "team" },
        group: { groupRef: { name: "granted" } },
      }),
    ]);
    const group = await op.waitReady<UserGroupCR>(RESOURCE, "granted");
    await op.waitReady("harborprojectmember", "team-granted");
    await op.kubectl.delete(RESOURCE, "granted");
    const blocked = await op.waitFor<UserGroupCR>(
      RESOURCE,
      "granted",
      (o) => condition(o, "Ready")?.reason === "DeletionBlocked",
    );
    expect(condition(blocked, "Ready")?.message).toContain(
      `HarborProjectMember ${op.namespace}/team-granted`,
    );
    const id = group.status?.harborId as number;
    expect(groups().some((g) => g.id === id)).toBe(true);
    // A membership granted in Harbor, outside the cluster, does not hold the group.
    op.emulator.control.userGroups.addToProject(id, "library", 3);

    await new Promise((r) => setTimeout(r, 16_000)); // the retry backoff grows past the wait below
    const started = Date.now();
    await op.kubectl.delete("harborprojectmember", "team-granted", { wait: true });
    await op.kubectl.wait(RESOURCE, "granted", "delete", 8_000);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(groups().some((g) => g.id === id)).toBe(false);
    expect(op.emulator.control.userGroups.memberships(id)).toEqual({});
    const deleted = (await eventsOf(op.kubectl, "granted", "HarborUserGroup")).find(
      (e) => e.reason === "Deleted",
    );
    expect(deleted?.message).toContain("Harbor also removed the group's memberships in every project");
  });

  test("steady state: no Harbor writes, one group list per sweep", async () => {
    const before = op.emulator.counters.list();
    const writes = op.emulator.counters.writes();
    await new Promise((r) => setTimeout(r, 8_000));
    const since = op.emulator.counters.since(before);
    expect(op.emulator.counters.writes()).toBe(writes);
    const lists = since.listUserGroups ?? 0;
    expect(lists).toBeGreaterThan(0);
    // LDAP mode lists only LDAP groups: the OIDC and the HTTP group are read by id in each sweep.
    expect((since.getUserGroup ?? 0) / lists).toBeLessThanOrEqual(2);
  });

  test("invalid YAML is refused by kubectl, naming the field", async () => {
    const refused = (o: object) => refusedByKubectl(op.kubectl, o);
    expect(await refused(userGroup("no-dn", { type: "ldap" }))).toMatch(
      /spec\.ldapGroupDn: .*an ldap group needs ldapGroupDn/,
    );
    expect(await refused(userGroup("dn-on-oidc", { ldapGroupDn: DN }))).toMatch(
      /ldapGroupDn is only for type ldap, and this group has type oidc/,
    );
    expect(await refused(userGroup("bad-dn", { type: "ldap", ldapGroupDn: "not a dn" }))).toMatch(
      /spec\.ldapGroupDn.*must be an LDAP DN/,
    );
    expect(await refused(userGroup("kind", { type: invalid("ad") }))).toMatch(/spec\.type/);
    expect(await refused(userGroup("devs", { type: "http", name: "Developers (EU)" }))).toContain(
      'type is immutable: a user group keeps its kind; it stays "oidc"',
    );
    expect(await refused(userGroup("devs", { name: "Developers" }))).toMatch(
      /spec\.name: .*name is immutable for http and oidc groups/,
    );
    expect(
      await refused(
        userGroup("platform", { type: "ldap", name: "Platform Team", ldapGroupDn: "cn=other,dc=x" }),
      ),
    ).toMatch(/ldapGroupDn is immutable: it stays/);
  });
});
