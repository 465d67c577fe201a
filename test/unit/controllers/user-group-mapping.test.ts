import { describe, expect, test } from "vitest";
import { HarborUserGroupSpec } from "../../../src/api/user-group.ts";
import { userGroupExternal } from "../../../src/controllers/user-group/external.ts";
import {
  created,
  createRequest,
  diff,
  identityKey,
  identityOf,
  identityOfResource,
  matchesIdentity,
  status,
} from "../../../src/controllers/user-group/mapping.ts";
import type { ManagedObject } from "../../../src/runtime/external-client.ts";
import type { Informer } from "../../../src/runtime/informer.ts";

const spec = (s: Record<string, unknown>) =>
  HarborUserGroupSpec.parse({ connectionRef: { name: "h" }, ...s });
const LDAP = spec({ type: "ldap", ldapGroupDn: "  CN=Devs,OU=Groups,DC=Example,DC=Com " });

describe("identity", () => {
  test("an LDAP group is its DN as Harbor keys it (trimmed, lower case); the others their type and name", () => {
    expect(identityOf(LDAP, "Developers")).toEqual({
      type: "ldap",
      dn: "cn=devs,ou=groups,dc=example,dc=com",
    });
    expect(identityOf(spec({ type: "oidc" }), "devs")).toEqual({ type: "oidc", name: "devs" });
    expect(identityKey(identityOf(spec({ type: "http" }), "devs"))).toBe("http:devs");
  });

  test("Harbor's group matches by type and DN or name", () => {
    const ldap = identityOf(LDAP, "x");
    expect(
      matchesIdentity(ldap, { group_type: 1, ldap_group_dn: "cn=devs,ou=groups,dc=example,dc=com" }),
    ).toBe(true);
    expect(
      matchesIdentity(ldap, { group_type: 1, ldap_group_dn: "cn=ops,ou=groups,dc=example,dc=com" }),
    ).toBe(false);
    const oidc = identityOf(spec({ type: "oidc" }), "devs");
    expect(matchesIdentity(oidc, { group_type: 3, group_name: "devs" })).toBe(true);
    expect(matchesIdentity(oidc, { group_type: 2, group_name: "devs" })).toBe(false);
    expect(matchesIdentity(oidc, { group_type: 3, group_name: "devs-eu" })).toBe(false);
  });

  test("the claim is the identity: one resource per group in a Harbor, whatever its namespace", () => {
    const { claim } = userGroupExternal({
      members: {} as Informer<ManagedObject>,
      connections: { harborKey: () => "h" },
    });
    expect(claim(spec({ type: "oidc" }), "devs", "a")).toBe(claim(spec({ type: "oidc" }), "devs", "b"));
    expect(claim(spec({ type: "oidc" }), "devs", "a")).not.toBe(claim(spec({ type: "http" }), "devs", "a"));
    // An LDAP group by its DN as Harbor keys it: the name and the DN's letter case do not matter.
    expect(claim(LDAP, "Developers", "a")).toBe(
      claim(spec({ type: "ldap", ldapGroupDn: "cn=devs,ou=groups,dc=example,dc=com" }), "devs", "b"),
    );
  });

  test("a resource's identity from its stored spec; a name defaults to metadata.name", () => {
    const object = (spec: Record<string, unknown>) => ({
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "HarborUserGroup",
      metadata: { name: "devs" },
      spec,
    });
    expect(identityOfResource(object({ type: "http" }))).toEqual({ type: "http", name: "devs" });
    expect(identityOfResource(object({ type: "ldap", ldapGroupDn: "CN=A,DC=B" }))).toEqual({
      type: "ldap",
      dn: "cn=a,dc=b",
    });
    expect(identityOfResource(object({ type: "ldap" }))).toBeUndefined();
    expect(identityOfResource(object({}))).toBeUndefined();
  });
});

describe("requests, drift, status", () => {
  test("create sends the DN only for LDAP groups; Harbor stores it trimmed and lower-cased", () => {
    expect(createRequest(spec({ type: "oidc" }), "devs")).toEqual({ group_name: "devs", group_type: 3 });
    const request = createRequest(LDAP, "Developers");
    expect(request).toEqual({ group_name: "Developers", group_type: 1, ldap_group_dn: LDAP.ldapGroupDn });
    expect(created(4, request)).toEqual({
      id: 4,
      group_name: "Developers",
      group_type: 1,
      ldap_group_dn: "cn=devs,ou=groups,dc=example,dc=com",
    });
  });

  test("only an LDAP group's name can drift", () => {
    expect(diff(LDAP, "Developers", { group_name: "renamed", group_type: 1 })).toEqual(["name"]);
    expect(diff(LDAP, "Developers", { group_name: "Developers", group_type: 1 })).toEqual([]);
    expect(diff(spec({ type: "oidc" }), "devs", { group_name: "other", group_type: 3 })).toEqual([]);
  });

  test("status shows the DN Harbor holds, nothing for the other types", () => {
    expect(status({ ldap_group_dn: "cn=a" })).toEqual({ ldapGroupDn: "cn=a" });
    expect(status({ group_name: "x" })).toEqual({ ldapGroupDn: undefined });
  });

  test("the spec's DN must be a DN", () => {
    expect(() => spec({ type: "ldap", ldapGroupDn: "not a dn" })).toThrow();
    expect(() => spec({ type: "ldap", ldapGroupDn: "cn=a\\,b,dc=x" })).not.toThrow();
  });
});
