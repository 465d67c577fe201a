// When a resource may use another of our kinds it refers to (resolveReference): the target's
// state, row by row, and what the referencing resource is told while it waits.
import { describe, expect, test } from "vitest";
import { FINALIZER, PAUSED_ANNOTATION } from "../../../src/api/common.ts";
import { resolveReference } from "../../../src/controllers/shared/references.ts";
import { type ManagedObject, NotReady } from "../../../src/runtime/external-client.ts";
import type { Informer } from "../../../src/runtime/informer.ts";

const HARBOR = "https://harbor.example.com";

/** A HarborProject "team" in namespace ns, in the given state. */
function project(o: {
  ready?: { status: string; reason: string; message?: string };
  harborId?: number;
  paused?: boolean;
  harborUrl?: string;
}): ManagedObject {
  return {
    apiVersion: "harborconfig.io/v1alpha1",
    kind: "HarborProject",
    metadata: {
      name: "team",
      namespace: "ns",
      finalizers: [FINALIZER],
      ...(o.paused ? { annotations: { [PAUSED_ANNOTATION]: "true" } } : {}),
    },
    spec: { connectionRef: { name: "harbor" } },
    status: {
      conditions: o.ready ? [{ type: "Ready", ...o.ready }] : [],
      ...(o.harborId === undefined ? {} : { harborId: o.harborId, harborUrl: o.harborUrl ?? HARBOR }),
    },
  } as ManagedObject;
}

const resolve = (target: ManagedObject | undefined) =>
  resolveReference(
    { type: { kind: "HarborProject" }, get: () => target } as unknown as Informer<ManagedObject>,
    { metadata: { name: "ci", namespace: "ns" } } as ManagedObject,
    { name: "team" },
    { kind: "HarborConnection", name: "harbor" },
    HARBOR,
  );

const waits = (target: ManagedObject | undefined): string => {
  try {
    resolve(target);
  } catch (e) {
    if (e instanceof NotReady) return `${e.reason}: ${e.message}`;
    throw e;
  }
  return "usable";
};

describe("a reference to another resource", () => {
  test.each([
    [
      "Ready with its Harbor id",
      project({ ready: { status: "True", reason: "Created" }, harborId: 7 }),
      "usable",
    ],
    [
      "paused with its Harbor object, a change pending",
      project({ ready: { status: "False", reason: "Paused" }, harborId: 7, paused: true }),
      "usable",
    ],
    [
      "paused before it ever had a Harbor object",
      project({ ready: { status: "Unknown", reason: "Paused", message: "paused" }, paused: true }),
      "DependencyNotReady: HarborProject team is not Ready: paused",
    ],
    [
      "still showing Paused after the annotation went",
      project({ ready: { status: "False", reason: "Paused", message: "paused" }, harborId: 7 }),
      "DependencyNotReady: HarborProject team is not Ready: paused",
    ],
    [
      "not Ready",
      project({ ready: { status: "False", reason: "HarborError", message: "down" }, harborId: 7 }),
      "DependencyNotReady: HarborProject team is not Ready: down",
    ],
    [
      "recorded in another Harbor",
      project({
        ready: { status: "True", reason: "Created" },
        harborId: 7,
        harborUrl: "https://old.example.com",
      }),
      "DependencyNotReady: HarborProject team is still recorded in Harbor https://old.example.com",
    ],
    ["missing", undefined, "DependencyNotReady: HarborProject team does not exist"],
  ])("%s: %s", (_what, target, expected) => {
    expect(waits(target)).toBe(expected);
  });

  test("a usable target gives its Harbor id and name", () => {
    const target = project({ ready: { status: "False", reason: "Paused" }, harborId: 7, paused: true });
    expect(resolve(target)).toMatchObject({ harborId: 7, harborName: "team" });
  });
});
