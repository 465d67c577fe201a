// Values that pass admission but that Harbor cannot use, which only the operator can judge: the
// resource ends Stalled with reason InvalidSpec and a message naming the field and the value,
// nothing reaches Harbor, and the operator does not retry (its reconcile ends terminally, which
// leaves nothing queued) until the spec changes; a fixed spec then converges.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { condition, project, type Resource, robot, stalled as stalledNow } from "../env/resources.ts";
import { until } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "hygiene" });

type CR = Resource;

/** Stalled for the spec as it is now. */
const stalled = (o: CR) => stalledNow(o) && o.status?.observedGeneration === o.metadata.generation;

/**
 * The resource is Stalled, and the reconcile that stalled it has ended terminally: the controller
 * forgets a key that ends so ("a TerminalError is not retried", test/unit/runtime/controller.test.ts)
 * and the drift sweep only looks at resources with a Harbor id, so nothing looks at it again until
 * it changes. No reconcile of it ended in a retry or a requeue.
 */
async function expectStalledForGood(controller: string, name: string): Promise<CR> {
  const cr = await op.waitFor<CR>(controller, name, stalled);
  // The log line follows the status write.
  const ends = await until(`the end of the reconcile that stalled ${name}`, () => {
    const e = op.reconciles(controller, name);
    return e.some((x) => x.msg.startsWith("reconcile failed terminally")) ? e : undefined;
  });
  expect(ends.filter((e) => e.msg === "reconcile failed; will retry")).toEqual([]);
  expect(ends.filter((e) => e.requeueAfterMs !== undefined)).toEqual([]);
  return cr;
}

/** The emulator's requests since `before`, the connection's own health checks aside. */
const harborCallsSince = (before: ReturnType<typeof op.emulator.counters.list>) =>
  Object.keys(op.emulator.counters.since(before)).filter(
    (o) => !["getSystemInfo", "getCurrentUserInfo"].includes(o),
  );

describe("a value only the operator can judge", () => {
  test("a storage limit that is no whole number of bytes stalls the project before any Harbor call", async () => {
    const before = op.emulator.counters.list();
    await op.kubectl.apply(project("fraction", { storageLimit: "1.5" }));
    const cr = await expectStalledForGood("harborproject", "fraction");
    expect(condition(cr, "Ready")).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(condition(cr, "Stalled")?.reason).toBe("InvalidSpec");
    expect(condition(cr, "Ready")?.message).toMatch(
      /^spec\.storageLimit "1\.5": must be "unlimited", "-1", or a whole number of bytes/,
    );
    // No other project here: whatever Harbor was asked would have been about this one.
    expect(harborCallsSince(before)).toEqual([]);

    await op.kubectl.apply(project("fraction", { storageLimit: "1.5Gi" }));
    const fixed = await op.waitReady<CR>("harborproject", "fraction");
    expect(condition(fixed, "Stalled")).toBeUndefined();
    expect(await op.harbor.projects.exists("fraction")).toBe(true);
  });

  test("a robot name that does not fit next to its project's stalls the robot before any Harbor call", async () => {
    await op.kubectl.apply(project("hygiene"));
    await op.waitReady("harborproject", "hygiene");
    const before = op.emulator.counters.list();
    const name = "a".repeat(250); // valid alone; Harbor stores "hygiene+aaa…": 258 characters
    await op.kubectl.apply(robot("long", { projectRef: { name: "hygiene" }, name }));
    const cr = await expectStalledForGood("harborrobot", "long");
    expect(condition(cr, "Ready")).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(condition(cr, "Ready")?.message).toContain(`spec.name "${name}" is too long`);
    expect(condition(cr, "Ready")?.message).toContain('258 characters with project "hygiene"');
    // The projects' drift sweep reads Harbor meanwhile; nothing about robots was asked.
    expect(harborCallsSince(before).filter((o) => /robot/i.test(o))).toEqual([]);

    await op.kubectl.delete("harborrobot", "long", { wait: true });
  });
});
