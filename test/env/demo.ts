// `npm run demo`: the operator working end to end on this machine.
//
// With no cluster configured it starts everything locally — a real kube-apiserver and etcd (built
// on the first run), the Harbor emulator, and the operator — applies deploy/examples/ with their
// HarborConnection pointed at the emulator, waits until every example is Ready, prints
// `kubectl get harbor` and how to explore, and stops everything cleanly on Ctrl-C. Locally nothing
// leaves the machine: the demo and the Node processes it starts run under the network guard
// (net-guard.js), and the emulator delivers webhooks to loopback addresses only.
//
// With --kubeconfig (or $KUBECONFIG) naming a real cluster and --harbor-url naming a real Harbor,
// the same operator runs there: the CRDs are applied, then the examples (in the namespaces they
// name), with the connections using --harbor-username / --harbor-password.
import { createWriteStream, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { insecureHttpRefusal } from "../../src/controllers/connection/mapping.ts";
import { DEFAULT_ADMIN_PASSWORD, type Emulator, startEmulator } from "./emulator/index.ts";
import { DEFAULT_HARBOR_VERSION, HARBOR_VERSIONS } from "./emulator/version.ts";
import { addExampleAdapters, exampleManifests, examplesDir, OPERATOR_ENV } from "./examples.ts";
import { type Kubectl, kubectl as kubectlAt } from "./kubectl.ts";
import { GUARD_PATH, withGuard } from "./net-guard-env.ts";
import { type OperatorProcess, spawnOperator } from "./operator.ts";
import { servedUrls } from "./operator-log.ts";

const crdsDir = join(import.meta.dirname, "..", "..", "crds");

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    "harbor-url": { type: "string" },
    "harbor-username": { type: "string", default: "admin" },
    "harbor-password": { type: "string" },
    "harbor-version": { type: "string" },
    once: { type: "boolean", default: false },
    logs: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  process.stdout.write(`Usage: npm run demo -- [--once] [--logs] [--harbor-version X] [--kubeconfig PATH --harbor-url URL --harbor-username U --harbor-password P]

Without --harbor-url: a local control plane, the Harbor emulator and the operator, with every
example of deploy/examples/ applied. --harbor-version picks the release the emulator models
(${HARBOR_VERSIONS.join(", ")}; default ${DEFAULT_HARBOR_VERSION}). Ctrl-C stops everything; --once stops as soon as all are Ready.
The operator's log goes to a file (its path is printed; --logs also prints it here as it comes), and
its metrics and health endpoints are on loopback ports that are printed too.
With --harbor-url (and a kubeconfig): the operator runs against that cluster and that Harbor.
`);
  process.exit(0);
}

const say = (line = "") => process.stdout.write(`${line}\n`);
const cleanups: Array<() => Promise<void>> = [];
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    say("\nStopping the demo…");
    void stopAll(0);
  });
}

async function waitAllReady(k: Kubectl, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = JSON.parse(
      await k.run(["get", "harbor,harborconnections,clusterharborconnections", "-A", "-o", "json"]),
    ) as {
      items: Array<{
        kind: string;
        metadata: { namespace?: string; name: string };
        status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> };
      }>;
    };
    const notReady = list.items.filter(
      (i) => i.status?.conditions?.find((c) => c.type === "Ready")?.status !== "True",
    );
    if (notReady.length === 0 && list.items.length > 0) return;
    if (Date.now() > deadline) {
      const lines = notReady.map((i) => {
        const c = i.status?.conditions?.find((x) => x.type === "Ready");
        return `  ${i.kind} ${i.metadata.namespace ?? ""}/${i.metadata.name}: ${c ? `${c.reason}: ${c.message}` : "no status yet"}`;
      });
      throw new Error(`not every example became Ready in time:\n${lines.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function main(): Promise<void> {
  if (!existsSync(examplesDir)) throw new Error(`no examples at ${examplesDir}`);
  const remote = values["harbor-url"] !== undefined;
  let kubeconfig = values.kubeconfig ?? (remote ? process.env.KUBECONFIG : undefined);
  let harbor: { url: string; username: string; password: string };
  let emulator: Emulator | undefined;
  let kubectlBinary = "kubectl";

  if (remote) {
    if (!kubeconfig) throw new Error("--harbor-url needs a cluster: set KUBECONFIG or pass --kubeconfig");
    if (!values["harbor-password"])
      throw new Error("--harbor-url needs --harbor-password (or HARBOR_PASSWORD)");
    harbor = {
      url: values["harbor-url"] as string,
      username: values["harbor-username"] as string,
      password: values["harbor-password"],
    };
    say(`Using the cluster of ${kubeconfig} and Harbor at ${harbor.url}.`);
    if (insecureHttpRefusal(harbor))
      say(
        "  Plain http:// to a host other than loopback: the password crosses the network unencrypted (the examples' connections get allowInsecureHTTP: true).",
      );
  } else {
    // This process and every Node process it starts (the operator) stay on loopback.
    process.env.NODE_OPTIONS = withGuard(process.env.NODE_OPTIONS);
    await import(pathToFileURL(GUARD_PATH).href);
    say(
      "Starting a local Kubernetes control plane (the first run builds it from Go modules: a few minutes)…",
    );
    const { startControlPlane } = await import("./controlplane/launcher.ts");
    const cp = await startControlPlane({ crds: crdsDir, log: (l) => say(`  ${l}`) });
    cleanups.push(() => cp.stop());
    kubeconfig = cp.kubeconfigPath;
    kubectlBinary = cp.binaries.kubectl;
    emulator = await startEmulator({
      host: "127.0.0.1",
      adminPassword: DEFAULT_ADMIN_PASSWORD,
      ...(values["harbor-version"] ? { harborVersion: values["harbor-version"] } : {}),
    });
    const e = emulator;
    cleanups.push(() => e.close());
    addExampleAdapters(emulator.control);
    harbor = { url: emulator.url, username: emulator.adminUsername, password: emulator.adminPassword };
    say(`Harbor emulator (Harbor ${emulator.world.version.name}) at ${harbor.url}.`);
  }

  const admin = kubectlAt(kubeconfig, kubectlBinary);
  if (remote) {
    say("Installing the CRDs…");
    await admin.run(["apply", "--server-side", "--force-conflicts", "-f", crdsDir]);
  }

  say("Starting the operator…");
  const logPath = join(mkdtempSync(join(tmpdir(), "hco-demo-")), "operator.log");
  const log = createWriteStream(logPath);
  const operator: OperatorProcess = spawnOperator(
    [
      `--kubeconfig=${kubeconfig}`,
      "--leader-elect=false",
      // Ports of the operator's choice, read back from its log: none another process could take first.
      "--metrics-bind-address=127.0.0.1:0",
      "--health-probe-bind-address=127.0.0.1:0",
      "--drift-interval=30s",
    ],
    // It stands in for the installed operator, in its namespace (the examples' shared Secret is there).
    OPERATOR_ENV,
    (chunk) => {
      log.write(chunk);
      if (values.logs) process.stdout.write(chunk);
    },
  );
  cleanups.push(() => new Promise<void>((resolve) => log.end(resolve)));
  cleanups.push(() => operator.stop());
  void operator.exited.then((code) => {
    if (!stopping) {
      say(`The operator exited (code ${code}). Its last output:\n${operator.output().slice(-3000)}`);
      void stopAll(1);
    }
  });

  say("Applying deploy/examples/…");
  await admin.apply(exampleManifests(harbor));
  say("Waiting until every example is Ready…");
  await waitAllReady(admin, 180_000);

  say();
  say(await admin.run(["get", "harbor,harborconnections,clusterharborconnections", "-A"]));
  const robot = JSON.parse(await admin.run(["get", "harborrobots", "-A", "-o", "json"])) as {
    items: Array<{
      metadata: { name: string; namespace: string };
      status?: { fullName?: string; secretName?: string };
    }>;
  };
  const firstRobot = robot.items[0];
  const served = await servedUrls(operator);
  say("Explore:");
  say(`  Operator log: ${logPath}  (tail -f it, or run the demo with --logs)`);
  say(`  Operator metrics: ${served.metricsUrl}/metrics  health: ${served.probeUrl}/readyz`);
  say(`  export KUBECONFIG=${kubeconfig}`);
  say("  kubectl get harbor -A");
  say("  kubectl -n harbor-examples describe harborrobot");
  if (emulator) {
    say(
      `  Harbor emulator: ${emulator.url}  (user ${emulator.adminUsername}, password ${emulator.adminPassword})`,
    );
    say(`  curl -u ${emulator.adminUsername}:${emulator.adminPassword} ${emulator.url}/api/v2.0/projects`);
  }
  if (firstRobot?.status?.secretName) {
    const secret = `kubectl -n ${firstRobot.metadata.namespace} get secret ${firstRobot.status.secretName}`;
    say(`  Robot ${firstRobot.status.fullName}'s pull secret:`);
    say(`    ${secret} -o jsonpath='{.data.password}' | base64 -d`);
    // No scope: only then does Harbor refuse a wrong secret (401), as on `docker login`.
    say("  Check that it logs in to the registry (a wrong secret fails with 401):");
    say(
      `    curl -fsS -o /dev/null -u "$(${secret} -o jsonpath='{.data.username}' | base64 -d):$(${secret} -o jsonpath='{.data.password}' | base64 -d)" "${harbor.url.replace(/\/+$/, "")}/service/token?service=harbor-registry" && echo "pull secret logs in"`,
    );
  }
  say();
  if (values.once) {
    say("All examples are Ready. Stopping (--once).");
    await stopAll(0);
  }
  say("Press Ctrl-C to stop everything.");
  await new Promise(() => undefined);
}

main().catch((e: unknown) => {
  process.stderr.write(`demo failed: ${e instanceof Error ? e.message : String(e)}\n`);
  void stopAll(1);
});
