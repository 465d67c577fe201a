// What operators of the operator look at: /healthz, /readyz and /metrics of a running operator
// (controller-runtime's metric names plus Harbor requests by operation and code), against the
// run's shared Harbor emulator.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { sharedControlPlane, sharedHarbor, useNamespace } from "../env/cluster.ts";
import { type OperatorProcess, spawnOperator } from "../env/operator.ts";
import { servedUrls } from "../env/operator-log.ts";
import { connection, credentials, project } from "../env/resources.ts";
import { untilTrue } from "../env/until.ts";

const ns = useNamespace("observe");
let operator: OperatorProcess | undefined;
let metricsUrl = "";
let probeUrl = "";

beforeAll(async () => {
  const harbor = sharedHarbor();
  await ns.kubectl.apply([credentials("creds", harbor), connection("harbor", harbor.url, "creds")]);
  operator = spawnOperator([
    `--kubeconfig=${sharedControlPlane().kubeconfigPath}`,
    `--namespace=${ns.name}`,
    "--leader-elect=false",
    "--metrics-bind-address=127.0.0.1:0",
    "--health-probe-bind-address=127.0.0.1:0",
  ]);
  ({ metricsUrl, probeUrl } = await servedUrls(operator));
});
afterAll(() => operator?.stop());

describe("a running operator", () => {
  test("has every controller's series from the start, at zero, as controller-runtime does", async () => {
    await expect
      .poll(
        () =>
          fetch(`${metricsUrl}/metrics`).then(
            (r) => r.status,
            () => 0,
          ),
        { timeout: budget.operatorMs },
      )
      .toBe(200);
    const text = await (await fetch(`${metricsUrl}/metrics`)).text();
    for (const controller of ["harborrobot", "harborwebhookpolicy", "harborconnection"]) {
      expect(text).toContain(`controller_runtime_reconcile_errors_total{controller="${controller}"} 0`);
      expect(text).toContain(
        `controller_runtime_reconcile_total{controller="${controller}",result="error"} 0`,
      );
      expect(text).toContain(`workqueue_retries_total{name="${controller}",controller="${controller}"} 0`);
    }
    // Without leader election this process does the work.
    expect(text).toMatch(/leader_election_master_status\{name="harbor-config-operator"\} 1/);
  });

  test("is alive and becomes ready once its caches are synced", async () => {
    await expect
      .poll(
        () =>
          fetch(`${probeUrl}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        { timeout: budget.operatorMs },
      )
      .toBe(200);
    await expect
      .poll(
        () =>
          fetch(`${probeUrl}/readyz`).then(
            (r) => r.status,
            () => 0,
          ),
        { timeout: budget.operatorMs },
      )
      .toBe(200);
  });

  test("serves controller-runtime's metrics and Harbor requests by operation and code", async () => {
    await ns.kubectl.apply(project(`observed-${ns.name}`));
    await ns.kubectl.wait("harborproject", `observed-${ns.name}`, "condition=Ready", budget.operatorMs);
    // A reconcile is counted once it returns, a moment after the status write kubectl saw: looked
    // for until it is there (a busy machine may run kubectl and this test first).
    const reconciled =
      /controller_runtime_reconcile_total\{controller="harborproject",result="success"\} [1-9]/;
    await untilTrue("the project's reconcile counted in /metrics", async () =>
      reconciled.test(await (await fetch(`${metricsUrl}/metrics`)).text()),
    );
    const res = await fetch(`${metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toMatch(reconciled);
    expect(text).toMatch(/controller_runtime_reconcile_time_seconds_bucket\{[^}]*controller="harborproject"/);
    expect(text).toMatch(/workqueue_adds_total\{name="harborproject",controller="harborproject"\} [1-9]/);
    expect(text).toMatch(/workqueue_depth\{name="harborproject",controller="harborproject"\}/);
    expect(text).toMatch(
      new RegExp(
        `harbor_requests_total\\{connection="HarborConnection/${ns.name}/harbor",operation="createProject",method="POST",code="201"\\} 1`,
      ),
    );
    expect(text).toMatch(/harbor_request_duration_seconds_bucket\{[^}]*operation="createProject"/);
    expect(text).toMatch(/process_resident_memory_bytes \d+/);
  });
});
