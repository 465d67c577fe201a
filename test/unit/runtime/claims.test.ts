import { describe, expect, test } from "vitest";
import { type Claimant, ClaimIndex } from "../../../src/runtime/claims.ts";

/** An index over hand-made claimants; `released` collects who was told a claim went. */
function index(claimants: Record<string, Omit<Claimant, "key" | "uid"> & { uid?: string }>) {
  const released: string[] = [];
  const claims = new ClaimIndex({
    claimant: (key) => {
      const c = claimants[key];
      return c ? { key, uid: c.uid ?? `uid-${key}`, ...c } : undefined;
    },
    released: (key) => released.push(key),
  });
  const self = (key: string) => ({
    uid: claimants[key]?.uid ?? `uid-${key}`,
    harbor: claimants[key]?.harbor ?? "",
  });
  return { claims, released, self, claimants };
}

const at = (s: number) => `2025-01-01T00:00:${String(s).padStart(2, "0")}Z`;

describe("ClaimIndex", () => {
  test("a claim alone has no other owner", () => {
    const { claims, self } = index({ a: { harbor: "one", creationTimestamp: at(1), holds: false } });
    claims.set("a", "project:x");
    expect(claims.owner("project:x", self("a"))).toBeUndefined();
    expect(claims.owner("project:other", self("a"))).toBeUndefined();
  });

  test("of two resources in one Harbor the oldest owns the claim, then the lowest uid", () => {
    const { claims, self } = index({
      young: { harbor: "one", creationTimestamp: at(5), holds: false },
      old: { harbor: "one", creationTimestamp: at(1), holds: false },
      twinB: { harbor: "one", creationTimestamp: at(1), holds: false, uid: "b" },
    });
    claims.set("young", "project:x");
    claims.set("old", "project:x");
    expect(claims.owner("project:x", self("young"))).toBe("old");
    expect(claims.owner("project:x", self("old"))).toBeUndefined();
    // Created in the same second: the lower uid wins.
    claims.set("twinB", "project:x");
    expect(claims.owner("project:x", self("twinB"))).toBeUndefined();
    expect(claims.owner("project:x", self("old"))).toBe("twinB");
  });

  test("the resource that holds the object keeps it, however young", () => {
    const { claims, self } = index({
      holder: { harbor: "one", creationTimestamp: at(9), holds: true },
      old: { harbor: "one", creationTimestamp: at(1), holds: false },
    });
    claims.set("holder", "project:x");
    claims.set("old", "project:x");
    expect(claims.owner("project:x", self("old"))).toBe("holder");
    expect(claims.owner("project:x", self("holder"))).toBeUndefined();
  });

  test("claims in different Harbors never compete", () => {
    const { claims, self } = index({
      a: { harbor: "one", creationTimestamp: at(1), holds: true },
      b: { harbor: "two", creationTimestamp: at(2), holds: false },
    });
    claims.set("a", "project:x");
    claims.set("b", "project:x");
    expect(claims.owner("project:x", self("a"))).toBeUndefined();
    expect(claims.owner("project:x", self("b"))).toBeUndefined();
  });

  test("the Harbor is read when the owner is asked for: a connection that moves brings a conflict", () => {
    const { claims, self, claimants } = index({
      a: { harbor: "one", creationTimestamp: at(1), holds: true },
      b: { harbor: "two", creationTimestamp: at(2), holds: false },
    });
    claims.set("a", "project:x");
    claims.set("b", "project:x");
    expect(claims.owner("project:x", self("b"))).toBeUndefined();
    (claimants.b as Claimant).harbor = "one";
    expect(claims.owner("project:x", self("b"))).toBe("a");
  });

  test("a singleton claim: two resources for one Harbor conflict, for two Harbors they do not", () => {
    // A kind whose object a Harbor has once names the same claim for every resource.
    const { claims, self } = index({
      nightly: { harbor: "one", creationTimestamp: at(1), holds: false },
      weekly: { harbor: "one", creationTimestamp: at(2), holds: false },
      elsewhere: { harbor: "two", creationTimestamp: at(3), holds: false },
    });
    for (const key of ["nightly", "weekly", "elsewhere"]) claims.set(key, "gc-schedule");
    expect(claims.owner("gc-schedule", self("weekly"))).toBe("nightly");
    expect(claims.owner("gc-schedule", self("nightly"))).toBeUndefined();
    expect(claims.owner("gc-schedule", self("elsewhere"))).toBeUndefined();
  });

  test("a claimant that is gone from the cache does not count", () => {
    const { claims, self } = index({ b: { harbor: "one", creationTimestamp: at(2), holds: false } });
    claims.set("gone", "project:x");
    claims.set("b", "project:x");
    expect(claims.owner("project:x", self("b"))).toBeUndefined();
  });

  test("a removed owner tells those that waited on its claim, and only them", () => {
    const { claims, released, self } = index({
      a: { harbor: "one", creationTimestamp: at(1), holds: true },
      b: { harbor: "one", creationTimestamp: at(2), holds: false },
      c: { harbor: "one", creationTimestamp: at(3), holds: false },
    });
    claims.set("a", "project:x");
    claims.set("b", "project:x");
    claims.set("c", "project:y");
    claims.remove("a");
    expect(released).toEqual(["b"]);
    expect(claims.claimants("project:x")).toEqual(["b"]);
    expect(claims.owner("project:x", self("b"))).toBeUndefined();
    claims.remove("b");
    expect(claims.claimants("project:x")).toEqual([]);
    expect(released).toEqual(["b"]); // nobody was left to tell
  });

  test("a claim that moves (a renamed object) releases the old one; setting it again is a no-op", () => {
    const { claims, released } = index({
      a: { harbor: "one", creationTimestamp: at(1), holds: true },
      b: { harbor: "one", creationTimestamp: at(2), holds: false },
    });
    claims.set("a", "project:x");
    claims.set("b", "project:x");
    claims.set("a", "project:x");
    expect(released).toEqual([]);
    claims.set("a", "project:renamed");
    expect(released).toEqual(["b"]);
    expect(claims.claimants("project:renamed")).toEqual(["a"]);
    claims.set("a", undefined); // e.g. its spec no longer parses
    expect(claims.claimants("project:renamed")).toEqual([]);
  });
});
