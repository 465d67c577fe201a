// Values that pass admission but that Harbor cannot use, which only the operator can judge: the
// resource ends Stalled with reason InvalidSpec and a message naming the field and the value,
// nothing reaches Harbor, and the operator does not retry (its reconciles of the resource stop)
// until the spec changes; a fixed spec then converges.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { condition, project, type Resource, robot, stalled as stalledNow } from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "hygiene" });

type CR = Resource;

/** Stalled for the spec as it is now. */
const stalled = (o: CR) => stalledNow(o) && o.status?.observedGeneration === o.metadata.generation;

/** The operator's reconciles of one resource so far, from its log (one line per reconcile). */
function reconciles(controller: string, name: string): { total: number; retried: number } {
  const key = `${op.namespace}/${name}`;
  let total = 0;
  let retried = 0;
  for (const line of op.output().split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { controller?: string; key?: string; msg?: string };
    if (entry.controller !== controller || entry.key !== key) continue;
    if (entry.msg === "reconciled" || entry.msg?.startsWith("reconcile failed")) total++;
    if (entry.msg === "reconcile failed; will retry") retried++;
  }
  return { total, retried };
}

/** Stalled, then no further reconcile for longer than a few retry backoffs (1 s, 2 s, 4 s). */
async function expectNoRetries(controller: string, name: string): Promise<void> {
  const before = reconciles(controller, name);
  expect(before.total).toBeGreaterThan(0); // the log does show this resource's reconciles
  await new Promise((r) => setTimeout(r, 7_000));
  expect(reconciles(controller, name)).toEqual(before);
  expect(before.retried).toBe(0);
}

describe("a value only the operator can judge", () => {
  test("a storage limit that is no whole number of bytes stalls the project before any Harbor call", async () => {
    await op.kubectl.apply(project("fraction", { storageLimit: "1.5" }));
    const cr = await op.waitFor<CR>("harborproject", "fraction", stalled, 30_000);
    expect(condition(cr, "Ready")).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(condition(cr, "Stalled")?.reason).toBe("InvalidSpec");
    expect(condition(cr, "Ready")?.message).toMatch(
      /^spec\.storageLimit "1\.5": must be "unlimited", "-1", or a whole number of bytes/,
    );
    await expectNoRetries("harborproject", "fraction");
    expect(await op.harbor.projects.exists("fraction")).toBe(false);

    await op.kubectl.apply(project("fraction", { storageLimit: "1.5Gi" }));
    const fixed = await op.waitReady<CR>("harborproject", "fraction");
    expect(condition(fixed, "Stalled")).toBeUndefined();
    expect(await op.harbor.projects.exists("fraction")).toBe(true);
  });

  test("a robot name that does not fit next to its project's stalls the robot before any Harbor call", async () => {
    await op.kubectl.apply(project("hygiene"));
    await op.waitReady("harborproject", "hygiene");
    const creates = op.emulator.counters.total({ op: "CreateRobot" });
    const name = "a".repeat(250); // valid alone; Harbor stores "hygiene+aaa…": 258 characters
    await op.kubectl.apply(robot("long", { projectRef: { name: "hygiene" }, name }));
    const cr = await op.waitFor<CR>("harborrobot", "long", stalled, 30_000);
    expect(condition(cr, "Ready")).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(condition(cr, "Ready")?.message).toContain(`spec.name "${name}" is too long`);
    expect(condition(cr, "Ready")?.message).toContain('258 characters with project "hygiene"');
    await expectNoRetries("harborrobot", "long");
    expect(op.emulator.counters.total({ op: "CreateRobot" })).toBe(creates);

    await op.kubectl.delete("harborrobot", "long", { wait: true });
  });
});
