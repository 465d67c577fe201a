// The install manifests of deploy/ against the real control plane: the kustomize base and the
// examples pass a server-side dry run; and the operator, run with nothing but the ServiceAccount
// and RBAC of deploy/ (a token minted for that ServiceAccount), brings every example to Ready
// without a single forbidden request, while the permissions it lacks stay lacking.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { API_VERSION } from "../../../src/api/common.ts";
import { harborRobot } from "../../../src/api/robot.ts";
import { harborUser } from "../../../src/api/user.ts";
import { ALL_DEFINITIONS } from "../../../src/controllers/kind-list.ts";
import { budget } from "../../env/budget.ts";
import { adminKubectl, sharedControlPlane } from "../../env/cluster.ts";
import { isWrite, readAuditLog } from "../../env/controlplane/audit.ts";
import { writeKubeconfig } from "../../env/controlplane/kubeconfig.ts";
import { addExampleAdapters, passExampleGcRun } from "../../env/examples.ts";
import { type Kubectl, kubectl } from "../../env/kubectl.ts";
import { findLua, runArgoHealth } from "../../env/lua.ts";
import { useOperator } from "../../env/operator.ts";
import { type Resource, type RobotCR, ready } from "../../env/resources.ts";
import { untilTrue } from "../../env/until.ts";

const root = join(import.meta.dirname, "..", "..", "..");
const deployDir = join(root, "deploy");
const examplesDir = join(deployDir, "examples");
const healthScript = join(deployDir, "argocd", "health.lua");
/** What deploy/ installs into, and as whom the operator runs there. */
const OPERATOR_NAMESPACE = "harbor-config-operator";
const SERVICE_ACCOUNT = "harbor-config-operator";
const IMAGE = "ghcr.io/harbor-config-operator/harbor-config-operator";

/** The objects of a multi-document YAML text. */
const documents = (text: string): Resource[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Resource | null)
    .filter((o): o is Resource => o !== null);

async function render(admin: Kubectl, dir: string): Promise<Resource[]> {
  return documents(await admin.run(["kustomize", dir]));
}

/** Creates a namespace unless it exists; returns whether this call created it. */
async function ensureNamespace(admin: Kubectl, manifest: object, name: string): Promise<boolean> {
  if ((await admin.tryRun(["get", "namespace", name])).code === 0) return false;
  await admin.apply(manifest);
  return true;
}

describe("deploy/ passes a server-side dry run", () => {
  const admin = adminKubectl();
  const created: string[] = [];

  afterAll(async () => {
    for (const name of created) await admin.delete("namespace", name);
  });

  test("kubectl apply --dry-run=server -k deploy/", async () => {
    const objects = await render(admin, deployDir);
    // A dry run cannot put objects into a namespace it only pretended to create: the namespace
    // is created for real first, as the first real apply does.
    const namespace = objects.find((o) => o.kind === "Namespace");
    expect(namespace?.metadata.name).toBe(OPERATOR_NAMESPACE);
    if (await ensureNamespace(admin, namespace as object, OPERATOR_NAMESPACE))
      created.push(OPERATOR_NAMESPACE);

    // Every object of the install admitted in turn, the CRDs' rules compiled: more than one request.
    const r = await admin.tryRun(["apply", "--dry-run=server", "-k", deployDir], {
      timeoutMs: budget.operatorMs,
    });
    expect(r.stderr, r.stderr).not.toMatch(/error|would violate PodSecurity/i);
    expect(r.code).toBe(0);
    for (const o of objects) {
      const name = o.metadata.name.replaceAll(".", "\\.");
      expect(r.stdout).toMatch(
        new RegExp(`^${o.kind.toLowerCase()}[.a-z0-9]*/${name} \\w+ \\(server dry run\\)$`, "m"),
      );
    }
    // Every CRD of the project (crds/) is part of the base.
    const crds = objects.filter((o) => o.kind === "CustomResourceDefinition").map((o) => o.metadata.name);
    const ours = readdirSync(join(root, "crds"))
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => (parse(readFileSync(join(root, "crds", f), "utf8")) as Resource).metadata.name);
    expect(crds.sort()).toEqual(ours.sort());
  });

  test("the Deployment is locked down, and the namespace enforces that", async () => {
    const objects = await render(admin, deployDir);
    const deployment = objects.find((o) => o.kind === "Deployment") as Resource & {
      spec: { template: { spec: PodSpec } };
    };
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0] as Container;
    expect(pod.serviceAccountName).toBe(SERVICE_ACCOUNT);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.image).toMatch(new RegExp(`^${IMAGE}:\\d+\\.\\d+\\.\\d+$`));
    expect(container.args).toContain("--leader-elect=true");
    expect(container.env?.map((e) => e.name)).toEqual(expect.arrayContaining(["POD_NAME", "POD_NAMESPACE"]));
    expect(container.livenessProbe?.httpGet).toMatchObject({ path: "/healthz", port: "health" });
    expect(container.readinessProbe?.httpGet).toMatchObject({ path: "/readyz", port: "health" });
    expect(container.ports?.map((p) => [p.name, p.containerPort])).toEqual([
      ["metrics", 8080],
      ["health", 8081],
    ]);
    expect(container.resources?.requests).toBeDefined();
    expect(container.resources?.limits?.memory).toBeDefined();

    // The namespace's Pod Security admission judges the Deployment: the base passes (previous
    // test), and a pod template without the security settings is called out.
    if (
      await ensureNamespace(admin, objects.find((o) => o.kind === "Namespace") as object, OPERATOR_NAMESPACE)
    )
      created.push(OPERATOR_NAMESPACE);
    const loose = structuredClone(deployment);
    delete loose.spec.template.spec.securityContext;
    delete (loose.spec.template.spec.containers[0] as Container).securityContext;
    const r = await admin.tryRun(["apply", "--dry-run=server", "-f", "-"], { input: JSON.stringify(loose) });
    expect(r.stderr).toContain('would violate PodSecurity "restricted:latest"');
  });

  test("every example passes a server-side dry run", async () => {
    const objects = await render(admin, examplesDir);
    const kinds = new Set(objects.map((o) => o.kind));
    for (const { kind } of ALL_DEFINITIONS) expect(kinds, `an example of ${kind}`).toContain(kind);
    for (const ns of objects.filter((o) => o.kind === "Namespace")) {
      if (await ensureNamespace(admin, ns, ns.metadata.name)) created.push(ns.metadata.name);
    }
    // An example of every kind, each admitted in turn: more than one request.
    const r = await admin.tryRun(["apply", "--dry-run=server", "-k", examplesDir], {
      timeoutMs: budget.operatorMs,
    });
    expect(r.stderr, r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(objects.length);
  });
});

interface Container {
  image: string;
  args?: string[];
  env?: Array<{ name: string }>;
  ports?: Array<{ name: string; containerPort: number }>;
  livenessProbe?: { httpGet?: object };
  readinessProbe?: { httpGet?: object };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: object;
}
interface PodSpec {
  serviceAccountName: string;
  securityContext?: object;
  containers: Container[];
}

/** A ClusterRole the cluster's own roles take in (by its aggregate-to-… labels). */
const aggregated = (o: Resource) =>
  Object.keys(o.metadata.labels ?? {}).some((k) => k.startsWith("rbac.authorization.k8s.io/aggregate-to-"));

/**
 * The ServiceAccount and RBAC objects of deploy/, moved into `namespace` (cluster-wide ones get a
 * suffix), so that a test can create them for real without touching the operator's own namespace.
 */
function rbacIn(objects: Resource[], namespace: string): Resource[] {
  const kinds = ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"];
  const picked = objects.filter((o) => kinds.includes(o.kind)).map((o) => structuredClone(o));
  // Besides the operator's own: the two ClusterRoles the cluster's view/edit/admin roles aggregate.
  expect(
    picked
      .filter((o) => !aggregated(o))
      .map((o) => o.kind)
      .sort(),
  ).toEqual([...kinds].sort());
  expect(
    picked
      .filter(aggregated)
      .map((o) => o.metadata.name)
      .sort(),
  ).toEqual([`${SERVICE_ACCOUNT}-edit`, `${SERVICE_ACCOUNT}-view`]);
  for (const o of picked) {
    const b = o as Resource & { roleRef?: { kind: string; name: string }; subjects?: object[] };
    if (b.subjects) {
      expect(b.subjects).toEqual([
        { kind: "ServiceAccount", name: SERVICE_ACCOUNT, namespace: OPERATOR_NAMESPACE },
      ]);
      b.subjects = [{ kind: "ServiceAccount", name: SERVICE_ACCOUNT, namespace }];
    }
    if (o.kind.startsWith("Cluster")) o.metadata.name = `${o.metadata.name}-${namespace}`;
    else {
      expect(o.metadata.namespace).toBe(OPERATOR_NAMESPACE);
      o.metadata.namespace = namespace;
    }
    if (b.roleRef?.kind === "ClusterRole") b.roleRef.name = `${b.roleRef.name}-${namespace}`;
  }
  return picked;
}

describe("the operator with the RBAC of deploy/", () => {
  const admin = adminKubectl();
  let rbac: Resource[] = [];
  let tokenDir = "";
  let sa: Kubectl;
  let appsNamespace = "";
  let sharedConnection = "";

  const op = useOperator({
    namespacePrefix: "rbac",
    leaderElection: true,
    kubeconfig: async (namespace) => {
      rbac = rbacIn(await render(admin, deployDir), namespace);
      await admin.apply(rbac);
      // A Secret the operator has no business with: it must never read it.
      await admin.inNamespace(namespace).apply({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "bystander" },
        stringData: { password: "not-for-the-operator" },
      });
      // The TokenRequest API, as the kubelet gets a pod's token.
      const token = (
        await admin.run(["create", "token", SERVICE_ACCOUNT, "-n", namespace, "--duration=1h"])
      ).trim();
      const { server, caCertPath, kubectl: command } = sharedControlPlane();
      tokenDir = mkdtempSync(join(tmpdir(), "hco-rbac-"));
      const path = writeKubeconfig(join(tokenDir, "kubeconfig"), {
        server,
        caCert: caCertPath,
        user: SERVICE_ACCOUNT,
        credentials: { token },
        namespace,
      });
      sa = kubectl(path, command);
      return path;
    },
  });

  // findLua() may install lua5.1 with apt-get (a package download), more than a hook's default.
  beforeAll(() => {
    findLua();
    appsNamespace = `${op.namespace}-apps`;
    sharedConnection = `${op.namespace}-shared`;
  }, budget.longTestMs);

  /**
   * The examples as a user would adapt them: their namespaces, the cluster-wide connection's name,
   * the Harbor URL and the credentials replaced; nothing else changed.
   */
  const adaptedExamples = async () =>
    (await admin.run(["kustomize", examplesDir]))
      // The operator's namespace is this test's (the shared connection keeps its Secret there).
      .replaceAll("namespace: harbor-config-operator", `namespace: ${op.namespace}`)
      .replaceAll("harbor-examples-apps", appsNamespace)
      .replaceAll("harbor-examples", op.namespace)
      .replaceAll("shared-harbor", sharedConnection)
      .replaceAll("https://harbor.example.com", op.emulator.url)
      .replaceAll("Harbor12345", op.emulator.adminPassword);

  afterAll(async () => {
    await admin.tryRun(["delete", "namespace", appsNamespace, "--wait=false", "--ignore-not-found"]);
    await admin.tryRun([
      "delete",
      "clusterharborconnection",
      sharedConnection,
      "--wait=false",
      "--ignore-not-found",
    ]);
    for (const o of rbac.filter((r) => r.kind.startsWith("Cluster")))
      await admin.tryRun(["delete", o.kind.toLowerCase(), o.metadata.name, "--ignore-not-found"]);
    if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
  });

  test("it runs as the ServiceAccount and holds its Lease", async () => {
    const whoami = JSON.parse(await sa.run(["auth", "whoami", "-o", "json"])) as {
      status: { userInfo: { username: string } };
    };
    expect(whoami.status.userInfo.username).toBe(`system:serviceaccount:${op.namespace}:${SERVICE_ACCOUNT}`);
    const lease = await op.kubectl.get<{ spec: { holderIdentity?: string } }>(
      "lease",
      "harbor-config-operator",
    );
    expect(lease.spec.holderIdentity).toBeTruthy();
  });

  test("the examples, pointed at the emulator, all become Ready", async () => {
    addExampleAdapters(op.emulator.control);
    const text = await adaptedExamples();
    await admin.apply(text);
    await passExampleGcRun(op.emulator.control);

    const k = op.kubectl;
    const robot = await op.waitReady<RobotCR>("harborrobot", "example-team-pull");
    // The copy in the labelled namespace, and the default ServiceAccount there pulls with it.
    expect(robot.status?.copiedTo).toEqual([appsNamespace]);
    const apps = admin.inNamespace(appsNamespace);
    const copy = await apps.get<Resource & { type: string }>("secret", "example-team-pull");
    expect(copy.type).toBe("kubernetes.io/dockerconfigjson");
    await expect
      .poll(
        async () =>
          (await apps.get<{ imagePullSecrets?: Array<{ name: string }> }>("sa", "default")).imagePullSecrets,
        { timeout: budget.operatorMs },
      )
      .toEqual([{ name: "example-team-pull" }]);

    // Every example of the API group, of whatever kind.
    const all = documents(text)
      .filter((o) => o.apiVersion === API_VERSION)
      .map((o) => [o.kind.toLowerCase(), o.metadata.name] as const);
    expect(new Set(all.map(([resource]) => resource)).size).toBe(ALL_DEFINITIONS.length);
    for (const [resource, name] of all) {
      const o = await op.waitReady<Resource>(resource, name).catch((e: unknown) => {
        throw new Error(
          `${resource}/${name} did not become Ready: ${(e as Error).message}\n${op.output().slice(-3000)}`,
        );
      });
      expect(ready(o)?.status, `${resource}/${name}`).toBe("True");
      // What Argo CD would show for it.
      expect((await runArgoHealth(healthScript, o)).status, `${resource}/${name} in Argo CD`).toBe("Healthy");
    }
    // Events are written under the ServiceAccount too (each beside its status write, so look until one is there).
    await untilTrue("an Event written by the operator", async () =>
      (await k.get<{ items: Array<{ source?: { component?: string } }> }>("events")).items.some(
        (e) => e.source?.component === "harbor-config-operator",
      ),
    );
  });

  test("deleting the robot removes its copy and the ServiceAccount entry", async () => {
    await op.kubectl.delete("harborrobot", "example-team-pull", { wait: true });
    const apps = admin.inNamespace(appsNamespace);
    expect((await apps.tryRun(["get", "secret", "example-team-pull"])).stderr).toContain("NotFound");
    const sa = await apps.get<{ imagePullSecrets?: Array<{ name: string }> }>("sa", "default");
    expect(sa.imagePullSecrets ?? []).toEqual([]);
  });

  test("the ServiceAccount may do what the operator needs and nothing else", async () => {
    const can = async (...args: string[]) => (await sa.tryRun(["auth", "can-i", ...args])).stdout.trim();
    const other = appsNamespace;
    // What a cluster-wide operator needs (the test process watches one namespace only).
    for (const args of [
      ["list", "harborprojects.harborconfig.io", "--all-namespaces"],
      ["watch", "clusterharborconnections.harborconfig.io"],
      ["patch", "harborrobots.harborconfig.io", "--subresource=status", "-n", other],
      // Finalizers of connections and of their credentials Secrets.
      ["patch", "harborconnections.harborconfig.io", "-n", other],
      ["patch", "secrets", "-n", other],
      ["list", "secrets", "--all-namespaces"],
      ["create", "secrets", "-n", other],
      ["update", "serviceaccounts", "-n", other],
      // The ServiceAccount informer (a robot links one as soon as it appears).
      ["list", "serviceaccounts", "--all-namespaces"],
      ["watch", "serviceaccounts", "--all-namespaces"],
      ["watch", "namespaces"],
      ["create", "events", "-n", other],
      ["update", "leases/harbor-config-operator", "-n", op.namespace],
    ]) {
      expect(await can(...args), args.join(" ")).toBe("yes");
    }
    for (const args of [
      ["get", "configmaps", "-n", other],
      ["create", "pods", "-n", other],
      ["create", "serviceaccounts/token", "-n", other],
      ["create", "serviceaccounts", "-n", other],
      ["patch", "serviceaccounts", "-n", other],
      ["delete", "serviceaccounts", "-n", other],
      ["delete", "harborprojects.harborconfig.io", "-n", other],
      ["update", "harborprojects.harborconfig.io", "-n", other],
      ["update", "harborconnections.harborconfig.io", "-n", other],
      ["delete", "clusterharborconnections.harborconfig.io"],
      ["patch", "namespaces"],
      ["delete", "namespaces"],
      ["create", "leases", "-n", other],
      ["update", "leases/someone-else", "-n", op.namespace],
      ["create", "rolebindings", "-n", other],
      ["create", "clusterrolebindings"],
      ["update", "customresourcedefinitions"],
      ["impersonate", "users"],
    ]) {
      expect(await can(...args), args.join(" ")).toBe("no");
    }
  });

  test("the cluster's view and edit roles read and write the kinds, never their status nor a ClusterHarborConnection", async () => {
    // Users bound in the operator's namespace as a team would be: to `edit`, and to `view`.
    const ns = op.namespace;
    await admin.run([
      "create",
      "rolebinding",
      "team-edit",
      "--clusterrole=edit",
      "--user=team-dev",
      "-n",
      ns,
    ]);
    await admin.run([
      "create",
      "rolebinding",
      "team-view",
      "--clusterrole=view",
      "--user=team-viewer",
      "-n",
      ns,
    ]);
    const can = async (user: string, ...args: string[]) =>
      (await admin.tryRun(["auth", "can-i", ...args, "-n", ns, `--as=${user}`])).stdout.trim();
    // kube-controller-manager aggregates the ClusterRoles into edit and view a moment later.
    await untilTrue(
      "the kinds aggregated into edit and view",
      async () =>
        (await can("team-dev", "create", "harborprojects.harborconfig.io")) === "yes" &&
        (await can("team-viewer", "list", "harborrobots.harborconfig.io")) === "yes",
    );
    for (const args of [
      ["create", "harborprojects.harborconfig.io"],
      ["patch", "harborrobots.harborconfig.io"],
      ["delete", "harborconnections.harborconfig.io"],
      ["update", "harborreplicationruns.harborconfig.io"],
    ])
      expect(await can("team-dev", ...args), `edit: ${args.join(" ")}`).toBe("yes");
    for (const args of [
      ["patch", "harborprojects.harborconfig.io", "--subresource=status"],
      ["update", "harborrobots.harborconfig.io", "--subresource=status"],
      ["create", "clusterharborconnections.harborconfig.io"],
    ])
      expect(await can("team-dev", ...args), `edit: ${args.join(" ")}`).toBe("no");
    expect(await can("team-viewer", "get", "harborconfigurations.harborconfig.io")).toBe("yes");
    for (const args of [
      ["create", "harborprojects.harborconfig.io"],
      ["delete", "harborlabels.harborconfig.io"],
    ])
      expect(await can("team-viewer", ...args), `view: ${args.join(" ")}`).toBe("no");
  });

  test("no request was forbidden, Secrets were only read by name or by label, ServiceAccounts written only where named", async () => {
    const user = `system:serviceaccount:${op.namespace}:${SERVICE_ACCOUNT}`;
    const requests = readAuditLog(sharedControlPlane().auditLogPath).filter((e) => e.user.username === user);
    expect(requests.length).toBeGreaterThan(50);
    const forbidden = requests.filter((e) => e.responseStatus?.code === 403);
    expect(forbidden.map((e) => `${e.verb} ${e.requestURI}`)).toEqual([]);

    const secrets = requests.filter((e) => e.objectRef?.resource === "secrets");
    const named = new Set(secrets.filter((e) => e.objectRef?.name).map((e) => e.objectRef?.name));
    expect(named).not.toContain("bystander");
    // Only Secrets that a resource references (the examples' Secrets) or that a robot owns.
    const examples = documents(await adaptedExamples());
    const allowed = [
      ...examples.filter((o) => o.kind === "Secret").map((o) => o.metadata.name),
      ...examples
        .filter((o) => o.kind === harborRobot.kind)
        .map((o) => (o.spec?.secret as { name?: string } | undefined)?.name ?? o.metadata.name),
      // A HarborUser without passwordSecretRef writes its generated password into a Secret it owns.
      ...examples
        .filter((o) => o.kind === harborUser.kind)
        .map((o) => (o.spec?.generatedSecretName as string | undefined) ?? `${o.metadata.name}-harbor-user`),
    ];
    expect(allowed).toContain(`${sharedConnection}-credentials`);
    for (const name of named) expect(allowed).toContain(name);
    const lists = secrets.filter((e) => e.verb === "list" || e.verb === "watch");
    expect(lists.length).toBeGreaterThan(0);
    for (const e of lists)
      expect(e.requestURI).toMatch(/[?&]labelSelector=harborconfig\.io%2F(watch|copy-of)/);

    // ServiceAccounts: listed and watched cluster-wide only (one informer, not one per namespace),
    // and written only where a robot names them (the example robot: `default` in its namespace).
    const accounts = requests.filter((e) => e.objectRef?.resource === "serviceaccounts");
    const watched = accounts.filter((e) => e.verb === "list" || e.verb === "watch");
    expect(watched.length).toBeGreaterThan(0);
    for (const e of watched) expect(e.objectRef?.namespace, e.requestURI).toBeUndefined();
    const written = accounts.filter((e) => isWrite(e));
    expect(written.length).toBeGreaterThan(0);
    expect(new Set(written.map((e) => `${e.verb} ${e.objectRef?.namespace}/${e.objectRef?.name}`))).toEqual(
      new Set([`update ${appsNamespace}/default`]),
    );
  });
});
