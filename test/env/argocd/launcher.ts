// Starts a real Argo CD against a test control plane: Redis (miniredis), the repo server and the
// application controller, each a process on loopback with its log in a temporary folder. No API
// server or UI: tests create Application objects with kubectl and read their status, which is all
// the controller needs. Argo CD's CRDs, its namespace, ConfigMaps, Secret and default AppProject
// are installed first, with the project's health check (deploy/argocd/argocd-cm.yaml) merged into
// argocd-cm the way docs/gitops.md tells users to.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { parse } from "yaml";
import { installCrds } from "../controlplane/launcher.ts";
import { freePorts, probe } from "../controlplane/net.ts";
import { createWorkdir, removeLeftovers, waitReady } from "../controlplane/workdir.ts";
import { type Kubectl, kubectl as kubectlAt } from "../kubectl.ts";
import { type ArgoCdBinaries, prepareArgoCd } from "./binaries.ts";

export interface ArgoCdOptions {
  /** The cluster Argo CD runs in and deploys to (its in-cluster destination). */
  kubeconfigPath: string;
  /** The kubectl binary to install Argo CD's objects with. */
  kubectl?: string;
  /** Extra argocd-cm data, merged over the project's health check. */
  config?: Record<string, string>;
  /** Extra application-controller flags, appended last. */
  controllerArgs?: string[];
  log?: (line: string) => void;
}

export interface ArgoCd {
  readonly namespace: string;
  readonly version: string;
  /** Temporary folder with each component's log (`<component>.log`). */
  readonly dataDir: string;
  /** The end of a component's log: redis, repo-server or application-controller. */
  logTail(name: string, lines?: number): string;
  /** Stops every component and removes the folder. Safe to call twice. */
  stop(): Promise<void>;
}

export const ARGOCD_NAMESPACE = "argocd";
const prefix = "hco-argocd-";
const startTimeoutMs = 90_000;
const healthConfig = join(import.meta.dirname, "..", "..", "..", "deploy", "argocd", "argocd-cm.yaml");

export async function startArgoCd(opts: ArgoCdOptions): Promise<ArgoCd> {
  const log = opts.log ?? (() => {});
  removeLeftovers(log, prefix);
  const binaries = await prepareArgoCd(log);
  const admin = kubectlAt(opts.kubeconfigPath, opts.kubectl);
  const started = Date.now();
  await install(admin, binaries, opts.config ?? {});

  const dir = createWorkdir(prefix);
  try {
    // Started through a link in the folder, so that each command line names the folder: that is
    // how a later run recognises (and stops) the processes of a run that died without cleaning up.
    const binary = join(dir.path, "argocd-test");
    symlinkSync(binaries.binary, binary);
    const tmp = join(dir.path, "tmp");
    mkdirSync(tmp);
    const ports = await freePorts(["redis", "repoServer", "repoServerMetrics", "controllerMetrics"]);
    const redis = `127.0.0.1:${ports.redis}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Clones, the repo server's askpass socket and git's configuration stay in the folder: two runs
      // never share them, and the machine's ~/.gitconfig plays no part.
      TMPDIR: tmp,
      HOME: tmp,
      GIT_CONFIG_NOSYSTEM: "1",
      ARGOCD_ASK_PASS_SOCK: join(tmp, "reposerver-ask-pass.sock"),
      ARGOCD_GPG_ENABLED: "false",
      // The in-cluster destination (https://kubernetes.default.svc) is the cluster of KUBECONFIG.
      ARGOCD_FAKE_IN_CLUSTER: "true",
      KUBECONFIG: opts.kubeconfigPath,
      // The wrapper scripts Argo CD's image has in /usr/local/bin.
      PATH: `${binaries.scripts}:${process.env.PATH ?? ""}`,
    };

    const redisProcess = dir.start("redis", binary, ["redis", redis], env);
    await waitReady(dir, redisProcess, startTimeoutMs, () => canConnect(ports.redis));

    const repoServer = dir.start(
      "repo-server",
      binary,
      [
        "repo-server",
        "--address=127.0.0.1",
        `--port=${ports.repoServer}`,
        "--metrics-address=127.0.0.1",
        `--metrics-port=${ports.repoServerMetrics}`,
        `--redis=${redis}`,
        "--disable-tls",
        // Its default names a file of the pod's mounted Secret, which --disable-tls refuses.
        "--client-ca-path=",
        "--logformat=text",
      ],
      env,
    );
    await waitReady(dir, repoServer, startTimeoutMs, () =>
      probe(`http://127.0.0.1:${ports.repoServerMetrics}/healthz`),
    );

    const controller = dir.start(
      "application-controller",
      binary,
      [
        "application-controller",
        `--kubeconfig=${opts.kubeconfigPath}`,
        `--namespace=${ARGOCD_NAMESPACE}`,
        `--repo-server=127.0.0.1:${ports.repoServer}`,
        "--repo-server-plaintext",
        `--redis=${redis}`,
        // Its metrics server listens on every interface (Argo CD has no flag for the address); the
        // test only ever connects to it on loopback.
        `--metrics-port=${ports.controllerMetrics}`,
        // Each resource's health (status and message) in the Application's status.resources, where
        // kubectl reads it. Argo CD 3 otherwise keeps it only in its cache, for its API and UI; the
        // health itself is computed the same way either way.
        "--persist-resource-health",
        "--logformat=text",
        ...(opts.controllerArgs ?? []),
      ],
      env,
    );
    await waitReady(dir, controller, startTimeoutMs, () =>
      probe(`http://127.0.0.1:${ports.controllerMetrics}/healthz`),
    );
    log(`Argo CD ${binaries.version} ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${dir.path})`);

    return {
      namespace: ARGOCD_NAMESPACE,
      version: binaries.version,
      dataDir: dir.path,
      logTail: (name, lines) => dir.logTail(name, lines),
      stop: dir.close,
    };
  } catch (err) {
    await dir.close();
    throw err;
  }
}

/** Argo CD's CRDs, namespace, settings and default project, as its install manifests make them. */
async function install(
  admin: Kubectl,
  binaries: ArgoCdBinaries,
  config: Record<string, string>,
): Promise<void> {
  await installCrds(admin, binaries.crds);
  const health = parse(readFileSync(healthConfig, "utf8")) as { data: Record<string, string> };
  const labels = (name: string) => ({
    "app.kubernetes.io/name": name,
    "app.kubernetes.io/part-of": "argocd",
  });
  const ns = ARGOCD_NAMESPACE;
  await admin.apply([
    { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "argocd-cm", namespace: ns, labels: labels("argocd-cm") },
      data: { ...health.data, ...config },
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "argocd-rbac-cm", namespace: ns, labels: labels("argocd-rbac-cm") },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "argocd-secret", namespace: ns, labels: labels("argocd-secret") },
      stringData: { "server.secretkey": randomBytes(32).toString("base64") },
    },
    {
      // What argocd-server creates on its first start; the controller needs it, not the server.
      apiVersion: "argoproj.io/v1alpha1",
      kind: "AppProject",
      metadata: { name: "default", namespace: ns },
      spec: {
        sourceRepos: ["*"],
        destinations: [{ server: "*", namespace: "*" }],
        clusterResourceWhitelist: [{ group: "*", kind: "*" }],
      },
    },
  ]);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
