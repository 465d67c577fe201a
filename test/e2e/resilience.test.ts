// The operator's guarantees under trouble: nothing missed while it was down, nothing crashes when
// Harbor misbehaves (and backoff grows until it recovers), and one leader at a time with a prompt
// hand-over when the leader dies.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { type ProjectCR as CR, project, ready } from "../env/resources.ts";

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
    await op.kubectl.wait("harborproject", "drop", "delete", 60_000);
    expect(await op.harbor.projects.exists("born")).toBe(true);
    expect(await op.harbor.projects.exists("drop")).toBe(false);
    await expect
      .poll(async () => (await op.harbor.projects.get("edit")).metadata?.public, { timeout: 30_000 })
      .toBe("true");
    await expect
      .poll(async () => (await op.harbor.projects.get("keep")).metadata?.public, { timeout: 30_000 })
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
    await op.waitFor<CR>("harborproject", "stormy", (o) => reason(o) === "HarborUnavailable", 30_000);
    await expect
      .poll(() => failures(op.output(), key).length, { timeout: 60_000, interval: 500 })
      .toBeGreaterThanOrEqual(4);

    const seen = failures(op.output(), key);
    const gaps = seen.slice(1).map((f, i) => f.time - (seen[i] as { time: number }).time);
    expect(seen.map((f) => f.retries)).toEqual(seen.map((_f, i) => i + 1));
    expect(gaps[gaps.length - 1]).toBeGreaterThan(gaps[0] as number);
    expect(op.output()).not.toMatch(/"level":"fatal"|Unhandled|uncaught/i);

    for (const id of ids) faults.remove(id);
    await op.waitReady("harborproject", "stormy", 90_000);
    expect(await op.harbor.projects.exists("stormy")).toBe(true);
  });

  test("two operators elect one leader; the other takes over when it is killed", async () => {
    await op.stop(); // the fixture's operator runs without leader election
    const lease = "hco-leader";
    const args = [
      "--leader-elect=true",
      `--leader-election-id=${lease}`,
      `--leader-election-namespace=${op.namespace}`,
      "--leader-elect-lease-duration=4s",
      "--leader-elect-renew-deadline=3s",
      "--leader-elect-retry-period=500ms",
    ];
    const a = op.spawn(args, { POD_NAME: "op-a" });
    const b = op.spawn(args, { POD_NAME: "op-b" });
    const holder = async () => {
      const r = await op.kubectl.tryRun(["get", "lease", lease, "-o", "jsonpath={.spec.holderIdentity}"]);
      return r.code === 0 ? r.stdout : "";
    };
    await expect.poll(holder, { timeout: 30_000 }).toMatch(/^op-[ab]_/);
    const first = (await holder()).startsWith("op-a") ? a : b;
    const second = first === a ? b : a;

    await op.kubectl.apply(project("led"));
    await op.waitReady("harborproject", "led");
    expect(first.output()).toContain('"operator started"');
    expect(second.output()).not.toContain('"operator started"'); // the standby does no work

    await first.stop({ kill: true });
    const killedAt = Date.now();
    await op.kubectl.apply(project("after-failover"));
    await expect.poll(holder, { timeout: 30_000 }).toMatch(second === a ? /^op-a_/ : /^op-b_/);
    await op.waitReady("harborproject", "after-failover");
    // Taken over within the lease duration plus a couple of retry periods and start-up.
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    expect(second.output()).toContain('"operator started"');

    await second.stop();
    // A graceful stop releases the lease at once.
    await expect.poll(holder, { timeout: 10_000 }).toBe("");
  });
});
