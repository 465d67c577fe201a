// HarborProjectMember end to end: kubectl → apiserver → the operator process → Harbor (the emulator).
// What needs them for the member: users and groups added by resolved id (never a name that makes
// Harbor create a group), LDAP users imported first and the honest waits when Harbor cannot import
// them, inline group identities (a group deleted and created again in Harbor is found again), the
// role kept against changes in Harbor, and deletion alone or with its project. Who the member is,
// its drift and its claim are rows of test/unit/controllers/member-mapping.test.ts, its refusals
// rows of the admission table (test/integration/cluster/admission.test.ts), what its drift sweep
// reads is counted in labels-groups-members-export.test.ts, and the lifecycle every kind shares is
// proven in test/unit/runtime/managed-lifecycle.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  eventOf,
  harborIdOf,
  type ProjectMemberCR,
  project,
  projectMember,
  readyForSpec,
  stalled,
  type UserGroupCR,
  userGroup,
} from "../env/resources.ts";

const RESOURCE = "harborprojectmember";
const op = useOperator({ namespacePrefix: "member" });

/** The project's members as Harbor lists them. */
const membersOf = (projectName: string) => op.harbor.members.list(projectName);
const groupCount = () => op.emulator.control.userGroups.list().length;

beforeAll(async () => {
  await op.kubectl.apply([project("team"), userGroup("devs", { name: "devs" })]);
  await op.waitReady("harborproject", "team");
  await op.waitReady("harborusergroup", "devs");
});

afterAll(() => {
  op.emulator.control.ldap.setAuthMode("db");
});

describe("HarborProjectMember", () => {
  test("a HarborUserGroup as developer: Ready, in Harbor's member list by the group's id with that role", async () => {
    await op.kubectl.apply(
      projectMember("team-devs", { projectRef: { name: "team" }, group: { groupRef: { name: "devs" } } }),
    );
    const cr = await op.waitReady<ProjectMemberCR>(RESOURCE, "team-devs");
    const group = harborIdOf(await op.kubectl.get<UserGroupCR>("harborusergroup", "devs"));
    const member = (await membersOf("team")).find((m) => m.entity_type === "g");
    expect(member).toMatchObject({
      id: cr.status?.harborId,
      entity_name: "devs",
      entity_id: group,
      role_name: "developer",
      role_id: 2,
    });
    expect(cr.status).toMatchObject({
      memberType: "group",
      memberName: "devs",
      entityId: group,
      role: "developer",
      projectId: (await op.harbor.projects.get("team")).project_id,
    });
    const table = await op.kubectl.run(["get", "harborprojectmembers"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+PROJECT\s+TYPE\s+MEMBER\s+ROLE\s+AGE/);
    expect(table).toMatch(/team-devs\s+True\s+Synced\s+\d+\s+team\s+group\s+devs\s+developer\s/);
  });

  test("an LDAP user Harbor lacks waits while Harbor cannot import it, and is imported in LDAP mode", async () => {
    op.emulator.control.ldap.addUser({ uid: "lena", email: "lena@example.com" });
    await op.kubectl.apply(
      projectMember("team-lena", { projectRef: { name: "team" }, user: { name: "lena" } }),
    );
    const dbMode = await op.waitFor<ProjectMemberCR>(
      RESOURCE,
      "team-lena",
      (o) => condition(o, "Ready")?.reason === "UserNotFound",
    );
    expect(condition(dbMode, "Ready")?.message).toContain(
      "runs in db_auth mode, where it imports no LDAP users",
    );
    expect(stalled(dbMode)).toBe(false);
    expect(await op.harbor.users.search("lena")).toEqual([]);

    op.emulator.control.ldap.setAuthMode("ldap");
    const cr = await op.waitReady<ProjectMemberCR>(RESOURCE, "team-lena");
    expect((await op.harbor.users.search("lena")).map((u) => u.username)).toEqual(["lena"]);
    expect(cr.status).toMatchObject({ memberType: "user", memberName: "lena", role: "developer" });

    // A user the directory lacks too.
    await op.kubectl.apply(
      projectMember("team-ghost", { projectRef: { name: "team" }, user: { name: "ghost" } }),
    );
    const ghost = await op.waitFor<ProjectMemberCR>(
      RESOURCE,
      "team-ghost",
      (o) => condition(o, "Ready")?.reason === "UserNotFound",
    );
    expect(condition(ghost, "Ready")?.message).toContain("its LDAP directory none either");
    await op.kubectl.delete(RESOURCE, "team-ghost", { wait: true });
  });

  test("an inline group Harbor lacks waits; no group is created as a side effect", async () => {
    const dn = "cn=qa,ou=groups,dc=example,dc=com";
    op.emulator.control.ldap.addGroup({ name: "qa", dn }); // the directory has it: Harbor could create it
    const groups = groupCount();
    const creates = op.emulator.counters.total({ op: "createProjectMember" });
    await op.kubectl.apply(
      projectMember("team-qa", {
        projectRef: { name: "team" },
        group: { type: "ldap", ldapGroupDn: "CN=QA,OU=Groups,DC=Example,DC=Com" },
      }),
    );
    const waiting = await op.waitFor<ProjectMemberCR>(
      RESOURCE,
      "team-qa",
      (o) => condition(o, "Ready")?.reason === "GroupNotFound",
    );
    expect(condition(waiting, "Ready")?.message).toContain(`Harbor has no ldap user group with DN "${dn}"`);
    expect(groupCount()).toBe(groups);
    expect(op.emulator.counters.total({ op: "createProjectMember" })).toBe(creates);

    // Someone creates the group in Harbor: the member is added to it.
    const id = await op.harbor.userGroups.create({ group_name: "QA", group_type: 1, ldap_group_dn: dn });
    const cr = await op.waitReady<ProjectMemberCR>(RESOURCE, "team-qa");
    expect(cr.status).toMatchObject({ memberType: "group", memberName: "QA", entityId: id });
    expect(groupCount()).toBe(groups + 1);
  });

  test("an inline group deleted and created again in Harbor: the member is added to the new group; deleting the member leaves the group", async () => {
    const before = await op.kubectl.get<ProjectMemberCR>(RESOURCE, "team-qa");
    const old = before.status?.entityId as number;
    const dn = "cn=qa,ou=groups,dc=example,dc=com";
    await op.harbor.userGroups.delete(old); // Harbor removes the membership with it
    const id = await op.harbor.userGroups.create({ group_name: "QA", group_type: 1, ldap_group_dn: dn });
    const after = await op.waitFor<ProjectMemberCR>(
      RESOURCE,
      "team-qa",
      (o) => o.status?.entityId === id && condition(o, "Ready")?.status === "True",
    );
    expect(after.status?.harborId).not.toBe(before.status?.harborId);
    expect((await membersOf("team")).find((m) => m.entity_name === "QA")).toMatchObject({ entity_id: id });
    await eventOf(op.kubectl, "team-qa", "HarborProjectMember", "Recreated");

    const groups = groupCount();
    await op.kubectl.delete(RESOURCE, "team-qa", { wait: true });
    expect((await membersOf("team")).some((m) => m.entity_name === "QA")).toBe(false);
    expect(groupCount()).toBe(groups);
  });

  test("a user by name: the role follows the spec and is put back when changed in Harbor; deletion removes the membership, and a project deleted with its members takes them all", async () => {
    op.emulator.control.users.add({ username: "carol", password: "Carol12345" });
    await op.kubectl.apply(
      projectMember("team-carol", { projectRef: { name: "team" }, user: { name: "carol" }, role: "guest" }),
    );
    const cr = await op.waitReady<ProjectMemberCR>(RESOURCE, "team-carol");
    expect(cr.status).toMatchObject({ memberType: "user", memberName: "carol", role: "guest" });
    const id = harborIdOf(cr);

    await op.kubectl.apply(
      projectMember("team-carol", {
        projectRef: { name: "team" },
        user: { name: "carol" },
        role: "maintainer",
      }),
    );
    await op.waitFor<ProjectMemberCR>(
      RESOURCE,
      "team-carol",
      (o) => readyForSpec(o) && o.status?.role === "maintainer",
    );
    expect((await op.harbor.members.get("team", id)).role_name).toBe("maintainer");

    await op.harbor.members.updateRole("team", id, 1); // someone makes carol a project admin
    const after = await op.waitFor<ProjectMemberCR>(
      RESOURCE,
      "team-carol",
      (o) => o.status?.lastDriftCorrection !== undefined,
    );
    expect(after.status?.lastDriftCorrection?.fields).toEqual(["role"]);
    expect(harborIdOf(after)).toBe(id);
    expect((await op.harbor.members.get("team", id)).role_name).toBe("maintainer");
    await eventOf(op.kubectl, "team-carol", "HarborProjectMember", "DriftCorrected");

    await op.kubectl.delete(RESOURCE, "team-carol", { wait: true });
    expect((await membersOf("team")).some((m) => m.entity_name === "carol")).toBe(false);
    expect((await op.harbor.users.search("carol")).map((u) => u.username)).toEqual(["carol"]);

    // The project and the members left in it (a group's and an LDAP user's), deleted at once: each
    // member's deletion uses the project id it recorded, whichever goes first.
    await op.kubectl.run([
      "delete",
      "harborproject/team",
      `${RESOURCE}/team-devs`,
      `${RESOURCE}/team-lena`,
      "--wait=false",
    ]);
    for (const [kind, name] of [
      ["harborproject", "team"],
      [RESOURCE, "team-devs"],
      [RESOURCE, "team-lena"],
    ] as const)
      await op.kubectl.wait(kind, name, "delete", budget.operatorMs);
    await expect(op.harbor.projects.get("team")).rejects.toMatchObject({ status: 404 });
  });
});
