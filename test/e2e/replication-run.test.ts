// HarborReplicationRun end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator, whose executions copy what the policy's filters select, one task per repository, on its
// world clock). A run starts exactly one execution of its policy, waits while the policy is
// disabled, reports counts and the newest failed tasks with their logs, stops its execution when
// deleted, and after a crash between starting and recording it takes that execution over.
import { beforeAll, describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  eventReasons,
  type ReplicationPolicyCR,
  type ReplicationRunCR,
  readyForSpec,
  registry,
  replicationPolicy,
  replicationRun,
} from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "reprun" });
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

/** Polls until `check` holds; resolves with the time it first did. */
async function when(check: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 50): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return Date.now();
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

describe("HarborReplicationRun", () => {
  beforeAll(async () => {
    await op.harbor.projects.create({ project_name: "rep-src", metadata: { public: "false" } });
    op.emulator.control.projects.pushArtifact("rep-src", "a", { tag: "1" });
    op.emulator.control.projects.pushArtifact("rep-src", "b", { tag: "1" });
    await op.kubectl.apply([registry("target"), mirror()]);
    policyId = (await op.waitReady<ReplicationPolicyCR>("harborreplicationpolicy", "mirror", 60_000)).status
      ?.harborId as number;
  }, 90_000);

  test("apply → one execution, Running with its id → Succeeded in kubectl within seconds of Harbor ending it", async () => {
    plan({ durationMs: 3_000 });
    const starts = count("startReplication");
    await op.kubectl.apply(replicationRun("once", "mirror"));
    const running = await started("once");
    const id = running.status?.harborId as number;
    expect(count("startReplication") - starts).toBe(1);
    expect(executions().map((e) => e.id)).toContain(id);
    // The first write after the start records the id alone; the policy's id follows with the execution.
    await op.waitFor<ReplicationRunCR>(KIND, "once", (o) => o.status?.policyId === policyId);

    // Harbor ends it 3 s after the start; kubectl get shows it soon after.
    const [harborEnded, kubectlShowed] = await Promise.all([
      when(async () => (await op.harbor.replication.getExecution(id)).status === "Succeed"),
      when(
        async () =>
          (await op.kubectl.run(["get", KIND, "once", "-o", "jsonpath={.status.phase}"])) === "Succeeded",
        60_000,
        100,
      ),
    ]);
    const lagMs = kubectlShowed - harborEnded;
    console.log(`replication run: kubectl get showed Succeeded ${lagMs} ms after Harbor ended the execution`);
    expect(lagMs).toBeLessThan(5_000);

    const done = await op.kubectl.get<ReplicationRunCR>(KIND, "once");
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
  });

  test("failed tasks reach status with the end of their logs; the run ends Failed and Stalled", async () => {
    plan({ durationMs: 1_000, failing: ["rep-src/b"] });
    await op.kubectl.apply(replicationRun("partly", "mirror"));
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
    expect(await eventReasons(op.kubectl, "partly", "HarborReplicationRun")).toContain("Failed");
    plan(null);
  });

  test("a run waits while its policy is disabled, without a refused start, and runs once it is enabled", async () => {
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
    await new Promise((r) => setTimeout(r, 6_000)); // it looks again, and still waits
    expect(count("startReplication")).toBe(starts);
    expect(executions()).toHaveLength(before);

    await op.kubectl.apply(mirror());
    await op.waitReady(KIND, "patient", 60_000);
    expect(count("startReplication") - starts).toBe(1);
    expect(executions()).toHaveLength(before + 1);
  });

  test("a run of a policy that does not exist waits for it; bad input is refused by kubectl", async () => {
    await op.kubectl.apply(replicationRun("orphan", "missing"));
    const waiting = await op.waitFor<ReplicationRunCR>(
      KIND,
      "orphan",
      (o) => condition(o, "Ready")?.reason === "DependencyNotReady",
    );
    expect(waiting.status?.phase).toBe("Pending");
    expect(condition(waiting, "Ready")?.message).toContain("HarborReplicationPolicy missing does not exist");

    const r = await op.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(replicationRun("orphan", "mirror")),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      "spec.policyRef: Invalid value: policyRef is immutable: a run does what it was created with, so it stays missing; create another run instead",
    );
    const none = await op.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify({
        ...replicationRun("nothing", "mirror"),
        spec: { connectionRef: { name: "harbor" } },
      }),
    });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/spec\.policyRef: Required value/);
    await op.kubectl.delete(KIND, "orphan", { wait: true });
  });

  test("deleting a running replication run stops its execution", async () => {
    plan({ durationMs: 60 * 60_000 });
    await op.kubectl.apply(replicationRun("doomed", "mirror"));
    const id = (await started("doomed")).status?.harborId as number;
    const stops = count("stopReplication");
    await op.kubectl.delete(KIND, "doomed", { wait: true });
    expect((await op.harbor.replication.getExecution(id)).status).toBe("Stopped");
    expect(count("stopReplication") - stops).toBe(1);
    plan(null);
  });

  // Last: it restarts the operator.
  test("killed between starting an execution and recording it, the restarted operator takes it over: one execution", async () => {
    await op.stop();
    await op.start({ HCO_TEST_CRASH_POINT: "after-replication-run-start" });
    const before = executions().length;
    await op.kubectl.apply(replicationRun("crashy", "mirror"));
    const code = await Promise.race([
      op.exited(),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the operator did not reach the crash point")), 60_000),
      ),
    ]);
    expect(code).toBeNull(); // killed by SIGKILL
    expect(executions()).toHaveLength(before + 1);
    const lost = executions().sort((a, b) => b.id - a.id)[0];
    const unrecorded = await op.kubectl.get<ReplicationRunCR>(KIND, "crashy");
    expect(unrecorded.status?.harborId).toBeUndefined();
    expect(unrecorded.status?.startRequest).toBeDefined();

    await op.start();
    const done = await op.waitReady<ReplicationRunCR>(KIND, "crashy", 60_000);
    expect(done.status?.harborId).toBe(lost?.id);
    expect(executions()).toHaveLength(before + 1);
    expect(await eventReasons(op.kubectl, "crashy", "HarborReplicationRun")).toContain("ExecutionFound");
  });
});
