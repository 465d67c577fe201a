// HarborProjectMember end to end: kubectl → apiserver → the operator process → Harbor (the emulator).
// What is the member's own: users and groups added by resolved id (never a name that makes Harbor
// create a group), LDAP users imported first and the honest waits when Harbor cannot import them,
// inline group identities, the role kept against changes in Harbor, adoption of the project
// creator's membership, one owner per member, deletion with or without its project, and input
// refused at admission. The shared lifecycle cases are proven on projects.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { refusedByKubectl } from "../env/refused.ts";
import {
  condition,
  eventsOf,
  invalid,
  type ProjectMemberCR,
  project,
  projectMember,
  readyForSpec,
  stalled,
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
  test("a HarborUserGroup as developer: Ready, in Harbor's member list with that role", async () => {
    await op.kubectl.apply(
      projectMember("team-devs", { projectRef: { name: "team" }, group: { groupRef: { name: "devs" } } }),
    );
    const cr = await op.waitReady<ProjectMemberCR>(RESOURCE, "team-devs");
    const group = await op.kubectl.get<{ status?: { harborId?: number } }>("harborusergroup", "devs");
    const member = (await membersOf("team")).find((m) => m.entity_type === "g");
    expect(member).toMatchObject({
      id: cr.status?.harborId,
      entity_name: "devs",
      entity_id: group.status?.harborId,
      role_name: "developer",
      role_id: 2,
    });
    expect(cr.status).toMatchObject({
      memberType: "group",
      memberName: "devs",
      entityId: group.status?.harborId,
      role: "developer",
      projectId: (await op.harbor.projects.get("team")).project_id,
    });
    const table = await op.kubectl.run(["get", "harborprojectmembers"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+PROJECT\s+TYPE\s+MEMBER\s+ROLE\s+AGE/);
    expect(table).toMatch(/team-devs\s+True\s+Synced\s+\d+\s+team\s+group\s+devs\s+developer\s/);
  });

  test("a user Harbor has, by name; the role follows the spec and is put back when changed in Harbor", async () => {
    op.emulator.control.users.add({ username: "carol", password: "Carol12345" });
    await op.kubectl.apply(
      projectMember("team-carol", { projectRef: { name: "team" }, user: { name: "carol" }, role: "guest" }),
    );
    const cr = await op.waitReady<ProjectMemberCR>(RESOURCE, "team-carol");
    expect(cr.status).toMatchObject({ memberType: "user", memberName: "carol", role: "guest" });
    const id = cr.status?.harborId as number;

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
      (o) => JSON.stringify(o.status?.lastDriftCorrection?.fields) === '["role"]',
      30_000,
    );
    expect(after.status?.harborId).toBe(id);
    expect((await op.harbor.members.get("team", id)).role_name).toBe("maintainer");
    expect((await eventsOf(op.kubectl, "team-carol", "HarborProjectMember")).map((e) => e.reason)).toContain(
      "DriftCorrected",
    );
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
    const cr = await op.waitReady<ProjectMemberCR>(RESOURCE, "team-lena", 45_000);
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
    const cr = await op.waitReady<ProjectMemberCR>(RESOURCE, "team-qa", 45_000);
    expect(cr.status).toMatchObject({ memberType: "group", memberName: "QA", entityId: id });
    expect(groupCount()).toBe(groups + 1);
  });

  test("an inline group deleted and created again in Harbor: the member is added to the new group", async () => {
    const before = await op.kubectl.get<ProjectMemberCR>(RESOURCE, "team-qa");
    const old = before.status?.entityId as number;
    const dn = "cn=qa,ou=groups,dc=example,dc=com";
    await op.harbor.userGroups.delete(old); // Harbor removes the membership with it
    const id = await op.harbor.userGroups.create({ group_name: "QA", group_type: 1, ldap_group_dn: dn });
    const after = await op.waitFor<ProjectMemberCR>(
      RESOURCE,
      "team-qa",
      (o) => o.status?.entityId === id && condition(o, "Ready")?.status === "True",
      30_000,
    );
    expect(after.status?.harborId).not.toBe(before.status?.harborId);
    expect((await membersOf("team")).find((m) => m.entity_name === "QA")).toMatchObject({ entity_id: id });
    expect((await eventsOf(op.kubectl, "team-qa", "HarborProjectMember")).map((e) => e.reason)).toContain(
      "Recreated",
    );
  });

  test("the project creator's membership: refused by Create, adopted by CreateOrAdopt", async () => {
    await op.kubectl.apply(
      projectMember("team-admin", {
        projectRef: { name: "team" },
        user: { name: "admin" },
        role: "projectAdmin",
      }),
    );
    const refused = await op.waitFor<ProjectMemberCR>(
      RESOURCE,
      "team-admin",
      (o) => condition(o, "Ready")?.reason === "AlreadyExists",
    );
    expect(stalled(refused)).toBe(true);
    await op.kubectl.apply(
      projectMember("team-admin", {
        projectRef: { name: "team" },
        user: { name: "admin" },
        role: "projectAdmin",
        creationPolicy: "CreateOrAdopt",
        deletionPolicy: "Orphan",
      }),
    );
    const adopted = await op.waitFor<ProjectMemberCR>(RESOURCE, "team-admin", readyForSpec);
    const admin = (await membersOf("team")).find((m) => m.entity_name === "admin");
    expect(adopted.status?.harborId).toBe(admin?.id);
    await op.kubectl.delete(RESOURCE, "team-admin", { wait: true });
    expect((await membersOf("team")).some((m) => m.entity_name === "admin")).toBe(true);
  });

  test("the same group by reference and by identity is one member: the second resource is a Conflict", async () => {
    await op.kubectl.apply(
      projectMember("team-devs-again", {
        projectRef: { name: "team" },
        group: { type: "oidc", name: "devs" },
        role: "guest",
      }),
    );
    const cr = await op.waitFor<ProjectMemberCR>(
      RESOURCE,
      "team-devs-again",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(cr, "Ready")?.message).toContain("team-devs");
    await op.kubectl.delete(RESOURCE, "team-devs-again", { wait: true });
    expect((await membersOf("team")).find((m) => m.entity_name === "devs")?.role_name).toBe("developer");
  });

  test("deleting a member removes it from the project and nothing else", async () => {
    const groups = groupCount();
    await op.kubectl.delete(RESOURCE, "team-qa", { wait: true });
    expect((await membersOf("team")).some((m) => m.entity_name === "QA")).toBe(false);
    expect(groupCount()).toBe(groups);
  });

  test("a member and its project deleted together both go", async () => {
    await op.kubectl.apply([
      project("short-lived"),
      projectMember("short-devs", {
        projectRef: { name: "short-lived" },
        group: { groupRef: { name: "devs" } },
      }),
    ]);
    await op.waitReady(RESOURCE, "short-devs");
    await op.kubectl.run([
      "delete",
      "harborproject/short-lived",
      "harborprojectmember/short-devs",
      "--wait=false",
    ]);
    await op.kubectl.wait("harborproject", "short-lived", "delete", 30_000);
    await op.kubectl.wait(RESOURCE, "short-devs", "delete", 30_000);
    await expect(op.harbor.projects.get("short-lived")).rejects.toMatchObject({ status: 404 });
  });

  test("steady state: no Harbor writes, the sweep lists members per project", async () => {
    const before = op.emulator.counters.list();
    const writes = op.emulator.counters.writes();
    await new Promise((r) => setTimeout(r, 8_000));
    const since = op.emulator.counters.since(before);
    expect(op.emulator.counters.writes()).toBe(writes);
    expect(since.listProjectMembers).toBeGreaterThan(0);
    expect(since.getProjectMember).toBeUndefined();
    expect(since.searchUsers).toBeUndefined();
  });

  test("invalid YAML is refused by kubectl, naming the field", async () => {
    const refused = (o: object) => refusedByKubectl(op.kubectl, o);
    const team = { projectRef: { name: "team" } };
    expect(
      await refused(
        projectMember("both", { ...team, user: { name: "a" }, group: { groupRef: { name: "devs" } } }),
      ),
    ).toMatch(/spec\.user: .*set exactly one of user and group/);
    expect(await refused(projectMember("neither", team))).toMatch(/set exactly one of user and group/);
    expect(
      await refused(
        projectMember("ref-and-name", { ...team, group: { groupRef: { name: "devs" }, name: "x" } }),
      ),
    ).toMatch(/spec\.group\.groupRef: .*set either groupRef|name and ldapGroupDn go with type/);
    expect(
      await refused(projectMember("ldap-by-name", { ...team, group: { type: "ldap", name: "x" } })),
    ).toMatch(/an ldap group is named by ldapGroupDn/);
    expect(
      await refused(
        projectMember("oidc-by-dn", { ...team, group: { type: "oidc", ldapGroupDn: "cn=x,dc=y" } }),
      ),
    ).toMatch(/an http or oidc group is named by name/);
    expect(
      await refused(projectMember("role", { ...team, user: { name: "a" }, role: invalid("owner") })),
    ).toMatch(/spec\.role/);
    expect(await refused(projectMember("comma", { ...team, user: { name: "a,b" } }))).toMatch(
      /spec\.user\.name/,
    );
    expect(
      await refused(
        projectMember("team-carol", {
          projectRef: { name: "other" },
          user: { name: "carol" },
          role: "maintainer",
        }),
      ),
    ).toMatch(/projectRef is immutable/);
    expect(
      await refused(projectMember("team-carol", { ...team, user: { name: "dave" }, role: "maintainer" })),
    ).toMatch(/user is immutable: it stays "carol"/);
  });
});
