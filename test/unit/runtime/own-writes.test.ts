import { describe, expect, test } from "vitest";
import type { KubeObject } from "../../../src/kube/types.ts";
import { compareResourceVersions, OwnWrites } from "../../../src/runtime/own-writes.ts";

const obj = (rv: string, finalizers: string[] = []): KubeObject => ({
  metadata: { namespace: "ns", name: "a", resourceVersion: rv, finalizers },
});

describe("OwnWrites", () => {
  test("without a write, the cached object is used, as a copy", () => {
    const w = new OwnWrites<KubeObject>();
    const cached = obj("1");
    const current = w.current("ns/a", cached);
    expect(current).toEqual(cached);
    expect(current).not.toBe(cached);
  });

  test("while the cache shows a version our write replaced, our write is used", () => {
    const w = new OwnWrites<KubeObject>();
    w.remember("1", obj("2", ["f"]));
    expect(w.current("ns/a", obj("1")).metadata.finalizers).toEqual(["f"]);
    // A second write on top of the first: both older versions are stale.
    w.remember("2", obj("3", ["f", "g"]));
    expect(w.current("ns/a", obj("1")).metadata.resourceVersion).toBe("3");
    expect(w.current("ns/a", obj("2")).metadata.resourceVersion).toBe("3");
  });

  test("once the cache shows our write, or anything newer, our copy is forgotten", () => {
    const w = new OwnWrites<KubeObject>();
    w.remember("1", obj("2", ["f"]));
    w.caughtUp(obj("1")); // still the old version: kept
    expect(w.has("ns/a")).toBe(true);
    w.caughtUp(obj("2", ["f"]));
    expect(w.has("ns/a")).toBe(false);
    expect(w.current("ns/a", obj("1")).metadata.finalizers).toEqual([]);
  });

  test("a newer change by someone else wins over our copy", () => {
    const w = new OwnWrites<KubeObject>();
    w.remember("1", obj("2", ["f"]));
    const theirs = obj("7", ["other"]);
    expect(w.current("ns/a", theirs).metadata.finalizers).toEqual(["other"]);
    expect(w.has("ns/a")).toBe(false);
  });

  test("a version older than our write, which our write did not replace, does not win: our answer already holds it", () => {
    // Our status write (not guarded by a version) landed on version 5, someone's deletion, which
    // the informer shows only now; the answer, version 6, holds the deletion too.
    const w = new OwnWrites<KubeObject>();
    w.remember("4", obj("6", ["f"]));
    w.caughtUp(obj("5", ["f"]));
    expect(w.has("ns/a")).toBe(true);
    expect(w.current("ns/a", obj("5", ["f"])).metadata.resourceVersion).toBe("6");
    w.caughtUp(obj("6", ["f"]));
    expect(w.has("ns/a")).toBe(false);
  });

  test("versions that cannot be ordered: only those our writes replaced count as older", () => {
    const w = new OwnWrites<KubeObject>();
    w.remember("a1", obj("a3", ["f"]));
    expect(w.current("ns/a", obj("a2", ["other"])).metadata.finalizers).toEqual(["other"]);
    expect(w.has("ns/a")).toBe(false);
  });

  test.each([
    ["9", "10", -1],
    ["10", "9", 1],
    ["123", "124", -1],
    ["124", "124", 0],
    ["0", "1", undefined],
    ["012", "12", undefined],
    ["", "1", undefined],
    ["1a", "2", undefined],
  ] as const)("resourceVersions %s and %s order as %s", (a, b, want) => {
    const got = compareResourceVersions(a, b);
    expect(got === undefined ? undefined : Math.sign(got)).toBe(want);
  });

  test("forget drops the copy (the resource is gone)", () => {
    const w = new OwnWrites<KubeObject>();
    w.remember("1", obj("2"));
    w.forget("ns/a");
    expect(w.has("ns/a")).toBe(false);
  });
});
