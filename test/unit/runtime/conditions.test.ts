import { describe, expect, test } from "vitest";
import { MAX_MESSAGE } from "../../../src/kube/text.ts";
import { setCondition, withReconciling } from "../../../src/runtime/conditions.ts";

const at = (t: string) => () => t;

describe("conditions", () => {
  test("the transition time moves only when the status flips", () => {
    const a = setCondition(
      [],
      { type: "Ready", status: "False", reason: "Waiting" },
      1,
      at("2030-01-01T00:00:00.000Z"),
    );
    const b = setCondition(
      a,
      { type: "Ready", status: "False", reason: "Other" },
      2,
      at("2030-01-01T00:01:00.000Z"),
    );
    const c = setCondition(
      b,
      { type: "Ready", status: "True", reason: "Synced" },
      2,
      at("2030-01-01T00:02:00.000Z"),
    );
    expect(a[0]?.lastTransitionTime).toBe("2030-01-01T00:00:00Z");
    expect(b[0]).toMatchObject({
      reason: "Other",
      lastTransitionTime: "2030-01-01T00:00:00Z",
      observedGeneration: 2,
    });
    expect(c[0]).toMatchObject({ status: "True", lastTransitionTime: "2030-01-01T00:02:00Z" });
  });

  test("Reconciling follows kstatus: true while neither Ready nor Stalled", () => {
    const notReady = setCondition(
      [],
      { type: "Ready", status: "False", reason: "DependencyNotReady", message: "m" },
      1,
    );
    expect(withReconciling(notReady, 1).find((c) => c.type === "Reconciling")).toMatchObject({
      status: "True",
      reason: "DependencyNotReady",
      message: "m",
    });
    const stalled = setCondition(notReady, { type: "Stalled", status: "True", reason: "HarborRejected" }, 1);
    expect(withReconciling(stalled, 1).some((c) => c.type === "Reconciling")).toBe(false);
    const ready = setCondition(
      withReconciling(notReady, 1),
      { type: "Ready", status: "True", reason: "Synced" },
      1,
    );
    expect(withReconciling(ready, 1).some((c) => c.type === "Reconciling")).toBe(false);
  });
});

describe("condition messages", () => {
  test("are stored cleaned and capped, since they often repeat what Harbor said", () => {
    const [c] = setCondition(
      [],
      {
        type: "Ready",
        status: "False",
        reason: "HarborRejected",
        message: `Harbor rejected the request:\n\u001b[2J\u202e${"z".repeat(4000)}`,
      },
      1,
    );
    expect(c?.message.startsWith("Harbor rejected the request: [2Jz")).toBe(true);
    expect(Array.from(c?.message ?? "").length).toBe(MAX_MESSAGE);
    expect(c?.message).not.toMatch(/[\p{Cc}\p{Cf}]/u);
  });
});
