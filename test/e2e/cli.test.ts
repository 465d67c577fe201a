// The command-line companion with a real control plane and the operator: the round trip of the
// issue — export a Harbor configured by hand, apply the folder, every resource turns Ready, and
// the operator has written nothing to Harbor; a second export gives the same bytes — plus
// --connection (through the kubeconfig, reading the connection's Secret) and kubectl's plugin
// discovery (`kubectl harbor …`).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse, stringify } from "yaml";
import { MANAGED_KINDS } from "../../src/controllers/kind-list.ts";
import { budget } from "../env/budget.ts";
import { expectCleanFailure, runCli, runProcess, usePluginPath } from "../env/cli.ts";
import { adminKubectl, sharedControlPlane } from "../env/cluster.ts";
import { useOperator } from "../env/operator.ts";
import { POPULATED, populateHarbor } from "../env/populated-harbor.ts";
import { secret } from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "cli" });

/** The per-Harbor setting kinds: no Harbor id. */
const SETTINGS = [
  "HarborGarbageCollection",
  "HarborAuditLogPurge",
  "HarborJobService",
  "HarborConfiguration",
  "HarborScanAll",
];
const plugin = usePluginPath();
const work = mkdtempSync(join(tmpdir(), "hco-cli-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const kubeconfig = () => sharedControlPlane().kubeconfigPath;
/** A command through the fixture's HarborConnection, read with the admin kubeconfig. */
const viaConnection = (args: string[], connection = `${op.namespace}/harbor`) =>
  runCli([...args, "--connection", connection, "--kubeconfig", kubeconfig()]);

function files(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else out.set(p, readFileSync(join(root, p), "utf8"));
    }
  };
  walk("");
  return out;
}

beforeAll(async () => {
  await populateHarbor(op.harbor, op.emulator.control);
});

describe("the round trip", () => {
  test("export → apply → all Ready, with no Harbor write by the operator → export again: the same bytes", async () => {
    const first = join(work, "first");
    const exported = await viaConnection(["export", "--out", first]);
    expect(exported.code, exported.stderr).toBe(0);
    const all = files(first);
    const kustomization = parse(all.get("kustomization.yaml") as string) as {
      namespace: string;
      resources: string[];
    };
    // Resources go where the connection is, and name it.
    expect(kustomization.namespace).toBe(op.namespace);
    // Every exported kind: 5 projects, 3 robots, a registry, a replication policy, 2 webhook
    // policies, 2 scanner registrations, 2 labels, 2 user groups, 8 members, GC, purge, job service,
    // 2 retention policies (team_a's, the proxy cache's), 2 immutable tag rules, the system
    // configuration, 2 users, scan all, a preheat instance and a preheat policy.
    expect(kustomization.resources.length).toBe(39);
    expect(new Set(kustomization.resources.map((f) => f.split("/")[0]))).toEqual(
      new Set(MANAGED_KINDS.map((k) => k.def.plural)),
    );
    for (const f of kustomization.resources)
      expect(
        (parse(all.get(f) as string) as { spec: { connectionRef: unknown } }).spec.connectionRef,
      ).toEqual({
        kind: "HarborConnection",
        name: "harbor",
      });

    // The one Secret stub: the webhook's auth header, filled in as its owner would.
    const stubs = [...all.keys()].filter((p) => p.startsWith("secrets/"));
    expect(stubs).toHaveLength(1);
    const stub = parse(all.get(stubs[0] as string) as string) as {
      metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
    };
    await op.kubectl.apply(
      secret(
        stub.metadata.name,
        { authHeader: POPULATED.webhook.authHeader },
        { labels: stub.metadata.labels, annotations: stub.metadata.annotations },
      ),
    );

    const writesBefore = op.emulator.counters.writes();
    await op.kubectl.run(["apply", "-k", first]);
    // As the README's walk-through waits: every resource of the category at once.
    await op.kubectl.run(
      [
        "wait",
        "--for=condition=Ready",
        "harbor",
        "--all",
        `--timeout=${Math.ceil(budget.operatorMs / 1000)}s`,
      ],
      { timeoutMs: budget.operatorMs + budget.requestMs },
    );
    for (const f of kustomization.resources) {
      const doc = parse(all.get(f) as string) as { kind: string; metadata: { name: string } };
      const ready = await op.waitReady<{ status: { harborId: number | string } }>(
        doc.kind.toLowerCase(),
        doc.metadata.name,
      );
      // Harbor's id (a scanner's UUID); 0 for a per-Harbor setting, which has none.
      if (SETTINGS.includes(doc.kind)) expect(ready.status.harborId, doc.kind).toBe(0);
      else expect(ready.status.harborId, doc.kind).toBeTruthy();
    }
    // Two drift sweeps of every kind see nothing to change either.
    await Promise.all(MANAGED_KINDS.map((k) => op.sweeps(k.def.kind)));
    expect(op.emulator.counters.writes() - writesBefore).toBe(0);
    // Adopted robots keep their secrets: the operator issued none and wrote no Secret.
    const robotSecrets = await op.kubectl.run([
      "get",
      "secrets",
      "-l",
      "app.kubernetes.io/managed-by=harbor-config-operator",
      "-o",
      "name",
    ]);
    expect(robotSecrets.trim()).toBe("");

    const second = join(work, "second");
    expect((await viaConnection(["export", "--out", second, "-q"])).code).toBe(0);
    expect(files(second)).toEqual(all);
    const check = await viaConnection(["export", "--out", first, "--check", "-q"]);
    expect(check.code, check.stdout).toBe(0);
    // And the operator's own judgement, through the CLI: no difference.
    const diff = await viaConnection(["diff", first, "-q"]);
    expect(diff.code, diff.stdout).toBe(0);
    expect(diff.stdout).toMatch(/all 39 resources match Harbor/);
    expect(op.emulator.counters.writes() - writesBefore).toBe(0);
  });
});

describe("--connection", () => {
  test("a connection that does not exist", async () => {
    expectCleanFailure(
      await viaConnection(["registry", "list"], `${op.namespace}/nope`),
      1,
      new RegExp(`no HarborConnection ${op.namespace}/nope in the cluster at https://127\\.0\\.0\\.1:\\d+`),
    );
    expectCleanFailure(
      await runCli([
        "registry",
        "list",
        "--connection",
        "nope",
        "-n",
        op.namespace,
        "--kubeconfig",
        kubeconfig(),
      ]),
      1,
      new RegExp(`no HarborConnection ${op.namespace}/nope and no ClusterHarborConnection nope`),
    );
  });

  test("a connection whose Secret lacks the password: the Secret and key named, no value shown", async () => {
    await op.kubectl.apply([
      secret("half-credentials", { username: "admin" }, { usableAs: "harbor-connection" }),
      {
        apiVersion: "harborconfig.io/v1alpha1",
        kind: "HarborConnection",
        metadata: { name: "half" },
        spec: { url: op.emulator.url, credentialsSecretRef: { name: "half-credentials" } },
      },
    ]);
    expectCleanFailure(
      await viaConnection(["registry", "list"], `${op.namespace}/half`),
      1,
      new RegExp(
        `HarborConnection ${op.namespace}/half: Secret ${op.namespace}/half-credentials has no value under "password"`,
      ),
    );
  });

  test("a connection whose Secret did not opt in, or whose http:// URL leaves loopback: refused as the operator refuses it, nothing sent", async () => {
    // A name of this test's own, and a rule that fires (and so expires) on the first request that
    // carries it: the operator's own probes of the other connections cannot touch it.
    const username = "cli-not-opted-in";
    const tripwire = op.emulator.control.faults.add({ username, status: 599, times: 1 });
    await op.kubectl.apply([
      secret("plain-credentials", { username, password: op.emulator.adminPassword }),
      {
        apiVersion: "harborconfig.io/v1alpha1",
        kind: "HarborConnection",
        metadata: { name: "plain" },
        spec: { url: op.emulator.url, credentialsSecretRef: { name: "plain-credentials" } },
      },
    ]);
    expectCleanFailure(
      await viaConnection(["registry", "list"], `${op.namespace}/plain`),
      1,
      new RegExp(
        `HarborConnection ${op.namespace}/plain: Secret ${op.namespace}/plain-credentials is not allowed as a Harbor connection's credentials: it does not opt in`,
      ),
      [op.emulator.adminPassword],
    );
    const rules = op.emulator.control.faults.list();
    op.emulator.control.faults.remove(tripwire);
    expect(rules.filter((r) => r.username === username)).toHaveLength(1);
  });

  test("the Harbor behind a connection failing, and refusing", async () => {
    const fault = op.emulator.control.faults.add({ op: "listRegistries", status: 500 });
    try {
      expectCleanFailure(
        await viaConnection(["registry", "list"]),
        1,
        /answered listRegistries with HTTP 500/,
        [op.emulator.adminPassword],
      );
    } finally {
      op.emulator.control.faults.remove(fault);
    }
    await op.kubectl.apply([
      secret(
        "wrong-credentials",
        { username: "admin", password: "Not-The-Password-1" },
        { usableAs: "harbor-connection" },
      ),
      {
        apiVersion: "harborconfig.io/v1alpha1",
        kind: "HarborConnection",
        metadata: { name: "wrong" },
        spec: { url: op.emulator.url, credentialsSecretRef: { name: "wrong-credentials" } },
      },
    ]);
    expectCleanFailure(
      await viaConnection(["registry", "list"], `${op.namespace}/wrong`),
      1,
      new RegExp(
        `does not accept the username "admin" and the password from Secret ${op.namespace}/wrong-credentials \\(HTTP 401\\)`,
      ),
      ["Not-The-Password-1"],
    );
  });

  test("a name alone finds the ClusterHarborConnection when the namespace has no HarborConnection of that name", async () => {
    const shared = `${op.namespace}-shared`;
    await op.kubectl.apply(
      secret(
        "shared-credentials",
        { username: "admin", password: op.emulator.adminPassword },
        { usableAs: "harbor-connection" },
      ),
    );
    await adminKubectl().apply({
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "ClusterHarborConnection",
      metadata: { name: shared },
      spec: {
        url: op.emulator.url,
        credentialsSecretRef: { name: "shared-credentials", namespace: op.namespace },
        allowedNamespaces: [op.namespace],
      },
    });
    try {
      const out = join(work, "through-shared");
      const r = await runCli([
        "export",
        "--out",
        out,
        "--kinds",
        "registries",
        "-q",
        "--connection",
        shared,
        "-n",
        op.namespace,
        "--kubeconfig",
        kubeconfig(),
      ]);
      expect(r.code, r.stderr).toBe(0);
      const [file] = [...files(out).entries()].filter(([p]) => p.startsWith("harborregistries/"));
      expect(parse(file?.[1] ?? "")).toMatchObject({
        spec: { connectionRef: { kind: "ClusterHarborConnection", name: shared } },
      });
      // Its resources go to the namespace asked for.
      expect(parse(files(out).get("kustomization.yaml") as string)).toMatchObject({
        namespace: op.namespace,
      });
    } finally {
      // While the operator runs: it releases the connection's finalizer.
      await adminKubectl().tryRun(
        ["delete", "clusterharborconnection", shared, `--timeout=${Math.ceil(budget.operatorMs / 1000)}s`],
        { timeoutMs: budget.operatorMs + budget.requestMs },
      );
    }
  });

  test("no apiserver at the kubeconfig's address", async () => {
    const broken = join(work, "kubeconfig");
    const config = parse(readFileSync(kubeconfig(), "utf8")) as {
      clusters: Array<{ cluster: { server: string } }>;
    };
    for (const c of config.clusters) c.cluster.server = "https://127.0.0.1:1";
    writeFileSync(broken, stringify(config));
    expectCleanFailure(
      await runCli(["registry", "list", "--connection", `${op.namespace}/harbor`, "--kubeconfig", broken]),
      1,
      /cannot reach the Kubernetes API server/,
    );
  });
});

describe("kubectl harbor", () => {
  test("kubectl finds the plugin on PATH and runs it with the user's kubeconfig", async () => {
    const kubectl = sharedControlPlane().kubectl;
    const env = { PATH: plugin.path, KUBECONFIG: kubeconfig(), HOME: work };
    const list = await runProcess(kubectl, ["plugin", "list"], env);
    expect(list.stdout).toMatch(/kubectl-harbor/);
    const help = await runProcess(kubectl, ["harbor", "--help"], env);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: kubectl harbor COMMAND/);
    const r = await runProcess(
      kubectl,
      ["harbor", "project", "deletable", "team-b", "--connection", `${op.namespace}/harbor`, "-o", "json"],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ deletable: true });
    const failed = await runProcess(
      kubectl,
      ["harbor", "project", "summary", "absent", "-c", `${op.namespace}/harbor`],
      env,
    );
    expectCleanFailure(failed, 1, /project absent not found/);
  });
});
