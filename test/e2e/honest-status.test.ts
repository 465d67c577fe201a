// Status that tells the truth: a restart (kill -9 or graceful) of the operator with a fleet of Ready
// resources changes no Ready condition and records no Warning Event; a paused change is not
// reported done, while what refers to the paused resource keeps using its Harbor object; a wait on something that never appears ends Stalled within the bound, and
// recovers by itself when it appears.
import { describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { useOperator } from "../env/operator.ts";
import { logEntries } from "../env/operator-log.ts";
import {
  type Condition,
  condition,
  eventOf,
  eventReasons,
  project,
  type Resource,
  robot,
} from "../env/resources.ts";

// No drift sweeps in the way: a sweep of the fleet every few seconds would only slow it down.
const op = useOperator({
  namespacePrefix: "honest",
  driftInterval: "10m",
  extraArgs: ["--dependency-timeout=5s"],
});

type CR = Resource;

// Enough that a restart's reads and reconciles overlap (several lists, both kinds' workers busy);
// the benchmark, not this test, is where thousands are measured.
const FLEET = 50;

/** Every resource of the fleet by "kind/name": its Ready condition. */
async function fleet(): Promise<Map<string, Condition | undefined>> {
  const out = new Map<string, Condition | undefined>();
  for (const kind of ["harborproject", "harborrobot"]) {
    const list = await op.kubectl.get<{ items: CR[] }>(kind);
    for (const o of list.items)
      if (o.metadata.name.startsWith("fleet-")) out.set(`${kind}/${o.metadata.name}`, condition(o, "Ready"));
  }
  return out;
}

async function warnings(): Promise<number> {
  const list = await op.kubectl.get<{ items: Array<{ type: string; count?: number }> }>("events");
  return list.items.filter((e) => e.type === "Warning").reduce((n, e) => n + (e.count ?? 1), 0);
}

/** The fleet objects ("controller/namespace/name") the operator logged as reconciled in this output. */
const reconciledIn = (output: string): Set<string> =>
  new Set(
    logEntries(output)
      .filter((e) => e.msg === "reconciled" && e.key !== undefined && /\/fleet-\d+$/.test(e.key))
      .map((e) => `${e.controller}/${e.key}`),
  );

/**
 * Resolves once the restarted operator has read the fleet from Harbor again (each object, or in
 * lists: a start reads projects by the hundred and robots per project) and has reconciled every
 * fleet object.
 */
async function reconciledAgain(since: {
  projects: number;
  projectLists: number;
  robots: number;
  output: number;
}) {
  const counters = op.emulator.control.counters;
  await expect
    .poll(
      async () => {
        const projects =
          (await counters.total({ op: "getProject" })) - since.projects >= FLEET ||
          (await counters.total({ op: "listProjects" })) - since.projectLists >= Math.ceil(FLEET / 100);
        const robots =
          (await counters.total({ op: "GetRobotByID" })) +
            (await counters.total({ op: "ListRobot" })) -
            since.robots >=
          FLEET;
        return projects && robots && reconciledIn(op.output().slice(since.output)).size >= 2 * FLEET;
      },
      { timeout: budget.operatorMs, interval: 250 },
    )
    .toBe(true);
}

describe("a restart never flaps the fleet", () => {
  test(`${2 * FLEET} Ready resources: kill -9, then a graceful restart: no Ready condition changes, no Warning Event`, {
    timeout: budget.longTestMs,
  }, async () => {
    const objects = [];
    for (let i = 0; i < FLEET; i++)
      objects.push(project(`fleet-${i}`), robot(`fleet-${i}`, { projectRef: { name: `fleet-${i}` } }));
    const t0 = Date.now();
    await op.kubectl.apply(objects, { timeoutMs: budget.operatorMs });
    // One list per kind and poll: `kubectl wait --all` looks at one object after the other.
    await expect
      .poll(async () => [...(await fleet()).values()].filter((c) => c?.status === "True").length, {
        timeout: budget.operatorMs,
        interval: 500,
      })
      .toBe(2 * FLEET);
    process.stderr.write(`[honest] ${2 * FLEET} resources Ready in ${Date.now() - t0} ms\n`);
    const before = await fleet();
    expect(before.size).toBe(2 * FLEET);
    const warningsBefore = await warnings();

    for (const kill of [true, false]) {
      const counters = op.emulator.control.counters;
      const since = {
        projects: await counters.total({ op: "getProject" }),
        projectLists: await counters.total({ op: "listProjects" }),
        robots: (await counters.total({ op: "GetRobotByID" })) + (await counters.total({ op: "ListRobot" })),
        output: op.output().length,
      };
      const t1 = Date.now();
      await op.stop({ kill });
      await op.start();
      await reconciledAgain(since);
      process.stderr.write(
        `[honest] ${kill ? "kill -9" : "SIGTERM"}: every object read again ${Date.now() - t1} ms after the stop\n`,
      );
      // A status write would show as a changed transition time (a flap goes False and back).
      const after = await fleet();
      const flapped = [...after].filter(
        ([k, c]) => c?.status !== "True" || c.lastTransitionTime !== before.get(k)?.lastTransitionTime,
      );
      expect(
        flapped.map(([k, c]) => `${k}: ${c?.status} ${c?.reason}`),
        kill ? "after kill -9" : "after SIGTERM",
      ).toEqual([]);
      expect(await warnings()).toBe(warningsBefore);
    }
  });
});

describe("pause is honest", () => {
  test("a change made while paused is not reported done, what uses the object goes on; after unpause it is applied as a spec change", async () => {
    await op.kubectl.apply(project("paused", { public: false }));
    const ready = await op.waitReady<CR>("harborproject", "paused");
    const generation = ready.metadata.generation as number;
    await op.kubectl.run(["annotate", "harborproject", "paused", "harborconfig.io/paused=true"]);
    await op.kubectl.apply(project("paused", { public: true }));
    const paused = await op.waitFor<CR>(
      "harborproject",
      "paused",
      // The annotation alone already shows Paused (still True): the edit is what turns it False.
      (o) =>
        condition(o, "Ready")?.reason === "Paused" &&
        o.metadata.generation === generation + 1 &&
        condition(o, "Ready")?.status !== "True",
    );
    expect(condition(paused, "Ready")?.status).toBe("False");
    expect(paused.status?.observedGeneration).toBe(generation);
    expect(
      (await op.kubectl.tryRun(["wait", "harborproject/paused", "--for=condition=Ready", "--timeout=3s"]))
        .code,
    ).not.toBe(0);
    expect((await op.harbor.projects.get("paused")).metadata?.public).toBe("false");
    // What uses the paused project's Harbor object goes on: a robot of it is created and Ready.
    await op.kubectl.apply(robot("paused-reader", { projectRef: { name: "paused" } }));
    await op.waitReady<CR>("harborrobot", "paused-reader");

    await op.kubectl.run(["annotate", "harborproject", "paused", "harborconfig.io/paused-"]);
    const resumed = await op.waitFor<CR>(
      "harborproject",
      "paused",
      (o) => condition(o, "Ready")?.reason === "Synced" && o.status?.observedGeneration === generation + 1,
    );
    expect(condition(resumed, "Ready")?.status).toBe("True");
    expect((await op.harbor.projects.get("paused")).metadata?.public).toBe("true");
    await eventOf(op.kubectl, "paused", "HarborProject", "Updated");
    expect(await eventReasons(op.kubectl, "paused")).not.toContain("DriftCorrected");
  });
});

describe("waits are bounded", () => {
  test("a robot whose project never appears ends Stalled, naming it, and becomes Ready once it appears", async () => {
    await op.kubectl.apply(robot("orphan", { projectRef: { name: "never-there" } }));
    const stalled = await op.waitFor<CR>(
      "harborrobot",
      "orphan",
      (o) => condition(o, "Stalled")?.status === "True",
    );
    expect(condition(stalled, "Ready")?.reason).toBe("DependencyNotReady");
    expect(condition(stalled, "Stalled")?.message).toContain("never-there");

    await op.kubectl.apply(project("never-there"));
    const recovered = await op.waitReady<CR>("harborrobot", "orphan");
    expect(condition(recovered, "Stalled")).toBeUndefined();
  });
});
