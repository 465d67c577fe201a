// "Run now" on a HarborReplicationPolicy: a new value of harborconfig.io/runRequestedAt starts one
// execution, followed in lastExecution; the value handled starts nothing again; a disabled policy
// records the refusal instead of starting later; runOnCreate and the annotation in one manifest
// start one execution; an operator killed between starting the execution and recording it ends with
// one execution.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  eventsOf,
  type ReplicationPolicyCR as PolicyCR,
  readyForSpec,
  registry,
  replicationPolicy,
} from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "runnow" });
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
  test("a new value starts one execution, recorded in status and followed to its end", async () => {
    await op.kubectl.apply([registry("target"), policy("mirror")]);
    const cr = await op.waitReady<PolicyCR>(KIND, "mirror", 60_000);
    const id = cr.status?.harborId as number;
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
    const started2 = (await eventsOf(op.kubectl, "mirror", "HarborReplicationPolicy")).find(
      (e) => e.reason === "RunStarted",
    );
    expect(started2?.message).toBe(
      `Started a replication (execution ${execution?.id}) for ${ANNOTATION} "2030-01-01T00:00:00Z"`,
    );

    // The same value (re-applied, or the spec edited) starts nothing; a new one starts one more.
    await op.kubectl.apply(policy("mirror", { description: "edited" }));
    await op.waitFor<PolicyCR>(KIND, "mirror", readyForSpec);
    await annotate("mirror", "2030-01-01T00:00:00Z");
    await new Promise((r) => setTimeout(r, 1_500));
    expect(executionsOf(id)).toHaveLength(1);
    await annotate("mirror", "again");
    const again = await op.waitFor<PolicyCR>(KIND, "mirror", handled("again"));
    expect(executionsOf(id)).toHaveLength(2);
    expect(again.status?.runRequest?.afterExecutionId).toBe(execution?.id);
  });

  test("on a disabled policy nothing starts, now or when it is enabled; the refusal is in status", async () => {
    await op.kubectl.apply(policy("disabled", { enabled: false }));
    const cr = await op.waitReady<PolicyCR>(KIND, "disabled");
    const id = cr.status?.harborId as number;
    await annotate("disabled", "please");
    const refused = await op.waitFor<PolicyCR>(KIND, "disabled", handled("please"));
    expect(refused.status?.runRequest?.refused).toContain("the policy is disabled");
    expect(refused.status?.runRequest?.executionId).toBeUndefined();
    const event = (await eventsOf(op.kubectl, "disabled", "HarborReplicationPolicy")).find(
      (e) => e.reason === "RunNotStarted",
    );
    expect(event?.type).toBe("Warning");

    await op.kubectl.apply(policy("disabled", { enabled: true }));
    await op.waitFor<PolicyCR>(KIND, "disabled", readyForSpec);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(executionsOf(id)).toHaveLength(0);
  });

  test("runOnCreate and the annotation in one manifest start one execution", async () => {
    await op.kubectl.apply(policy("both", { runOnCreate: true }, { [ANNOTATION]: "at-creation" }));
    const cr = await op.waitFor<PolicyCR>(KIND, "both", handled("at-creation"));
    const id = cr.status?.harborId as number;
    await new Promise((r) => setTimeout(r, 1_500));
    expect(executionsOf(id)).toHaveLength(1);
    expect(cr.status?.runRequest?.executionId).toBe(executionsOf(id)[0]?.id);
  });

  test("the operator killed between starting the execution and recording it ends with one execution", async () => {
    const id = (await op.kubectl.get<PolicyCR>(KIND, "mirror")).status?.harborId as number;
    const before = executionsOf(id).length;
    await op.stop();
    await op.start({ HCO_TEST_CRASH_POINT: "after-run-start" });
    await annotate("mirror", "crash");
    const code = await Promise.race([
      op.exited(),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the operator did not reach the crash point")), 30_000),
      ),
    ]);
    expect(code).toBeNull();
    expect(executionsOf(id)).toHaveLength(before + 1);
    expect((await op.kubectl.get<PolicyCR>(KIND, "mirror")).status?.runRequest?.executionId).toBeUndefined();

    await op.start();
    const cr = await op.waitFor<PolicyCR>(KIND, "mirror", handled("crash"), 60_000);
    expect(executionsOf(id)).toHaveLength(before + 1);
    expect(cr.status?.runRequest?.executionId).toBe(executionsOf(id).at(-1)?.id);
    const found = (await eventsOf(op.kubectl, "mirror", "HarborReplicationPolicy")).find((e) =>
      e.message.startsWith("Found a replication"),
    );
    expect(found?.reason).toBe("RunStarted");
  });
});
