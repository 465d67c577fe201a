// "Run now" on a HarborReplicationPolicy: a new value of harborconfig.io/runRequestedAt starts one
// execution, followed in lastExecution; the value handled starts nothing again; a disabled policy
// records the refusal instead of starting later; runOnCreate and the annotation in one manifest
// start one execution; an operator killed between starting the execution and recording it ends with
// one execution. Every decision of run now, the crash before the start included, is proven in
// test/unit/controllers/run-now.test.ts; this file proves it against the emulator for this kind.
import { describe, expect, test } from "vitest";
import { armedAt, startDisarmed, untilCrashed } from "../env/crash.ts";
import { useOperator } from "../env/operator.ts";
import {
  eventOf,
  harborIdOf,
  type ReplicationPolicyCR as PolicyCR,
  readyForSpec,
  registry,
  replicationPolicy,
} from "../env/resources.ts";

// Armed: the operator dies the first time it has started an execution for a value (the first test),
// before recording it.
const op = useOperator({ namespacePrefix: "runnow", ...armedAt("after-run-start") });
const KIND = "harborreplicationpolicy";
const ANNOTATION = "harborconfig.io/runRequestedAt";

const policy = (
  name: string,
  spec: Parameters<typeof replicationPolicy>[1] = {},
  annotations?: Record<string, string>,
) =>
  replicationPolicy(
    name,
    { registryRef: { name: "target" }, ...spec },
    annotations ? { annotations } : undefined,
  );
const executionsOf = (policyId: number) =>
  op.emulator.world.replication.executions().filter((e) => e.policy_id === policyId);
const annotate = (name: string, value: string) =>
  op.kubectl.run(["annotate", "--overwrite", KIND, name, `${ANNOTATION}=${value}`]);
const handled = (value: string) => (o: PolicyCR) => o.status?.lastHandledRunAt === value;

describe("run now on a HarborReplicationPolicy", () => {
  // First: the operator is armed to die here.
  test("the operator killed between starting the execution and recording it ends with one execution", async () => {
    await op.kubectl.apply([registry("target"), policy("crashy")]);
    const id = harborIdOf(await op.waitReady<PolicyCR>(KIND, "crashy"));
    await annotate("crashy", "crash");
    await untilCrashed(op);
    expect(executionsOf(id)).toHaveLength(1);
    expect((await op.kubectl.get<PolicyCR>(KIND, "crashy")).status?.runRequest?.executionId).toBeUndefined();

    await startDisarmed(op);
    const cr = await op.waitFor<PolicyCR>(KIND, "crashy", handled("crash"));
    expect(executionsOf(id)).toHaveLength(1);
    expect(cr.status?.runRequest?.executionId).toBe(executionsOf(id).at(-1)?.id);
    const found = await eventOf(op.kubectl, "crashy", "HarborReplicationPolicy", "RunStarted", "Found a");
    expect(found.message).toMatch(/^Found a replication \(execution \d+\) started earlier/);
  });

  test("a new value starts one execution, recorded in status and followed to its end; the value handled starts nothing again", async () => {
    await op.kubectl.apply([registry("target"), policy("mirror")]);
    const id = harborIdOf(await op.waitReady<PolicyCR>(KIND, "mirror"));
    expect(executionsOf(id)).toHaveLength(0);

    await annotate("mirror", "2030-01-01T00:00:00Z");
    const started = await op.waitFor<PolicyCR>(KIND, "mirror", handled("2030-01-01T00:00:00Z"));
    expect(executionsOf(id)).toHaveLength(1);
    const execution = executionsOf(id)[0];
    expect(started.status?.runRequest).toMatchObject({
      requestedAt: "2030-01-01T00:00:00Z",
      afterExecutionId: 0,
      executionId: execution?.id,
    });
    expect(started.status?.lastExecution?.id).toBe(execution?.id);
    await op.waitFor<PolicyCR>(KIND, "mirror", (o) => o.status?.lastExecution?.status === "Succeed");
    const started2 = await eventOf(op.kubectl, "mirror", "HarborReplicationPolicy", "RunStarted");
    expect(started2.message).toBe(
      `Started a replication (execution ${execution?.id}) for ${ANNOTATION} "2030-01-01T00:00:00Z"`,
    );

    // The value handled starts nothing when the spec changes: the reconcile of the new generation,
    // which ends with its status written, saw it; a new value starts one more.
    await op.kubectl.apply(policy("mirror", { description: "edited" }));
    await op.waitFor<PolicyCR>(KIND, "mirror", readyForSpec);
    expect(executionsOf(id)).toHaveLength(1);
    await annotate("mirror", "again");
    const again = await op.waitFor<PolicyCR>(KIND, "mirror", handled("again"));
    expect(executionsOf(id)).toHaveLength(2);
    expect(again.status?.runRequest?.afterExecutionId).toBe(execution?.id);
  });

  test("on a disabled policy nothing starts, now or when it is enabled; the refusal is in status", async () => {
    await op.kubectl.apply(policy("disabled", { enabled: false }));
    const id = harborIdOf(await op.waitReady<PolicyCR>(KIND, "disabled"));
    await annotate("disabled", "please");
    const refused = await op.waitFor<PolicyCR>(KIND, "disabled", handled("please"));
    expect(refused.status?.runRequest?.refused).toContain("the policy is disabled");
    expect(refused.status?.runRequest?.executionId).toBeUndefined();
    const event = await eventOf(op.kubectl, "disabled", "HarborReplicationPolicy", "RunNotStarted");
    expect(event.type).toBe("Warning");

    // Enabled: the reconcile of that generation (its status written) starts nothing for the old value.
    await op.kubectl.apply(policy("disabled", { enabled: true }));
    await op.waitFor<PolicyCR>(KIND, "disabled", readyForSpec);
    expect(executionsOf(id)).toHaveLength(0);
  });

  test("runOnCreate and the annotation in one manifest start one execution", async () => {
    await op.kubectl.apply(policy("both", { runOnCreate: true }, { [ANNOTATION]: "at-creation" }));
    const cr = await op.waitFor<PolicyCR>(KIND, "both", handled("at-creation"));
    const id = harborIdOf(cr);
    expect(cr.status?.runRequest?.executionId).toBe(executionsOf(id)[0]?.id);
    // Followed to its end, each look with both asks in view: still one.
    await op.waitFor<PolicyCR>(KIND, "both", (o) => o.status?.lastExecution?.status === "Succeed");
    expect(executionsOf(id)).toHaveLength(1);
  });
});
