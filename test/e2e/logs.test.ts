// The operator's log as a person reads it: at info, one line per change made in Harbor or
// Kubernetes (create, update with its fields, drift reverted with its fields, delete), each naming
// its controller, resource and reconcile; and that reconcile's Harbor calls (debug) carry the same
// reconcileId. The routine create and delete are log lines without an Event.
import { describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import type { KubeObject } from "../env/kubectl.ts";
import { useOperator } from "../env/operator.ts";
import { logEntries } from "../env/operator-log.ts";
import { eventOf, eventReasons, type ProjectCR, project as projectOf } from "../env/resources.ts";
import { until } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "logs" });

interface Line {
  level: string;
  msg: string;
  event?: string;
  object?: string;
  controller?: string;
  key?: string;
  reconcileId?: string;
  operation?: string;
  [field: string]: unknown;
}

/** The whole lines so far (the last one may still be arriving). */
function lines(): Line[] {
  return logEntries(op.output()) as Line[];
}

/** Each key appears once per JSON line (a repeated key would show as a parse that drops one). */
function repeatedKeys(raw: string): string[] {
  const keys = [...raw.matchAll(/"([A-Za-z]+)":/g)].map((m) => m[1] as string);
  return keys.filter((k, i) => keys.indexOf(k) !== i);
}

describe("the operator's log", () => {
  test("one info line per change, with controller, key and reconcileId, and that reconcile's Harbor calls", async () => {
    const name = "logged";
    const object = `HarborProject ${op.namespace}/${name}`;
    const project = (spec: Parameters<typeof projectOf>[1]) => projectOf(name, spec);
    await op.kubectl.apply(project({ public: false }));
    await op.waitReady("harborproject", name);
    await op.kubectl.apply(project({ public: true }));
    await op.waitFor<KubeObject>("harborproject", name, (o) => (o.metadata.generation ?? 0) > 1);
    // The operator's update, awaited within the budget (expect.poll's own default is 1 s).
    await expect
      .poll(async () => (await op.harbor.projects.get(name)).metadata?.public, { timeout: budget.operatorMs })
      .toBe("true");
    await op.harbor.projects.update(name, { metadata: { public: "false" } });
    await op.waitFor<ProjectCR>("harborproject", name, (o) => o.status?.lastDriftCorrection !== undefined);
    await op.kubectl.delete("harborproject", name, { wait: true });
    // Logged before the finalizer went, but read through a pipe that kubectl may have outrun.
    await until("the deletion's line in the operator's log", () =>
      logEntries(op.output()).find((l) => l.event === "Deleted" && l.object === object),
    );

    const all = lines();
    const changes = [
      { event: "Created", operation: "createProject" },
      { event: "Updated", operation: "updateProject", text: "public" },
      { event: "DriftCorrected", operation: "updateProject", text: "public" },
      { event: "Deleted", operation: "deleteProject" },
    ];
    for (const change of changes) {
      const found = all.filter((l) => l.event === change.event && l.object === object);
      expect(found, change.event).toHaveLength(1);
      const line = found[0] as Line;
      expect(line.level).toBe("info");
      expect(line).toMatchObject({ controller: "harborproject", key: `${op.namespace}/${name}` });
      expect(line.reconcileId).toMatch(/^[0-9a-f-]{36}$/);
      if (change.text) expect(line.msg).toContain(change.text);
      const calls = all.filter((l) => l.msg === "Harbor call" && l.reconcileId === line.reconcileId);
      expect(calls.map((c) => c.operation)).toContain(change.operation);
    }
    // The routine create and delete are log lines only; what a person should notice (an update,
    // a drift reverted) is an Event as well.
    await eventOf(op.kubectl, name, "HarborProject", "DriftCorrected");
    const reasons = await eventReasons(op.kubectl, name, "HarborProject");
    expect(reasons).toContain("Updated");
    expect(reasons).not.toContain("Created");
    expect(reasons).not.toContain("Deleted");
    for (const raw of op
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{")))
      expect(repeatedKeys(raw), raw).toEqual([]);
  });
});
