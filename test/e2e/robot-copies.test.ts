// Where a HarborRobot's copies go, seen as a user sees it: a ServiceAccount created after the robot
// is Ready lists the pull secret within seconds (and gets it back when someone removes it).
import { afterAll, describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";

const op = useOperator({ namespacePrefix: "robot-copy" });

interface RobotCR {
  metadata: { name: string; generation?: number };
  status?: {
    copiedTo?: string[];
  };
}
interface ServiceAccountObj {
  imagePullSecrets?: Array<{ name: string }>;
}

/** How long a new ServiceAccount may go without the pull secret. */
const SA_LATENCY_LIMIT_MS = 5_000;

const robot = (name: string, selector: string, serviceAccounts: string[] = []) => ({
  apiVersion: "harborconfig.io/v1alpha1",
  kind: "HarborRobot",
  metadata: { name },
  spec: {
    connectionRef: { name: "harbor" },
    projectRef: { name: "team" },
    permissions: [{ access: [{ resource: "repository", action: "pull" }] }],
    secret: {
      copies: { namespaceSelector: { matchLabels: { "robot-copies": selector } }, serviceAccounts },
    },
  },
});

const namespaces: string[] = [];
async function labelledNamespace(suffix: string, selector: string): Promise<string> {
  const name = `${op.namespace}-${suffix}`;
  await op.kubectl.run(["create", "namespace", name]);
  namespaces.push(name);
  await op.kubectl.run(["label", "namespace", name, `robot-copies=${selector}`]);
  return name;
}

/** ms from just before `create serviceaccount` until a watch sees `secret` in its imagePullSecrets. */
async function pullSecretLatency(namespace: string, account: string, secret: string): Promise<number> {
  const k = op.kubectl.inNamespace(namespace);
  const start = Date.now();
  await k.run(["create", "serviceaccount", account]);
  await k.tryRun(
    [
      "wait",
      `serviceaccount/${account}`,
      `--for=jsonpath={.imagePullSecrets[0].name}=${secret}`,
      "--timeout=15s",
    ],
    { timeoutMs: 25_000 },
  );
  return Date.now() - start;
}

async function entries(namespace: string, account: string): Promise<string[]> {
  const sa = await op.kubectl.inNamespace(namespace).get<ServiceAccountObj>("serviceaccount", account);
  return (sa.imagePullSecrets ?? []).map((e) => e.name);
}

afterAll(async () => {
  for (const ns of namespaces) await op.kubectl.tryRun(["delete", "namespace", ns, "--wait=false"]);
});

describe("HarborRobot copies", () => {
  test("a ServiceAccount created after the robot is Ready lists the pull secret within 5 s, and gets it back when removed", async () => {
    const selector = `${op.namespace}-sa`;
    const nsA = await labelledNamespace("a", selector);
    const nsB = await labelledNamespace("b", selector);
    await op.kubectl.apply([
      {
        apiVersion: "harborconfig.io/v1alpha1",
        kind: "HarborProject",
        metadata: { name: "team" },
        spec: { connectionRef: { name: "harbor" } },
      },
      robot("late", selector, ["app", "worker"]),
    ]);
    await op.waitReady<RobotCR>("harborrobot", "late");
    await op.waitFor<RobotCR>("harborrobot", "late", (o) => o.status?.copiedTo?.length === 2);

    // Neither ServiceAccount exists yet; each appears later, in one namespace or the other.
    const latencies: number[] = [];
    for (const [ns, account] of [
      [nsA, "app"],
      [nsB, "worker"],
      [nsB, "app"],
    ] as const) {
      latencies.push(await pullSecretLatency(ns, account, "late"));
      expect(await entries(ns, account)).toEqual(["late"]);
    }
    console.log(`ServiceAccount → imagePullSecrets latency (ms): ${latencies.join(", ")}`);
    for (const ms of latencies) expect(ms).toBeLessThanOrEqual(SA_LATENCY_LIMIT_MS);

    // Someone removes the entry (e.g. re-applies the ServiceAccount without it): it comes back.
    const start = Date.now();
    await op.kubectl
      .inNamespace(nsA)
      .run([
        "patch",
        "serviceaccount",
        "app",
        "--type=json",
        "-p",
        '[{"op":"remove","path":"/imagePullSecrets"}]',
      ]);
    await op.kubectl
      .inNamespace(nsA)
      .tryRun(
        ["wait", "serviceaccount/app", "--for=jsonpath={.imagePullSecrets[0].name}=late", "--timeout=15s"],
        {
          timeoutMs: 25_000,
        },
      );
    const restored = Date.now() - start;
    console.log(`removed entry restored after ${restored} ms`);
    expect(await entries(nsA, "app")).toEqual(["late"]);
    expect(restored).toBeLessThanOrEqual(SA_LATENCY_LIMIT_MS);
  });
});
