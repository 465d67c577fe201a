// The README's main-job command, `npm run demo`, as a user runs it: every example becomes Ready,
// what it prints to explore works, Ctrl-C stops everything it started, and nothing it starts
// leaves loopback. (`--once` stops through the same path right after the table, without Ctrl-C.)
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { GROUP } from "../../src/api/common.ts";
import { ALL_DEFINITIONS } from "../../src/controllers/kind-list.ts";
import { budget } from "../env/budget.ts";
import { exampleResources } from "../env/examples.ts";
import { describeRefusal, guardRecords } from "../env/net-guard-env.ts";
import { until } from "../env/until.ts";

const root = join(import.meta.dirname, "..", "..");
const running: ChildProcess[] = [];
afterAll(() => {
  // Each demo's whole process group: npm may be gone while the demo under it is not.
  for (const p of running) {
    try {
      if (p.pid) process.kill(-p.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

function demo(args: string[]): {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** The network guard's log of this demo's processes. */
  guardLog: string;
} {
  const guardLog = join(mkdtempSync(join(tmpdir(), "hco-demo-guard-")), "net-guard.jsonl");
  // Its own process group, as a terminal would start it, so that Ctrl-C reaches npm and node alike.
  const proc = spawn("npm", ["run", "--silent", "demo", "--", ...args], {
    cwd: root,
    detached: true,
    env: { ...process.env, HCO_NET_GUARD_LOG: guardLog },
  });
  running.push(proc);
  let out = "";
  proc.stdout?.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  proc.stderr?.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  // "close": every process sharing its output (npm and the demo under it) has finished.
  return {
    proc,
    output: () => out,
    exited: new Promise((resolve) => proc.once("close", (code) => resolve(code))),
    guardLog,
  };
}

/** What `kubectl get harbor -A` names for each example of the operator's kinds. */
const EXAMPLES = exampleResources().map((o) => `${o.kind.toLowerCase()}.${GROUP}/${o.metadata.name}`);

describe("npm run demo", () => {
  // One demo, as the README runs it: everything a user is told to look at while it runs, then Ctrl-C.
  test("shows every example Ready and how to explore, and Ctrl-C stops everything cleanly", {
    timeout: budget.longTestMs,
  }, async () => {
    const d = demo(["--logs"]);
    await until(
      "the demo to say Press Ctrl-C",
      () => (d.output().includes("Press Ctrl-C") ? true : undefined),
      budget.startMs + budget.operatorMs,
    );
    const out = d.output();
    // --logs shows the operator's log as it comes; it is in the file the demo names, too.
    expect(out).toContain('"msg":"operator started"');
    const logPath = /Operator log: (\S+)/.exec(out)?.[1] as string;
    expect(readFileSync(logPath, "utf8")).toContain('"msg":"operator started"');
    expect(new Set(EXAMPLES.map((e) => e.split(".")[0])).size).toBe(ALL_DEFINITIONS.length);
    for (const name of EXAMPLES)
      expect(out).toMatch(new RegExp(`${name.replace(/[.$/]/g, "\\$&")}\\s+True\\s`));
    expect(out).toMatch(/Harbor emulator: http:\/\/127\.0\.0\.1:\d+ {2}\(user admin, password Harbor12345\)/);
    expect(out).toContain("get secret example-team-pull");
    // The printed check logs in without a scope, where Harbor refuses a wrong secret.
    expect(out).toMatch(/curl -fsS -o \/dev\/null -u .*\/service\/token\?service=harbor-registry" && echo/);
    // The metrics address it prints is the operator's, serving.
    const metrics = /Operator metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(out)?.[1] as string;
    expect(await (await fetch(metrics)).text()).toContain("controller_runtime_reconcile_total");
    const kubeconfig = /export KUBECONFIG=(\S+)/.exec(out)?.[1] as string;
    expect(existsSync(kubeconfig)).toBe(true);

    process.kill(-(d.proc.pid as number), "SIGINT");
    // npm itself ends by the signal, as in a terminal; the demo under it shuts down in order.
    expect([0, null]).toContain(await d.exited);
    expect(d.output()).toContain("Stopping the demo");
    // What it started is gone: the control plane's folder (where the kubeconfig was).
    expect(existsSync(dirname(kubeconfig))).toBe(false);

    // The demo and the operator it started ran under the network guard, which refused nothing.
    const records = guardRecords(d.guardLog);
    const armed = records.filter((r) => r.event === "armed").map((r) => r.argv.join(" "));
    expect(armed.some((a) => a.includes("test/env/demo.ts"))).toBe(true);
    expect(armed.some((a) => a.includes("src/main.ts"))).toBe(true);
    const refused = records.filter((r) => r.event === "refused");
    expect(refused, refused.map(describeRefusal).join("\n")).toEqual([]);
  });
});
