// Labels, user groups and project members together, as a team applies them: what converging costs
// Harbor per object, an export of what they created read straight from Harbor's API (no hidden
// drift: it matches the specs field for field), and what the drift sweep costs — one list per
// project for project labels and members, one list per Harbor for global labels and groups.
import { describe, expect, test } from "vitest";
import type { HarborLabelSpec } from "../../src/api/label.ts";
import type { HarborProjectMemberSpec } from "../../src/api/member.ts";
import type { HarborUserGroupSpec } from "../../src/api/user-group.ts";
import type { HarborClient } from "../../src/harbor/client.ts";
import { useOperator } from "../env/operator.ts";
import { harborCallsPerSweep } from "../env/operator-log.ts";
import { label, project, projectMember, type SpecInput, userGroup } from "../env/resources.ts";

const PROJECTS = ["blue", "green", "red"];

interface Mix {
  labels: Array<[string, SpecInput<typeof HarborLabelSpec>]>;
  groups: Array<[string, SpecInput<typeof HarborUserGroupSpec>]>;
  members: Array<[string, SpecInput<typeof HarborProjectMemberSpec>]>;
}

/** Per project two labels and three members (a user, a HarborUserGroup, an inline OIDC group); two global labels and two groups. */
function mix(): Mix {
  const m: Mix = {
    labels: [
      ["approved", { name: "Release: Approved", color: "#0065AB", description: "ok for prod" }],
      ["deprecated", { name: "deprecated", description: "do not use" }],
    ],
    groups: [
      ["platform", { type: "oidc", name: "Platform Engineers" }],
      ["proxy-ops", { type: "http", name: "proxy-ops" }],
    ],
    members: [],
  };
  for (const p of PROJECTS) {
    const projectRef = { name: p };
    m.labels.push(
      [`${p}-hot`, { projectRef, name: `${p} hotfix`, color: "#E12200" }],
      [`${p}-exp`, { projectRef, name: "experimental", description: `${p} only` }],
    );
    m.members.push(
      [`${p}-owner`, { projectRef, user: { name: `${p}-lead` }, role: "maintainer" }],
      [`${p}-platform`, { projectRef, group: { groupRef: { name: "platform" } }, role: "developer" }],
      [`${p}-auditors`, { projectRef, group: { type: "oidc", name: "auditors" }, role: "limitedGuest" }],
    );
  }
  return m;
}

const manifests = (m: Mix) => [
  ...PROJECTS.map((p) => project(p)),
  ...m.groups.map(([n, s]) => userGroup(n, s)),
  ...m.labels.map(([n, s]) => label(n, s)),
  ...m.members.map(([n, s]) => projectMember(n, s)),
];

/** What Harbor must have that no resource creates: the users and the group granted inline. */
async function prerequisites(
  harbor: HarborClient,
  control: { users: { add(u: { username: string; password: string }): unknown } },
) {
  for (const p of PROJECTS) control.users.add({ username: `${p}-lead`, password: "Lead12345" });
  await harbor.userGroups.create({ group_name: "auditors", group_type: 3 });
}

async function allReady(op: ReturnType<typeof useOperator>, m: Mix) {
  for (const p of PROJECTS) await op.waitReady("harborproject", p);
  for (const [n] of m.groups) await op.waitReady("harborusergroup", n);
  for (const [n] of m.labels) await op.waitReady("harborlabel", n);
  for (const [n] of m.members) await op.waitReady("harborprojectmember", n);
}

const GROUP_TYPES = { 1: "ldap", 2: "http", 3: "oidc" } as Record<number, "ldap" | "http" | "oidc">;

/**
 * An export of Harbor's labels, groups and members in the specs' shape, read with Harbor's API only
 * (an admin client): what a user exporting the Harbor to YAML would get.
 */
async function exportFromHarbor(harbor: HarborClient, groupNames: string[], projects: string[]) {
  const labels: Array<Record<string, unknown>> = [];
  for (const l of await harbor.labels.list({ scope: "g" }))
    labels.push({ name: l.name, color: l.color || undefined, description: l.description || undefined });
  for (const p of projects) {
    const id = (await harbor.projects.get(p)).project_id;
    for (const l of await harbor.labels.list({ scope: "p", projectId: id }))
      labels.push({
        projectRef: { name: p },
        name: l.name,
        color: l.color || undefined,
        description: l.description || undefined,
      });
  }
  const groups = new Map<number, { type: "ldap" | "http" | "oidc"; name: string }>();
  for (const name of groupNames)
    for (const g of await harbor.userGroups.search(name))
      if (g.group_name === name && typeof g.id === "number")
        groups.set(g.id, { type: GROUP_TYPES[g.group_type ?? 0] as "oidc", name });
  const members: Array<Record<string, unknown>> = [];
  for (const p of projects) {
    for (const m of await harbor.members.list(p)) {
      if (m.entity_name === "admin") continue; // the creator, which no resource manages
      const who =
        m.entity_type === "u"
          ? { user: { name: m.entity_name } }
          : { group: groups.get(m.entity_id ?? 0) ?? { unknownGroup: m.entity_id } };
      members.push({ projectRef: { name: p }, role: m.role_name, ...who });
    }
  }
  return {
    labels: labels.map(clean),
    groups: [...groups.values()].map(clean),
    members: members.map(clean),
  };
}

/** The specs as applied, in the export's shape: the operator's own fields left out, a HarborUserGroup reference by the group's identity. */
function expected(m: Mix) {
  const groupByRef = new Map(m.groups.map(([n, s]) => [n, { type: s.type, name: s.name ?? n }]));
  return {
    labels: m.labels.map(([n, s]) => clean({ ...s, name: s.name ?? n })),
    groups: m.groups
      .map(([n, s]) => clean({ type: s.type, name: s.name ?? n }))
      .concat([clean({ type: "oidc", name: "auditors" })]),
    members: m.members.map(([, s]) =>
      clean({
        projectRef: s.projectRef,
        role: s.role,
        ...(s.user
          ? { user: s.user }
          : {
              group: s.group?.groupRef
                ? groupByRef.get(s.group.groupRef.name)
                : { type: s.group?.type, name: s.group?.name },
            }),
      }),
    ),
  };
}

/** Without undefined fields, for comparison. */
const clean = (o: object): Record<string, unknown> => JSON.parse(JSON.stringify(o));
const sorted = (xs: Array<Record<string, unknown>>) =>
  [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe("converging (drift interval too long to matter): requests per object, then the export", () => {
  const op = useOperator({ namespacePrefix: "lgm-n", driftInterval: "1h" });
  /** Harbor's write count once every object was Ready. */
  let writesWhenReady = 0;

  test("every object converges in two Harbor requests, a member needing a lookup in three", async () => {
    const m = mix();
    await prerequisites(op.harbor, op.emulator.control);
    const before = op.emulator.counters.list();
    await op.kubectl.apply(manifests(m));
    await allReady(op, m);
    const since = op.emulator.counters.since(before);
    const count = (...ops: string[]) => ops.reduce((n, o) => n + (since[o] ?? 0), 0);
    const labels = m.labels.length;
    const groups = m.groups.length;
    const members = m.members.length;
    const byUser = m.members.filter(([, s]) => s.user).length;
    const inline = m.members.filter(([, s]) => s.group?.type).length;
    // The projects are new (the operator creates them in the same apply): in each, the first label
    // and the first group member are created without a lookup, as a new project holds none.
    const fresh = PROJECTS.length;
    // Labels: the lookup by name in the scope, the create; Harbor stores them as sent (no read-back).
    expect({ list: count("ListLabels"), create: count("CreateLabel"), get: count("GetLabelByID") }).toEqual({
      list: labels - fresh,
      create: labels,
      get: 0,
    });
    // Groups: the search by name (and type), the create.
    expect(count("createUserGroup", "getUserGroup", "listUserGroups")).toBe(groups);
    // Members: the project's member list, the create; a user's id from the user search, an inline
    // group's from the group search.
    expect({
      list: count("listProjectMembers"),
      create: count("createProjectMember"),
      users: count("searchUsers"),
      groupSearches: count("searchUserGroups"),
      get: count("getProjectMember"),
    }).toEqual({
      list: members - fresh,
      create: members,
      users: byUser,
      groupSearches: groups + inline,
      get: 0,
    });
    // Nothing by name that would make Harbor create something: every create was by id.
    const perObject =
      count(
        "ListLabels",
        "CreateLabel",
        "searchUserGroups",
        "createUserGroup",
        "listProjectMembers",
        "createProjectMember",
        "searchUsers",
      ) /
      (labels + groups + members);
    expect(perObject).toBeLessThanOrEqual(2.5);
    writesWhenReady = op.emulator.counters.writes();
  });

  test("an export read from Harbor's API matches the specs field for field", async () => {
    const m = mix();
    const exported = await exportFromHarbor(
      op.harbor,
      ["Platform Engineers", "proxy-ops", "auditors"],
      PROJECTS,
    );
    const want = expected(m);
    expect(sorted(exported.labels)).toEqual(sorted(want.labels));
    expect(sorted(exported.groups)).toEqual(sorted(want.groups));
    expect(sorted(exported.members)).toEqual(sorted(want.members));
    // Nothing written since the last object turned Ready (that the operator finds no drift in what
    // Harbor holds is the drift sweep's test below).
    expect(op.emulator.counters.writes()).toBe(writesWhenReady);
  });
});

describe("the drift sweep", () => {
  const op = useOperator({ namespacePrefix: "lgm-s", driftInterval: "3s" });

  test("one list per project for project labels and members, one per Harbor for global labels and groups", async () => {
    const m = mix();
    await prerequisites(op.harbor, op.emulator.control);
    await op.kubectl.apply(manifests(m));
    await allReady(op, m);
    // The operator's Harbor calls in each kind's next two sweeps, each counted from the end of the
    // kind's sweep before (the kinds sweep on timers of their own).
    const [labelSweeps, memberSweeps, groupSweeps] = await Promise.all([
      harborCallsPerSweep(op, "HarborLabel"),
      harborCallsPerSweep(op, "HarborProjectMember"),
      harborCallsPerSweep(op, "HarborUserGroup"),
    ]);
    const projects = PROJECTS.length;
    // Labels: one list per project that has labels, one of the global labels.
    expect(labelSweeps.map((s) => s.ListLabels)).toEqual([projects + 1, projects + 1]);
    // Members: one list per project.
    expect(memberSweeps.map((s) => s.listProjectMembers)).toEqual([projects, projects]);
    // Groups: one list per Harbor.
    expect(groupSweeps.map((s) => s.listUserGroups)).toEqual([1, 1]);
    // Nothing read one by one, nothing written, in any of those windows (a reconcile's calls count
    // too).
    const seen = new Set([...labelSweeps, ...memberSweeps, ...groupSweeps].flatMap((s) => Object.keys(s)));
    for (const single of [
      "GetLabelByID",
      "getUserGroup",
      "getProjectMember",
      "searchUsers",
      "searchUserGroups",
    ])
      expect(seen.has(single), single).toBe(false);
    expect([...seen].filter((o) => /^(Create|Update|Delete|create|update|delete)/.test(o))).toEqual([]);
  });
});
