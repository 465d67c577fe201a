// The operator with --namespace and the RBAC of deploy/components/namespaced: Secrets and
// ServiceAccounts granted only in its namespace (a Role), nothing of them cluster-wide. It still
// writes a robot's Secret, lists and watches Secrets and ServiceAccounts in its namespace only, and
// a copy into a namespace it may not write to is a copy failure (Forbidden).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { adminKubectl, sharedControlPlane } from "../../env/cluster.ts";
import { readAuditLog } from "../../env/controlplane/audit.ts";
import { writeKubeconfig } from "../../env/controlplane/kubeconfig.ts";
import { type Kubectl, kubectl } from "../../env/kubectl.ts";
import { useOperator } from "../../env/operator.ts";
import { project, type Resource, type RobotCR, robot } from "../../env/resources.ts";

const root = join(import.meta.dirname, "..", "..", "..");
/** What deploy/ installs into, and the component's example namespace. */
const OPERATOR_NAMESPACE = "harbor-config-operator";
const EXAMPLE_NAMESPACE = "team-a";
const NAME = "harbor-config-operator";

/**
 * The RBAC of deploy/ with the component, as an overlay next to deploy/ renders it, moved into
 * `namespace` (the operator's and the one it watches; cluster-wide objects get a suffix).
 */
async function namespacedRbac(admin: Kubectl, namespace: string): Promise<Resource[]> {
  const dir = mkdtempSync(join(tmpdir(), "hco-namespaced-"));
  let text: string;
  try {
    symlinkSync(join(root, "deploy"), join(dir, "deploy"));
    mkdirSync(join(dir, "my-install"));
    writeFileSync(
      join(dir, "my-install", "kustomization.yaml"),
      stringify({ resources: ["../deploy"], components: ["../deploy/components/namespaced"] }),
    );
    text = await admin.run(["kustomize", join(dir, "my-install")]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const kinds = ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"];
  const picked = parseAllDocuments(text)
    .map((d) => d.toJS() as Resource)
    .filter(
      (o) =>
        kinds.includes(o.kind) && !o.metadata.name.endsWith("-view") && !o.metadata.name.endsWith("-edit"),
    )
    // The example namespace's Role stands for every watched one: here the operator's own is watched.
    .filter((o) => o.metadata.namespace !== EXAMPLE_NAMESPACE);
  for (const o of picked) {
    const b = o as Resource & { roleRef?: { kind: string; name: string }; subjects?: object[] };
    if (b.subjects) b.subjects = [{ kind: "ServiceAccount", name: NAME, namespace }];
    if (o.kind.startsWith("Cluster")) o.metadata.name = `${o.metadata.name}-${namespace}`;
    else {
      expect(o.metadata.namespace).toBe(OPERATOR_NAMESPACE);
      o.metadata.namespace = namespace;
    }
    if (b.roleRef?.kind === "ClusterRole") b.roleRef.name = `${b.roleRef.name}-${namespace}`;
  }
  expect(picked.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
    [
      `ClusterRole/${NAME}-${namespace}`,
      `ClusterRoleBinding/${NAME}-${namespace}`,
      `Role/${NAME}`,
      `Role/${NAME}-leader-election`,
      `RoleBinding/${NAME}`,
      `RoleBinding/${NAME}-leader-election`,
      `ServiceAccount/${NAME}`,
    ].sort(),
  );
  return picked;
}

describe("the operator with Secrets and ServiceAccounts granted per namespace", () => {
  const admin = adminKubectl();
  let rbac: Resource[] = [];
  let tokenDir = "";
  let sa: Kubectl;
  let elsewhere = "";

  const op = useOperator({
    namespacePrefix: "nsrbac",
    leaderElection: true,
    kubeconfig: async (namespace) => {
      rbac = await namespacedRbac(admin, namespace);
      await admin.apply(rbac);
      const token = (await admin.run(["create", "token", NAME, "-n", namespace, "--duration=1h"])).trim();
      const { server, caCertPath, kubectl: command } = sharedControlPlane();
      tokenDir = mkdtempSync(join(tmpdir(), "hco-nsrbac-"));
      const path = writeKubeconfig(join(tokenDir, "kubeconfig"), {
        server,
        caCert: caCertPath,
        user: NAME,
        credentials: { token },
        namespace,
      });
      sa = kubectl(path, command);
      return path;
    },
  });

  afterAll(async () => {
    if (elsewhere)
      await admin.tryRun(["delete", "namespace", elsewhere, "--wait=false", "--ignore-not-found"]);
    for (const o of rbac.filter((r) => r.kind.startsWith("Cluster")))
      await admin.tryRun(["delete", o.kind.toLowerCase(), o.metadata.name, "--ignore-not-found"]);
    if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
  });

  test("Secrets and ServiceAccounts in its namespace, not elsewhere", async () => {
    elsewhere = `${op.namespace}-elsewhere`;
    const can = async (...args: string[]) => (await sa.tryRun(["auth", "can-i", ...args])).stdout.trim();
    for (const args of [
      ["list", "secrets", "-n", op.namespace],
      ["create", "secrets", "-n", op.namespace],
      ["watch", "serviceaccounts", "-n", op.namespace],
      ["update", "serviceaccounts", "-n", op.namespace],
      ["watch", "namespaces"],
      ["list", "harborrobots.harborconfig.io", "--all-namespaces"],
    ])
      expect(await can(...args), args.join(" ")).toBe("yes");
    for (const args of [
      ["list", "secrets", "--all-namespaces"],
      ["get", "secrets", "-n", elsewhere],
      ["create", "secrets", "-n", elsewhere],
      ["list", "serviceaccounts", "--all-namespaces"],
      ["update", "serviceaccounts", "-n", elsewhere],
    ])
      expect(await can(...args), args.join(" ")).toBe("no");
  });

  test("a robot gets its Secret in its namespace; its copy elsewhere is a Forbidden copy failure", async () => {
    // A namespace that matches the robot's selector and accepts its copies, outside the Roles.
    await admin.apply({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: elsewhere,
        labels: { "copies-to": elsewhere },
        annotations: { "harborconfig.io/accept-pull-secrets-from": op.namespace },
      },
    });
    await op.kubectl.apply([
      project("team"),
      robot("pull", {
        projectRef: { name: "team" },
        secret: { copies: { namespaceSelector: { matchLabels: { "copies-to": elsewhere } } } },
      }),
    ]);
    const found = await op.waitFor<RobotCR>("harborrobot", "pull", (o) =>
      (o.status?.copyFailures ?? []).some((f) => f.namespace === elsewhere),
    );
    expect(found.status?.copyFailures?.map((f) => [f.namespace, f.reason])).toEqual([
      [elsewhere, "Forbidden"],
    ]);
    expect(found.status?.copiedTo ?? []).toEqual([]);
    await op.kubectl.get("secret", found.status?.secretName ?? "pull");

    const user = `system:serviceaccount:${op.namespace}:${NAME}`;
    const requests = readAuditLog(sharedControlPlane().auditLogPath).filter((e) => e.user.username === user);
    const forbidden = requests.filter((e) => e.responseStatus?.code === 403);
    // The copy; besides it, at most a single Secret by name: one that a ClusterHarborConnection of
    // another test (they are cluster-wide) names in a namespace outside the Roles. Never a list.
    expect(forbidden.some((e) => e.objectRef?.namespace === elsewhere)).toBe(true);
    for (const e of forbidden) {
      expect(e.objectRef?.resource, `${e.verb} ${e.requestURI}`).toBe("secrets");
      expect(e.objectRef?.name, `${e.verb} ${e.requestURI}`).toBeTruthy();
    }
    // Secrets and ServiceAccounts listed and watched in its namespace only.
    const lists = requests.filter(
      (e) =>
        (e.objectRef?.resource === "secrets" || e.objectRef?.resource === "serviceaccounts") &&
        (e.verb === "list" || e.verb === "watch"),
    );
    expect(new Set(lists.map((e) => e.objectRef?.resource))).toEqual(new Set(["secrets", "serviceaccounts"]));
    for (const e of lists) expect(e.objectRef?.namespace, e.requestURI).toBe(op.namespace);
  });
});
