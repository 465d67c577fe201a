import { describe, expect, test } from "vitest";
import { HarborProjectMemberSpec } from "../../../src/api/member.ts";
import { memberExternal } from "../../../src/controllers/member/external.ts";
import {
  created,
  describeMember,
  diff,
  entityClaim,
  grants,
  inlineGroup,
  isEntity,
  roleId,
  status,
  withRole,
} from "../../../src/controllers/member/mapping.ts";
import type { ManagedObject } from "../../../src/runtime/external-client.ts";
import type { Informer } from "../../../src/runtime/informer.ts";

const spec = (s: Record<string, unknown>) =>
  HarborProjectMemberSpec.parse({
    connectionRef: { name: "h" },
    projectRef: { name: "team" },
    role: "developer",
    ...s,
  });
const group = (name: string, namespace: string, s: Record<string, unknown>): ManagedObject => ({
  apiVersion: "harborconfig.io/v1alpha1",
  kind: "HarborUserGroup",
  metadata: { name, namespace },
  spec: s,
});

describe("roles", () => {
  test("Harbor's role ids", () => {
    expect(
      ["projectAdmin", "developer", "guest", "maintainer", "limitedGuest"].map((r) => roleId(r as never)),
    ).toEqual([1, 2, 3, 4, 5]);
  });

  test("drift is the role only", () => {
    expect(diff(spec({ user: { name: "a" } }), { role_id: 2 })).toEqual([]);
    expect(diff(spec({ user: { name: "a" }, role: "guest" }), { role_id: 1 })).toEqual(["role"]);
  });
});

describe("who the member is", () => {
  test("a user by name; a group by its id, never by name alone", () => {
    expect(
      isEntity({ type: "u", name: "alice" }, { entity_type: "u", entity_name: "alice", entity_id: 5 }),
    ).toBe(true);
    expect(isEntity({ type: "u", name: "alice" }, { entity_type: "g", entity_name: "alice" })).toBe(false);
    expect(isEntity({ type: "g", id: 3 }, { entity_type: "g", entity_id: 3, entity_name: "devs" })).toBe(
      true,
    );
    expect(
      isEntity({ type: "g", name: "devs" }, { entity_type: "g", entity_id: 3, entity_name: "devs" }),
    ).toBe(false);
  });

  test("an inline group's identity; messages name what the spec names", () => {
    expect(inlineGroup(spec({ group: { type: "ldap", ldapGroupDn: "CN=Ops,DC=X" } }))).toEqual({
      type: "ldap",
      dn: "cn=ops,dc=x",
    });
    expect(inlineGroup(spec({ group: { groupRef: { name: "devs" } } }))).toBeUndefined();
    expect(describeMember(spec({ user: { name: "alice" } }))).toBe('user "alice"');
    expect(describeMember(spec({ group: { groupRef: { name: "devs" } } }))).toBe("HarborUserGroup devs");
    expect(describeMember(spec({ group: { type: "oidc", name: "ops" } }))).toBe('oidc group "ops"');
  });

  test("claims: a group is one member whether referenced or named inline", () => {
    const ldapGroup = group("ops", "ns", { type: "ldap", ldapGroupDn: "cn=ops,dc=x" });
    expect(entityClaim(spec({ group: { groupRef: { name: "ops" } } }), ldapGroup)).toBe(
      "group:ldap:cn=ops,dc=x",
    );
    expect(entityClaim(spec({ group: { type: "ldap", ldapGroupDn: "CN=Ops,DC=X" } }))).toBe(
      "group:ldap:cn=ops,dc=x",
    );
    expect(entityClaim(spec({ group: { groupRef: { name: "ops" } } }))).toBe("groupref:ops");
    expect(entityClaim(spec({ user: { name: "alice" } }))).toBe("user:alice");
  });

  test("the claim: one member per entity and project, a group the same whether referenced or inline", () => {
    const devs = group("devs", "ns", { type: "oidc", name: "devs" });
    const groups = { get: (key: string) => (key === "ns/devs" ? devs : undefined) };
    const { claim } = memberExternal({
      projects: {} as Informer<ManagedObject>,
      groups: groups as unknown as Informer<ManagedObject>,
    });
    const member = (s: Record<string, unknown>) => claim(spec(s), "", "ns");
    const byRef = member({ group: { groupRef: { name: "devs" } } });
    expect(byRef).toBe(member({ group: { type: "oidc", name: "devs" }, role: "guest" }));
    expect(byRef).not.toBe(member({ group: { type: "http", name: "devs" } }));
    expect(byRef).not.toBe(member({ user: { name: "devs" } }));
    expect(byRef).not.toBe(member({ projectRef: { name: "other" }, group: { groupRef: { name: "devs" } } }));
    expect(member({ user: { name: "carol" } })).toBe(member({ user: { name: "carol" }, role: "guest" }));
  });

  test("a member grants a HarborUserGroup by groupRef in its namespace, or by identity in any", () => {
    const devs = group("devs", "team-a", { type: "oidc", name: "Developers" });
    expect(grants(spec({ group: { groupRef: { name: "devs" } } }), "team-a", devs)).toBe(true);
    expect(grants(spec({ group: { groupRef: { name: "devs" } } }), "team-b", devs)).toBe(false);
    expect(grants(spec({ group: { type: "oidc", name: "Developers" } }), "team-b", devs)).toBe(true);
    expect(grants(spec({ group: { type: "http", name: "Developers" } }), "team-b", devs)).toBe(false);
    expect(grants(spec({ user: { name: "devs" } }), "team-a", devs)).toBe(false);
  });
});

describe("what Harbor holds", () => {
  test("a created member is the request; a role change is the role", () => {
    const m = created(9, 4, { type: "g", id: 3, name: "devs" }, "maintainer");
    expect(m).toEqual({
      id: 9,
      project_id: 4,
      entity_name: "devs",
      entity_id: 3,
      entity_type: "g",
      role_id: 4,
      role_name: "maintainer",
    });
    expect(withRole(m, "guest")).toMatchObject({ role_id: 3, role_name: "guest" });
  });

  test("status", () => {
    expect(status(4, { id: 9, entity_type: "u", entity_name: "alice", entity_id: 5, role_id: 2 })).toEqual({
      projectId: 4,
      memberType: "user",
      memberName: "alice",
      entityId: 5,
      role: "developer",
    });
  });
});
