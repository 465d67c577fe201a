import { describe, expect, test } from "vitest";
import type { KubeObject } from "../../../src/kube/types.ts";
import { OwnWrites } from "../../../src/runtime/own-writes.ts";

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

  test("forget drops the copy (the resource is gone)", () => {
    const w = new OwnWrites<KubeObject>();
    w.remember("1", obj("2"));
    w.forget("ns/a");
    expect(w.has("ns/a")).toBe(false);
  });
});
