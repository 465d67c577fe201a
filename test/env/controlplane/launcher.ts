// Starts a real Kubernetes control plane on loopback: etcd, kube-apiserver and
// kube-controller-manager, with fresh certificates and data in a temporary folder.
//
// It is a test cluster without nodes: RBAC on, ServiceAccount tokens (TokenRequest) working, the
// garbage collector and the namespace controller running, so ownerReferences, finalizers and
// namespace deletion behave as in a real cluster. Durability is traded for speed (etcd does not
// fsync): nothing here outlives the test run.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Kubectl, KubectlError, kubectl } from "../kubectl.ts";
import { auditPolicy } from "./audit.ts";
import { type ControlPlaneBinaries, prepareBinaries } from "./binaries.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { freePorts, probe } from "./net.ts";
import { createPki, type Pki } from "./pki.ts";
import { createWorkdir, removeLeftovers, waitReady } from "./workdir.ts";

export interface ControlPlaneOptions {
  /** Which binaries to run; by default the cached build or KUBEBUILDER_ASSETS. */
  binaries?: ControlPlaneBinaries;
  /**
   * A folder of CustomResourceDefinition YAML files to install before kube-controller-manager
   * starts. Its garbage collector looks for new kinds only every 30 s; CRDs installed later are
   * not garbage-collected as owners until then.
   */
  crds?: string;
  /** Record every resource request in an audit log (see auditLogPath and readAuditLog). */
  auditLog?: boolean;
  /** Extra kube-apiserver flags, appended last so that they win (e.g. `--feature-gates=...`). */
  apiserverFlags?: string[];
  /** Progress lines (binaries being built, start-up time). */
  log?: (line: string) => void;
}

export interface ControlPlane {
  /** The apiserver's URL, https://127.0.0.1:<port>. */
  readonly server: string;
  /** kubeconfig of user admin (group system:masters). */
  readonly kubeconfigPath: string;
  /** PEM of the CA behind the apiserver's certificate, for kubeconfigs of other users. */
  readonly caCertPath: string;
  /** Temporary folder with the components' data, certificates and logs (`<component>.log`). */
  readonly dataDir: string;
  readonly etcdUrl: string;
  /** JSON lines, one per request, when started with `auditLog: true`. */
  readonly auditLogPath: string | undefined;
  readonly binaries: ControlPlaneBinaries;
  /** The running components, e.g. to measure their memory. */
  components(): { name: string; pid: number }[];
  /** Stops kube-apiserver alone; etcd, the data and the ports stay, so that it can come back. */
  stopApiserver(): Promise<void>;
  /** Starts kube-apiserver again after stopApiserver(), on the same port, and waits until it is ready. */
  startApiserver(): Promise<void>;
  /** Stops every component and removes the data folder. Safe to call twice. */
  stop(): Promise<void>;
}

const serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local";
const startTimeoutMs = 60_000;

/**
 * What kube-controller-manager runs: what makes ownerReferences, namespace deletion,
 * ServiceAccounts and the aggregated admin/edit/view ClusterRoles work as in a cluster.
 */
const controllers = [
  "clusterrole-aggregation-controller",
  "garbage-collector-controller",
  "namespace-controller",
  "serviceaccount-controller",
  "serviceaccount-token-controller",
];

export async function startControlPlane(
  opts: ControlPlaneOptions & { auditLog: true },
): Promise<ControlPlane & { auditLogPath: string }>;
export async function startControlPlane(opts?: ControlPlaneOptions): Promise<ControlPlane>;
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = opts.log ?? (() => {});
  removeLeftovers(log);
  const binaries = opts.binaries ?? (await prepareBinaries(log));
  const started = Date.now();
  const dir = createWorkdir();
  try {
    const pki = createPki(join(dir.path, "pki"));
    const ports = await freePorts(["etcd", "etcdPeer", "apiserver", "controllerManager"]);
    const etcdUrl = `http://127.0.0.1:${ports.etcd}`;
    const server = `https://127.0.0.1:${ports.apiserver}`;
    const timings: string[] = [];
    const timed = async (name: string, step: () => Promise<void>) => {
      const t = Date.now();
      await step();
      timings.push(`${name} ${seconds(Date.now() - t)}`);
    };

    await timed("etcd", async () => {
      const etcd = dir.start("etcd", binaries.etcd, etcdArgs(dir.path, ports.etcd, ports.etcdPeer));
      await waitReady(dir, etcd, startTimeoutMs, () => probe(`${etcdUrl}/health`));
    });

    const auditLogPath = opts.auditLog ? join(dir.path, "audit.log") : undefined;
    const apiserverArgs = [
      ...kubeApiserverArgs(dir.path, pki, etcdUrl, ports.apiserver, auditLogPath),
      ...(opts.apiserverFlags ?? []),
    ];
    const caPem = readFileSync(pki.ca.cert);
    const startApiserver = async () => {
      const apiserver = dir.start("kube-apiserver", binaries.kubeApiserver, apiserverArgs);
      await waitReady(dir, apiserver, startTimeoutMs, () => probe(`${server}/readyz`, { ca: caPem }));
    };
    await timed("kube-apiserver", startApiserver);

    const kubeconfigPath = writeKubeconfig(join(dir.path, "admin.kubeconfig"), {
      server,
      caCert: pki.ca.cert,
      user: "admin",
      credentials: { clientCert: pki.admin.cert, clientKey: pki.admin.key },
    });
    const crdDir = opts.crds;
    if (crdDir && hasYaml(crdDir)) {
      await timed("CRDs", () => installCrds(kubectl(kubeconfigPath, binaries.kubectl), crdDir));
    }

    const { kubeControllerManager } = binaries;
    if (kubeControllerManager) {
      await timed("kube-controller-manager", async () => {
        const kubeconfig = writeKubeconfig(join(dir.path, "controller-manager.kubeconfig"), {
          server,
          caCert: pki.ca.cert,
          user: "system:kube-controller-manager",
          credentials: { clientCert: pki.controllerManager.cert, clientKey: pki.controllerManager.key },
        });
        const args = kubeControllerManagerArgs(dir.path, pki, kubeconfig, ports.controllerManager);
        const controllerManager = dir.start("kube-controller-manager", kubeControllerManager, args);
        // Its serving certificate is self-signed: only liveness is asked of it here.
        await waitReady(dir, controllerManager, startTimeoutMs, () =>
          probe(`https://127.0.0.1:${ports.controllerManager}/healthz`),
        );
      });
    }
    log(`control plane ready at ${server} in ${seconds(Date.now() - started)} (${timings.join(", ")})`);

    return {
      server,
      kubeconfigPath,
      caCertPath: pki.ca.cert,
      dataDir: dir.path,
      etcdUrl,
      auditLogPath,
      binaries,
      components: () => dir.running().map((p) => ({ name: p.name, pid: p.pid })),
      async stopApiserver() {
        await dir.get("kube-apiserver")?.stop();
      },
      async startApiserver() {
        if (dir.get("kube-apiserver")?.exit === undefined) throw new Error("kube-apiserver is running");
        await startApiserver();
      },
      stop: dir.close,
    };
  } catch (err) {
    await dir.close();
    throw err;
  }
}

function etcdArgs(dataDir: string, clientPort: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    "--name=test",
    `--data-dir=${join(dataDir, "etcd")}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    // The peer port is unused by a single member, but its default (2380) would collide between runs.
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=test=${peer}`,
    // A test cluster's data is thrown away: skipping fsync makes every write, and start-up, faster.
    "--unsafe-no-fsync",
    // A lone member elects itself after one election timeout: 0.1 s rather than the default 1 s.
    "--heartbeat-interval=10",
    "--election-timeout=100",
    "--quota-backend-bytes=4294967296",
    "--log-level=warn",
  ];
}

function kubeApiserverArgs(
  dataDir: string,
  pki: Pki,
  etcdUrl: string,
  port: number,
  auditLogPath: string | undefined,
): string[] {
  const args = [
    `--etcd-servers=${etcdUrl}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--secure-port=${port}`,
    `--tls-cert-file=${pki.apiserver.cert}`,
    `--tls-private-key-file=${pki.apiserver.key}`,
    `--client-ca-file=${pki.ca.cert}`,
    "--authorization-mode=RBAC",
    `--service-account-issuer=${serviceAccountIssuer}`,
    `--service-account-key-file=${pki.serviceAccount.publicKey}`,
    `--service-account-signing-key-file=${pki.serviceAccount.key}`,
    "--service-cluster-ip-range=10.0.0.0/24",
    // The kubernetes Service's endpoint would be 127.0.0.1, which Endpoints validation refuses (an
    // error every 10 s); in a cluster without nodes nothing connects through that Service anyway.
    "--endpoint-reconciler-type=none",
    "--profiling=false",
    // Without it, shutdown waits for clients' watches to end (up to a minute); a restart should be quick.
    "--shutdown-watch-termination-grace-period=1s",
  ];
  if (auditLogPath) {
    const policy = join(dataDir, "audit-policy.yaml");
    writeFileSync(policy, auditPolicy);
    // Blocking: an event is on disk before its response is sent, so a test can read it right after.
    args.push(`--audit-policy-file=${policy}`, `--audit-log-path=${auditLogPath}`);
    args.push("--audit-log-format=json", "--audit-log-mode=blocking", "--audit-log-maxsize=0");
  }
  return args;
}

function kubeControllerManagerArgs(dataDir: string, pki: Pki, kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    `--controllers=${controllers.join(",")}`,
    // Each controller acts as its own ServiceAccount in kube-system, as in kubeadm clusters.
    "--use-service-account-credentials=true",
    `--service-account-private-key-file=${pki.serviceAccount.key}`,
    `--root-ca-file=${pki.ca.cert}`,
    "--leader-elect=false",
    "--bind-address=127.0.0.1",
    `--secure-port=${port}`,
    `--cert-dir=${join(dataDir, "kube-controller-manager")}`,
    "--profiling=false",
  ];
}

function hasYaml(dir: string): boolean {
  return existsSync(dir) && readdirSync(dir).some((file) => /\.ya?ml$/.test(file));
}

/** Applies the CRDs of a folder (or file) and waits until the apiserver serves them. */
export async function installCrds(admin: Kubectl, path: string): Promise<void> {
  // Server-side apply: a large generated CRD outgrows the annotation client-side apply keeps.
  await admin.run(["apply", "--server-side", "-f", path], { timeoutMs: 60_000 });
  // kubectl wait fails outright, rather than waiting, on a CRD whose status has no conditions yet.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const args = ["wait", "--for=condition=Established", "--timeout=60s", "-f", path];
    const r = await admin.tryRun(args, { timeoutMs: 70_000 });
    if (r.code === 0) return;
    if (!r.stderr.includes("accessor error") || Date.now() > deadline) throw new KubectlError(args, r);
    await sleep(200);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
