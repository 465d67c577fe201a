// What a benchmark run stands on: a control plane with an audit log (its own, or the test suite's
// shared one), the Harbor emulator as a separate process, a namespace for the workload, and the
// operator's own identity — a ServiceAccount bound to cluster-admin, whose token the operator's
// kubeconfig carries — so that the audit log tells its requests apart from the benchmark's.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { KubeClient } from "../../src/kube/client.ts";
import { writeKubeconfig } from "../env/controlplane/kubeconfig.ts";
import { startControlPlane } from "../env/controlplane/launcher.ts";
import { installFinalizerPolicy } from "../env/finalizer-policy.ts";
import { type Kubectl, kubectl as kubectlAt } from "../env/kubectl.ts";
import { type EmulatorProcess, startEmulatorProcess } from "./processes.ts";

const crdDir = join(import.meta.dirname, "..", "..", "crds");
const SERVICE_ACCOUNT = "harbor-config-operator";

/** A running control plane to use instead of starting one. */
export interface ExistingCluster {
  server: string;
  kubeconfigPath: string;
  caCertPath: string;
  kubectl: string;
  auditLogPath: string;
}

export interface EnvironmentOptions {
  latencyMs: number;
  /** Where logs and kubeconfigs go. */
  workDir: string;
  cluster?: ExistingCluster;
  log: (line: string) => void;
}

export interface Environment {
  namespace: string;
  kube: KubeClient;
  kubectl: Kubectl;
  auditLogPath: string;
  /** The operator's kubeconfig and the user name the apiserver knows it by. */
  operatorKubeconfig: string;
  operatorUser: string;
  emulator: EmulatorProcess;
  /** Processes of the control plane (empty when it is not ours). */
  components(): { name: string; pid: number }[];
  /**
   * Installs the finalizer's admission policy for the benchmark's namespace, as the Helm chart does
   * on a cluster that serves it (removed with the environment).
   */
  installFinalizerPolicy(): Promise<void>;
  /** Creates the credentials Secret and a HarborConnection named `name` pointing at the emulator. */
  connect(
    name: string,
    spec: { requestsPerSecond: number; burst: number; maxConcurrency: number },
  ): Promise<void>;
  stop(): Promise<void>;
}

export async function startEnvironment(o: EnvironmentOptions): Promise<Environment> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    stops.length = 0;
  };
  try {
    let cluster = o.cluster;
    let components: () => { name: string; pid: number }[] = () => [];
    if (!cluster) {
      const cp = await startControlPlane({ crds: crdDir, auditLog: true, log: o.log });
      stops.push(cp.stop);
      cluster = {
        server: cp.server,
        kubeconfigPath: cp.kubeconfigPath,
        caCertPath: cp.caCertPath,
        kubectl: cp.binaries.kubectl,
        auditLogPath: cp.auditLogPath,
      };
      components = cp.components;
    }
    o.log("setting up the namespace and the operator's identity");
    const admin = kubectlAt(cluster.kubeconfigPath, cluster.kubectl);
    const namespace = `bench-${randomBytes(3).toString("hex")}`;
    const binding = `hco-bench-${namespace}`;
    await admin.run(["create", "namespace", namespace]);
    stops.push(async () => {
      await admin.tryRun(["delete", "clusterrolebinding", binding, "--wait=false"]);
      await admin.tryRun(["delete", "namespace", namespace, "--wait=false"]);
    });
    const kubectl = admin.inNamespace(namespace);
    await kubectl.apply([
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: SERVICE_ACCOUNT } },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: binding },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
        subjects: [{ kind: "ServiceAccount", name: SERVICE_ACCOUNT, namespace }],
      },
    ]);
    const token = (await kubectl.run(["create", "token", SERVICE_ACCOUNT, "--duration=24h"])).trim();
    const operatorKubeconfig = writeKubeconfig(join(o.workDir, "operator.kubeconfig"), {
      server: cluster.server,
      caCert: cluster.caCertPath,
      user: SERVICE_ACCOUNT,
      credentials: { token },
    });

    o.log("operator identity ready; starting the Harbor emulator");
    const emulator = await startEmulatorProcess(o.latencyMs, join(o.workDir, "emulator.log"));
    stops.push(() => emulator.stop());
    const kube = KubeClient.fromOptions({ kubeconfig: cluster.kubeconfigPath, userAgent: "hco-bench" });
    stops.push(async () => kube.close());

    return {
      namespace,
      kube,
      kubectl,
      auditLogPath: cluster.auditLogPath,
      operatorKubeconfig,
      operatorUser: `system:serviceaccount:${namespace}:${SERVICE_ACCOUNT}`,
      emulator,
      components,
      async installFinalizerPolicy() {
        stops.push(await installFinalizerPolicy(admin, namespace));
      },
      async connect(name, spec) {
        await kubectl.apply([
          {
            apiVersion: "v1",
            kind: "Secret",
            metadata: {
              name: `${name}-credentials`,
              annotations: { "harborconfig.io/usable-as": "harbor-connection" },
            },
            stringData: { username: emulator.username, password: emulator.password },
          },
          {
            apiVersion: "harborconfig.io/v1alpha1",
            kind: "HarborConnection",
            metadata: { name },
            spec: {
              url: emulator.url,
              credentialsSecretRef: { name: `${name}-credentials` },
              // A big Harbor: the defaults (20 requests/s, 8 in flight) suit a small one.
              rateLimit: { requestsPerSecond: spec.requestsPerSecond, burst: spec.burst },
              maxConcurrency: spec.maxConcurrency,
            },
          },
        ]);
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
