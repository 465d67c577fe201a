import { describe, expect, test } from "vitest";
import { HarborLabelSpec } from "../../../src/api/label.ts";
import { labelExternal } from "../../../src/controllers/label/external.ts";
import {
  created,
  createRequest,
  diff,
  filtersOn,
  identifies,
  placeOf,
  policiesUsing,
  status,
  updateRequest,
} from "../../../src/controllers/label/mapping.ts";
import type { ManagedObject } from "../../../src/runtime/external-client.ts";
import type { Informer } from "../../../src/runtime/informer.ts";

const spec = (s: Record<string, unknown> = {}) =>
  HarborLabelSpec.parse({ connectionRef: { name: "h" }, ...s });
const GLOBAL = placeOf(undefined);
const IN_7 = placeOf(7);

describe("requests", () => {
  test("create: the scope and project from where the label lives; unset fields are not sent", () => {
    expect(createRequest(spec(), "Release: Approved", GLOBAL)).toEqual({
      name: "Release: Approved",
      scope: "g",
    });
    expect(createRequest(spec({ color: "#0065AB", description: "ok" }), "x", IN_7)).toEqual({
      name: "x",
      scope: "p",
      project_id: 7,
      color: "#0065AB",
      description: "ok",
    });
  });

  test("what Harbor stores for a create is the request (a global label's project is 0)", () => {
    expect(created(3, createRequest(spec({ color: "#000000" }), "x", GLOBAL))).toEqual({
      id: 3,
      name: "x",
      description: "",
      color: "#000000",
      scope: "g",
      project_id: 0,
    });
  });

  test("update sends every field, what the spec leaves unset as Harbor has it (never cleared)", () => {
    const current = { id: 1, name: "x", description: "from the UI", color: "#FFFFFF", scope: "g" };
    expect(updateRequest(spec({ color: "#000000" }), "x", current)).toEqual({
      name: "x",
      description: "from the UI",
      color: "#000000",
    });
    expect(updateRequest(spec({ description: "" }), "x", { id: 1 })).toEqual({
      name: "x",
      description: "",
      color: "",
    });
  });
});

describe("drift", () => {
  test("description and colour when the spec sets them; colours by value, not letter case", () => {
    const harbor = { id: 1, name: "x", description: "a", color: "#00ff00", scope: "g" };
    expect(diff(spec(), harbor)).toEqual([]);
    expect(diff(spec({ color: "#00FF00", description: "a" }), harbor)).toEqual([]);
    expect(diff(spec({ color: "#00FF01", description: "b" }), harbor)).toEqual(["description", "color"]);
    // Harbor omits empty strings: an absent description is "".
    expect(diff(spec({ description: "" }), { id: 1, name: "x" })).toEqual([]);
  });

  test("a label is this resource's by name, scope and project", () => {
    const g = { id: 1, name: "x", scope: "g" };
    const p = { id: 2, name: "x", scope: "p", project_id: 7 };
    expect(identifies("x", GLOBAL, g)).toBe(true);
    expect(identifies("x", GLOBAL, p)).toBe(false);
    expect(identifies("x", IN_7, p)).toBe(true);
    expect(identifies("x", placeOf(8), p)).toBe(false);
    expect(identifies("X", GLOBAL, g)).toBe(false);
  });

  test("the claim: a global name once per Harbor, a project label's name once per project", () => {
    const { claim } = labelExternal({
      projects: {} as Informer<ManagedObject>,
      policies: {} as Informer<ManagedObject>,
      connections: { harborKey: () => "h" },
    });
    const inTeam = spec({ projectRef: { name: "team" } });
    // Two resources for one global label conflict, whichever namespace holds them.
    expect(claim(spec(), "Release: Approved", "a")).toBe(claim(spec(), "Release: Approved", "b"));
    expect(claim(spec(), "Release: Approved", "a")).not.toBe(claim(spec(), "Release: approved", "a"));
    // A project label is another object than the global one of that name, and than its namesake
    // in another project.
    expect(claim(inTeam, "Release: Approved", "a")).toBe(claim(inTeam, "Release: Approved", "a"));
    expect(claim(inTeam, "Release: Approved", "a")).not.toBe(claim(spec(), "Release: Approved", "a"));
    expect(claim(inTeam, "Release: Approved", "a")).not.toBe(
      claim(spec({ projectRef: { name: "other" } }), "Release: Approved", "a"),
    );
  });

  test("status names the scope, and the project of a project label only", () => {
    expect(status({ id: 1, scope: "g" })).toEqual({ scope: "global", projectId: undefined });
    expect(status({ id: 1, scope: "p", project_id: 7 })).toEqual({ scope: "project", projectId: 7 });
  });
});

describe("who uses a label", () => {
  const policy = (key: string, values: string[] | undefined, sameHarbor = true) => ({
    key,
    sameHarbor,
    spec: { filters: values ? { labels: { values, decoration: "matches" as const } } : {} },
  });

  test("policies of the same Harbor whose label filter names a global label, sorted", () => {
    const policies = [
      policy("ns/b", ["x", "y"]),
      policy("ns/a", ["x"]),
      policy("ns/other-harbor", ["x"], false),
      policy("ns/no-filter", undefined),
      policy("ns/other-label", ["x2"]),
    ];
    expect(policiesUsing("x", GLOBAL, policies)).toEqual(["ns/a", "ns/b"]);
    // Replication uses global labels only: a project label of that name is used by none.
    expect(policiesUsing("x", IN_7, policies)).toEqual([]);
  });

  test("the wiring's match: a global HarborLabel by its Harbor name, in any namespace", () => {
    const labelObject = (name: string, spec: Record<string, unknown>): ManagedObject => ({
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "HarborLabel",
      metadata: { name, namespace: "elsewhere" },
      spec,
    });
    const filters = { labels: { values: ["Release: Approved", "plain"], decoration: "matches" as const } };
    expect(filtersOn({ filters }, labelObject("approved", { name: "Release: Approved" }))).toBe(true);
    expect(filtersOn({ filters }, labelObject("plain", {}))).toBe(true);
    expect(filtersOn({ filters }, labelObject("p", { name: "plain", projectRef: { name: "t" } }))).toBe(
      false,
    );
    expect(filtersOn({ filters: {} }, labelObject("plain", {}))).toBe(false);
  });
});
