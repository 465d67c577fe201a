// HarborReplicationRun end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator, whose executions copy what the policy's filters select, one task per repository, on its
// world clock; the tests move that clock instead of waiting). A run starts exactly one execution of
// its policy, waits while the policy is disabled or missing, reports counts and the newest failed
// tasks with their logs, stops its execution when deleted, and after a crash between starting and
// recording it takes that execution over. The run lifecycle itself is proven in
// test/unit/runtime/run-lifecycle.test.ts; what kubectl refuses, in
// test/integration/cluster/admission.test.ts.
import { beforeAll, describe, expect, test } from "vitest";
import { armedAt, startDisarmed, untilCrashed } from "../env/crash.ts";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  eventOf,
  harborIdOf,
  type ReplicationPolicyCR,
  type ReplicationRunCR,
  readyForSpec,
  registry,
  replicationPolicy,
  replicationRun,
} from "../env/resources.ts";

// Armed: the operator dies the first time it has started an execution (the first test), before recording it.
const op = useOperator({ namespacePrefix: "reprun", ...armedAt("after-replication-run-start") });
const KIND = "harborreplicationrun";
const count = (o: string) => op.emulator.counters.total({ op: o });
let policyId = 0;

/** The policy "mirror": pushes the repositories of project rep-src to registry "target". */
const mirror = (spec: Parameters<typeof replicationPolicy>[1] = {}) =>
  replicationPolicy("mirror", { registryRef: { name: "target" }, filters: { name: "rep-src/**" }, ...spec });
const executions = () => op.emulator.world.replication.executions().filter((e) => e.policy_id === policyId);
const started = (name: string) =>
  op.waitFor<ReplicationRunCR>(KIND, name, (o) => o.status?.harborId !== undefined);
const plan = (p: Parameters<typeof op.emulator.control.replication.setPolicyPlan>[1]) =>
  op.emulator.control.replication.setPolicyPlan(policyId, p);

describe("HarborReplicationRun", () => {
  beforeAll(async () => {
    await op.harbor.projects.create({ project_name: "rep-src", metadata: { public: "false" } });
    op.emulator.control.projects.pushArtifact("rep-src", "a", { tag: "1" });
    op.emulator.control.projects.pushArtifact("rep-src", "b", { tag: "1" });
    await op.kubectl.apply([registry("target"), mirror()]);
    policyId = harborIdOf(await op.waitReady<ReplicationPolicyCR>("harborreplicationpolicy", "mirror"));
    // A new run shows a wait on its policy only after 10 s (it may have been applied with it): this
    // one waits while the tests before its own run.
    await op.kubectl.apply(replicationRun("orphan", "missing"));
  });

  // First: the operator is armed to die here.
  test("killed between starting an execution and recording it, the restarted operator takes it over: one execution", async () => {
    const before = executions().length;
    // Running until it is taken over, however long the restart takes.
    plan({ durationMs: 60 * 60_000 });
    await op.kubectl.apply(replicationRun("crashy", "mirror"));
    await untilCrashed(op);
    expect(executions()).toHaveLength(before + 1);
    const lost = executions().sort((a, b) => b.id - a.id)[0];
    const unrecorded = await op.kubectl.get<ReplicationRunCR>(KIND, "crashy");
    expect(unrecorded.status?.harborId).toBeUndefined();
    expect(unrecorded.status?.startRequest).toBeDefined();

    await startDisarmed(op);
    const taken = await started("crashy");
    expect(taken.status?.harborId).toBe(lost?.id);
    op.emulator.control.clock.advance(60 * 60_000);
    await op.waitReady<ReplicationRunCR>(KIND, "crashy");
    expect(executions()).toHaveLength(before + 1);
    plan(null);
    await eventOf(op.kubectl, "crashy", "HarborReplicationRun", "ExecutionFound");
  });

  test("apply → one execution, Running with its id → Succeeded with its counts once Harbor ends it; kubectl get shows it", async () => {
    plan({ durationMs: 60 * 60_000 });
    const starts = count("startReplication");
    await op.kubectl.apply(replicationRun("once", "mirror"));
    const running = await started("once");
    const id = harborIdOf(running);
    expect(count("startReplication") - starts).toBe(1);
    expect(executions().map((e) => e.id)).toContain(id);
    // The first write after the start records the id alone; the policy's id follows with the execution.
    const followed = await op.waitFor<ReplicationRunCR>(KIND, "once", (o) => o.status?.policyId === policyId);
    expect(followed.status?.phase).toBe("Running");

    // Harbor ends it (both tasks copied) when its hour has passed.
    op.emulator.control.clock.advance(60 * 60_000);
    expect((await op.harbor.replication.getExecution(id)).status).toBe("Succeed");
    const done = await op.waitFor<ReplicationRunCR>(KIND, "once", (o) => o.status?.phase === "Succeeded");
    expect(done.status).toMatchObject({
      phase: "Succeeded",
      harborId: id,
      policyId,
      total: 2,
      succeeded: 2,
      failed: 0,
    });
    expect(done.status?.completionTime).toBeDefined();
    expect(done.status?.failedTasks).toBeUndefined();
    expect(condition(done, "Ready")).toMatchObject({ status: "True", reason: "Succeeded" });
    expect(count("startReplication") - starts).toBe(1);
    const table = await op.kubectl.run(["get", "harborreplicationruns"]);
    expect(table).toMatch(
      /NAME\s+READY\s+REASON\s+HARBOR ID\s+PHASE\s+POLICY\s+SUCCEEDED\s+FAILED\s+STARTED\s+AGE/,
    );
    expect(table).toMatch(
      new RegExp(`once\\s+True\\s+Succeeded\\s+${id}\\s+Succeeded\\s+mirror\\s+2\\s+0\\s`),
    );
    plan(null);
  });

  test("failed tasks reach status with the end of their logs; the run ends Failed and Stalled", async () => {
    plan({ durationMs: 1_000, failing: ["rep-src/b"] });
    await op.kubectl.apply(replicationRun("partly", "mirror"));
    await started("partly");
    op.emulator.control.clock.advance(1_000);
    const failed = await op.waitFor<ReplicationRunCR>(KIND, "partly", (o) => o.status?.phase === "Failed");
    expect(failed.status).toMatchObject({ total: 2, succeeded: 1, failed: 1 });
    expect(failed.status?.failedTasks).toHaveLength(1);
    const task = failed.status?.failedTasks?.[0];
    expect(task?.source).toContain("rep-src/b");
    expect(task?.operation).toBe("copy");
    expect(task?.log?.at(-1)).toContain("[ERROR] failed to copy rep-src/b");
    expect(condition(failed, "Ready")).toMatchObject({ status: "False", reason: "Failed" });
    expect(condition(failed, "Stalled")).toMatchObject({ status: "True", reason: "Failed" });
    expect(condition(failed, "Reconciling")).toBeUndefined();
    await eventOf(op.kubectl, "partly", "HarborReplicationRun", "Failed");
    plan(null);
  });

  test("a run waits while its policy is disabled in Harbor, without a refused start, and runs once it is enabled", async () => {
    await op.kubectl.apply(mirror({ enabled: false }));
    await op.waitFor<ReplicationPolicyCR>("harborreplicationpolicy", "mirror", readyForSpec);
    const starts = count("startReplication");
    const before = executions().length;
    await op.kubectl.apply(replicationRun("patient", "mirror"));
    const waiting = await op.waitFor<ReplicationRunCR>(
      KIND,
      "patient",
      (o) => condition(o, "Ready")?.reason === "PolicyDisabled",
    );
    expect(waiting.status?.phase).toBe("Pending");
    expect(condition(waiting, "Stalled")).toBeUndefined();
    expect(condition(waiting, "Ready")?.message).toContain('HarborReplicationPolicy "mirror" is disabled');
    // It read the policy in Harbor instead of asking Harbor to start it (which Harbor refuses, 412).
    expect(count("startReplication")).toBe(starts);
    expect(executions()).toHaveLength(before);

    await op.kubectl.apply(mirror());
    await op.waitReady(KIND, "patient");
    expect(count("startReplication") - starts).toBe(1);
    expect(executions()).toHaveLength(before + 1);
  });

  test("a run of a policy that does not exist waits for it", async () => {
    const waiting = await op.waitFor<ReplicationRunCR>(
      KIND,
      "orphan",
      (o) => condition(o, "Ready")?.reason === "DependencyNotReady",
    );
    expect(waiting.status?.phase).toBe("Pending");
    expect(condition(waiting, "Ready")?.message).toContain("HarborReplicationPolicy missing does not exist");
    await op.kubectl.delete(KIND, "orphan", { wait: true });
  });

  test("deleting a running replication run stops its execution", async () => {
    plan({ durationMs: 60 * 60_000 });
    await op.kubectl.apply(replicationRun("doomed", "mirror"));
    const id = harborIdOf(await started("doomed"));
    const stops = count("stopReplication");
    await op.kubectl.delete(KIND, "doomed", { wait: true });
    expect((await op.harbor.replication.getExecution(id)).status).toBe("Stopped");
    expect(count("stopReplication") - stops).toBe(1);
    plan(null);
  });
});
