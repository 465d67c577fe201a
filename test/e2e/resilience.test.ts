// The operator's guarantees under trouble: nothing missed while it was down, nothing crashes when
// Harbor misbehaves (and backoff grows until it recovers), and one leader at a time with a prompt
// hand-over when the leader dies.
import { describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { clusterApi } from "../env/kube-api.ts";
import { useOperator } from "../env/operator.ts";
import { type ProjectCR as CR, project, ready } from "../env/resources.ts";
import { untilTrue } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "resilience" });

const reason = (o: CR) => ready(o)?.reason;

/** The operator's JSON log lines about one resource's failed reconciles. */
function failures(output: string, key: string): Array<{ time: number; retries: number }> {
  return output
    .split("\n")
    .filter((l) => l.includes('"reconcile failed; will retry"') && l.includes(`"key":"${key}"`))
    .map((l) => JSON.parse(l) as { time: string; retries: number })
    .map((l) => ({ time: Date.parse(l.time), retries: l.retries }));
}

describe("operator resilience", () => {
  test("a restarted operator reconciles everything that changed while it was down", async () => {
    await op.kubectl.apply([project("keep"), project("edit"), project("drop")]);
    for (const name of ["keep", "edit", "drop"]) await op.waitReady("harborproject", name);

    await op.stop();
    await op.kubectl.apply([project("edit", { public: true }), project("born")]);
    await op.kubectl.delete("harborproject", "drop");
    await op.harbor.projects.update("keep", { metadata: { public: "true" } }); // drift while away

    await op.start();
    await op.waitFor<CR>("harborproject", "born", (o) => reason(o) === "Synced");
    await clusterApi(op.kubectl.kubeconfigPath).waitGone("harborproject", op.namespace, "drop");
    expect(await op.harbor.projects.exists("born")).toBe(true);
    expect(await op.harbor.projects.exists("drop")).toBe(false);
    await expect
      .poll(async () => (await op.harbor.projects.get("edit")).metadata?.public, {
        timeout: budget.operatorMs,
      })
      .toBe("true");
    await expect
      .poll(async () => (await op.harbor.projects.get("keep")).metadata?.public, {
        timeout: budget.operatorMs,
      })
      .toBe("false");
  });

  test("under Harbor faults nothing crashes, backoff grows, and all converges once they stop", async () => {
    const faults = op.emulator.control.faults;
    const ids = [
      faults.add({ op: "createProject", status: 503 }),
      faults.add({ op: "getProject", drop: true, rate: 0.5 }),
      faults.add({ op: "getProject", status: 429, retryAfterSeconds: 1, rate: 0.5 }),
      faults.add({ latencyMs: 100 }),
    ];
    await op.kubectl.apply(project("stormy"));
    const key = `${op.namespace}/stormy`;
    await op.waitFor<CR>("harborproject", "stormy", (o) => reason(o) === "HarborUnavailable");
    await untilTrue("four failed reconciles in the log", () => failures(op.output(), key).length >= 4);

    const seen = failures(op.output(), key);
    const gaps = seen.slice(1).map((f, i) => f.time - (seen[i] as { time: number }).time);
    expect(seen.map((f) => f.retries)).toEqual(seen.map((_f, i) => i + 1));
    expect(gaps[gaps.length - 1]).toBeGreaterThan(gaps[0] as number);
    expect(op.output()).not.toMatch(/"level":"fatal"|Unhandled|uncaught/i);

    for (const id of ids) faults.remove(id);
    await op.waitReady("harborproject", "stormy");
    expect(await op.harbor.projects.exists("stormy")).toBe(true);
  });

  test("two operators elect one leader; the other takes over when it is killed", async () => {
    await op.stop(); // the fixture's operator runs without leader election
    const lease = "hco-leader";
    const args = [
      "--leader-elect=true",
      `--leader-election-id=${lease}`,
      `--leader-election-namespace=${op.namespace}`,
      // A deployed operator's timings: the test is about who leads and the failover, not how fast;
      // with a 3 s renew deadline a leader starved of CPU on a busy machine can lose its lease.
      "--leader-elect-lease-duration=15s",
      "--leader-elect-renew-deadline=10s",
      "--leader-elect-retry-period=2s",
    ];
    const a = op.spawn(args, { POD_NAME: "op-a" });
    const b = op.spawn(args, { POD_NAME: "op-b" });
    const holder = async () =>
      (
        await clusterApi(op.kubectl.kubeconfigPath).find<{ spec?: { holderIdentity?: string } }>(
          "lease",
          op.namespace,
          lease,
        )
      )?.spec?.holderIdentity ?? "";
    await expect.poll(holder, { timeout: budget.operatorMs }).toMatch(/^op-[ab]_/);
    const first = (await holder()).startsWith("op-a") ? a : b;
    const second = first === a ? b : a;

    await op.kubectl.apply(project("led"));
    await op.waitReady("harborproject", "led");
    expect(first.output()).toContain('"operator started"');
    expect(second.output()).not.toContain('"operator started"'); // the standby does no work

    await first.stop({ kill: true });
    await op.kubectl.apply(project("after-failover"));
    await expect.poll(holder, { timeout: budget.operatorMs }).toMatch(second === a ? /^op-a_/ : /^op-b_/);
    await op.waitReady("harborproject", "after-failover");
    expect(second.output()).toContain('"operator started"');

    await second.stop();
    // A graceful stop releases the lease: it is empty as soon as the process has exited.
    expect(await holder()).toBe("");
  });
});
