// HarborUserGroup end to end: kubectl → apiserver → the operator process → Harbor (the emulator).
// What needs them for the group: HTTP and OIDC groups by name and type (Harbor's search answers
// parts of names and every type), LDAP groups by DN (looked up in the directory first, waiting while
// it or Harbor's auth mode does not allow them), renaming an LDAP group, deletion held while members
// in the cluster grant the group and released by their going, and what the drift sweep reads in
// LDAP mode. The group's identity, drift and claim are rows of
// test/unit/controllers/user-group-mapping.test.ts, its refusals rows of the admission table
// (test/integration/cluster/admission.test.ts), and the lifecycle every kind shares is proven in
// test/unit/runtime/managed-lifecycle.test.ts.
import { afterAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { useOperator } from "../env/operator.ts";
import { harborCallsPerSweep, reconcileLog } from "../env/operator-log.ts";
import {
  condition,
  eventOf,
  harborIdOf,
  project,
  projectMember,
  readyForSpec,
  stalled,
  type UserGroupCR,
  userGroup,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

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
    const id = harborIdOf(cr);
    // The drift sweep's list and the connection's own health check may run meanwhile; the
    // reconcile made two requests.
    const {
      listUserGroups: _sweep,
      getSystemInfo: _health,
      getCurrentUserInfo: _login,
      ...reconcile
    } = op.emulator.counters.since(before);
    expect(reconcile).toEqual({ searchUserGroups: 1, createUserGroup: 1 });
    expect(await op.harbor.userGroups.get(id)).toEqual({ group_name: "Developers (EU)", group_type: 3 });
    const table = await op.kubectl.run(["get", "harborusergroups"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+TYPE\s+AGE/);
    expect(table).toMatch(new RegExp(`devs\\s+True\\s+Synced\\s+${id}\\s+oidc\\s`));
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
    );
    expect(condition(wrongMode, "Ready")?.message).toContain("runs in db_auth mode");

    op.emulator.control.ldap.setAuthMode("ldap");
    const cr = await op.waitReady<UserGroupCR>(RESOURCE, "platform");
    // Harbor keeps the DN trimmed and lower-cased.
    expect(cr.status?.ldapGroupDn).toBe(DN.toLowerCase());
    expect(await op.harbor.userGroups.get(harborIdOf(cr))).toEqual({
      group_name: "platform",
      group_type: 1,
      ldap_group_dn: DN.toLowerCase(),
    });
  });

  test("an LDAP group's name follows the spec, a rename in Harbor is put back, and deletion removes the group", async () => {
    await op.kubectl.apply(userGroup("platform", { type: "ldap", name: "Platform Team", ldapGroupDn: DN }));
    const cr = await op.waitFor<UserGroupCR>(RESOURCE, "platform", readyForSpec);
    const id = harborIdOf(cr);
    expect((await op.harbor.userGroups.get(id)).group_name).toBe("Platform Team");
    await op.harbor.userGroups.update(id, { group_name: "renamed in the UI" });
    const after = await op.waitFor<UserGroupCR>(
      RESOURCE,
      "platform",
      (o) => o.status?.lastDriftCorrection !== undefined,
    );
    expect(after.status?.lastDriftCorrection?.fields).toEqual(["name"]);
    expect(harborIdOf(after)).toBe(id);
    expect((await op.harbor.userGroups.get(id)).group_name).toBe("Platform Team");

    await op.kubectl.delete(RESOURCE, "platform", { wait: true });
    expect(groups().some((g) => g.id === id)).toBe(false);
  });

  test("adoption: an HTTP group by name and type, not by name alone; an LDAP group by its DN, whatever its letter case or name", async () => {
    await op.harbor.userGroups.create({ group_name: "ops", group_type: 3 }); // same name, other type
    await op.harbor.userGroups.create({ group_name: "ops-team", group_type: 2 }); // contains the name
    const http = await op.harbor.userGroups.create({ group_name: "ops", group_type: 2 });
    const dn = "cn=auditors,ou=groups,dc=example,dc=com";
    op.emulator.control.ldap.addGroup({ name: "auditors", dn });
    const ldap = await op.harbor.userGroups.create({ group_name: "Audit", group_type: 1, ldap_group_dn: dn });
    await op.kubectl.apply([
      userGroup("ops", { type: "http", creationPolicy: "Adopt" }),
      userGroup("auditors", {
        type: "ldap",
        name: "Audit",
        ldapGroupDn: "CN=Auditors,OU=Groups,DC=Example,DC=Com",
        creationPolicy: "Adopt",
      }),
    ]);
    expect(harborIdOf(await op.waitReady<UserGroupCR>(RESOURCE, "ops"))).toBe(http);
    expect(harborIdOf(await op.waitReady<UserGroupCR>(RESOURCE, "auditors"))).toBe(ldap);
  });

  test("deletion waits while a member grants the group, and their going lets it go; Harbor's removal of memberships is named", async () => {
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
    const id = harborIdOf(group);
    expect(groups().some((g) => g.id === id)).toBe(true);
    // A membership granted in Harbor, outside the cluster, does not hold the group.
    op.emulator.control.userGroups.addToProject(id, "library", 3);

    // A blocked deletion is looked at again less often (5 s, 10 s, 20 s, …). Once its next look is
    // far enough away (further on a slower machine), a deletion before it is due can only come from
    // the member's going, which the kind wiring turns into a reconcile of the group.
    const far = 10_000 * budget.scale;
    const scheduled = await until("a retry of the blocked deletion scheduled far enough away", () =>
      reconcileLog(op, "HarborUserGroup", "granted").find(
        (e) => e.msg === "reconciled" && Number(e.requeueAfterMs) >= far,
      ),
    );
    await op.kubectl.delete("harborprojectmember", "team-granted", { wait: true });
    await op.kubectl.wait(RESOURCE, "granted", "delete", budget.operatorMs);
    // The line follows the finalizer's removal, which kubectl saw first: on its way through the pipe.
    const released = await until("the group's finalizer removed, in the operator's log", () =>
      reconcileLog(op, "HarborUserGroup", "granted").find((e) => e.msg === "finalizer removed"),
    );
    expect(
      Date.parse(released.time),
      "the group went before its retry was due: the member's going queued it",
    ).toBeLessThan(Date.parse(scheduled.time) + Number(scheduled.requeueAfterMs));
    expect(groups().some((g) => g.id === id)).toBe(false);
    expect(op.emulator.control.userGroups.memberships(id)).toEqual({});
    await eventOf(
      op.kubectl,
      "granted",
      "HarborUserGroup",
      "Deleted",
      "Harbor also removed the group's memberships in every project",
    );
  });

  test("in LDAP mode the drift sweep lists the groups once and reads the OIDC and HTTP groups by id; nothing is written", async () => {
    const writes = op.emulator.counters.writes();
    // Harbor's list in LDAP mode leaves out the other types: here "devs" (OIDC) and "ops" (HTTP).
    for (const sweep of await harborCallsPerSweep(op, "HarborUserGroup")) {
      expect(sweep.listUserGroups).toBe(1);
      expect(sweep.getUserGroup).toBe(2);
    }
    expect(op.emulator.counters.writes()).toBe(writes);
  });
});
