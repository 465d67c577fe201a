// A hostile tenant, with its own kubectl identity: a ServiceAccount token bound in its namespace to
// the cluster's `edit` role (which takes in the kinds through deploy/'s aggregated ClusterRoles),
// nothing else. Each case is one way across a namespace boundary, tried as that tenant:
//   1. a connection as an exfiltration channel: a Secret that did not opt in is never sent to the
//      tenant's URL, and a cluster-wide connection (which could name any namespace's Secret) is
//      out of the tenant's reach;
//   2. a robot's copies into another team's namespace: nothing is written there unless it accepts;
//   3. a HarborUser's generatedSecretName naming a Secret the operator did not write: never used;
//   4. status readable by the tenant (and by Argo CD, backups) holds nothing derived from a secret.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { adminKubectl, sharedControlPlane } from "../env/cluster.ts";
import { writeKubeconfig } from "../env/controlplane/kubeconfig.ts";
import { type Kubectl, kubectl } from "../env/kubectl.ts";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  connection,
  project,
  pullSecretsOf,
  type Resource,
  type RobotCR,
  robot,
  secret,
  user,
} from "../env/resources.ts";
import { untilTrue } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "tenant" });
const admin = adminKubectl();
const rbacFile = join(import.meta.dirname, "..", "..", "deploy", "rbac.yaml");

let tenant: Kubectl;
let victim = "";
let tokenDir = "";
/** The aggregated ClusterRoles of deploy/rbac.yaml, renamed for this file. */
let roles: string[] = [];

/** Requests that reached the tenant's own server, with the Authorization header each carried. */
const received: Array<{ url: string; authorization?: string }> = [];
const listener = http.createServer((req, res) => {
  received.push({
    url: req.url ?? "",
    ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
  });
  res.writeHead(401, { "content-type": "application/json" }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
});

beforeAll(async () => {
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const ns = op.namespace;
  victim = `${ns}-victim`;
  await admin.run(["create", "namespace", victim]);

  // The kinds reach `edit` through deploy/'s aggregated ClusterRoles (renamed: the deploy test
  // installs and removes its own copies).
  const aggregated = parseAllDocuments(readFileSync(rbacFile, "utf8"))
    .map((d) => d.toJSON() as Resource & { metadata: { labels?: Record<string, string> } })
    .filter((o) =>
      Object.keys(o?.metadata?.labels ?? {}).some((k) =>
        k.startsWith("rbac.authorization.k8s.io/aggregate-to-"),
      ),
    )
    .map((o) => ({ ...o, metadata: { ...o.metadata, name: `${o.metadata.name}-${ns}` } }));
  roles = aggregated.map((o) => o.metadata.name);
  await admin.apply(aggregated);

  // The tenant: a ServiceAccount bound to `edit` in its namespace, and a token for it.
  await admin.inNamespace(ns).run(["create", "serviceaccount", "tenant"]);
  await admin.run([
    "create",
    "rolebinding",
    "tenant-edit",
    "--clusterrole=edit",
    `--serviceaccount=${ns}:tenant`,
    "-n",
    ns,
  ]);
  const token = (await admin.run(["create", "token", "tenant", "-n", ns, "--duration=1h"])).trim();
  const { server, caCertPath, kubectl: command } = sharedControlPlane();
  tokenDir = mkdtempSync(join(tmpdir(), "hco-tenant-"));
  tenant = kubectl(
    writeKubeconfig(join(tokenDir, "kubeconfig"), {
      server,
      caCert: caCertPath,
      user: "tenant",
      credentials: { token },
      namespace: ns,
    }),
    command,
  );
  // kube-controller-manager aggregates the roles into `edit` a moment later.
  await untilTrue(
    "the kinds aggregated into edit",
    async () =>
      (await tenant.tryRun(["auth", "can-i", "create", "harborrobots.harborconfig.io"])).stdout.trim() ===
      "yes",
  );
});

afterAll(async () => {
  listener.close();
  await admin.tryRun(["delete", "namespace", victim, "--wait=false", "--ignore-not-found"]);
  for (const name of roles) await admin.tryRun(["delete", "clusterrole", name, "--ignore-not-found"]);
  if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
});

describe("a tenant with only `edit` in its namespace", () => {
  test("cannot have a Secret that did not opt in sent to a server of its own, nor write a cluster-wide connection", async () => {
    // Another application's credentials, in the tenant's namespace, put there by someone else.
    await admin
      .inNamespace(op.namespace)
      .apply(secret("app-db", { username: "app", password: "db-secret-value" }));
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    await tenant.apply(connection("exfiltrate", url, "app-db"));
    const refused = await op.waitFor<Resource>(
      "harborconnection",
      "exfiltrate",
      (o) => condition(o, "Ready")?.reason === "SecretNotAllowed",
    );
    expect(condition(refused, "Ready")?.message).toContain(
      "does not opt in with the harborconfig.io/usable-as annotation",
    );
    expect(JSON.stringify(refused.status)).not.toContain("db-secret-value");
    // Nothing of the Secret reached the tenant's server (nor anything else).
    expect(received).toEqual([]);

    // A ClusterHarborConnection may name a Secret in any namespace: not the tenant's to write.
    const cluster = await tenant.tryRun(["create", "-f", "-"], {
      input: JSON.stringify({
        apiVersion: "harborconfig.io/v1alpha1",
        kind: "ClusterHarborConnection",
        metadata: { name: `${op.namespace}-exfiltrate` },
        spec: { url, credentialsSecretRef: { name: "app-db", namespace: victim } },
      }),
    });
    expect(cluster.code).not.toBe(0);
    expect(cluster.stderr).toContain("forbidden");
  });

  test("cannot have its robot write a Secret or a pull-secret entry into another team's namespace", async () => {
    await tenant.apply([
      project(op.namespace),
      robot("spread", {
        projectRef: { name: op.namespace },
        secret: {
          copies: {
            namespaceSelector: {
              matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [victim] }],
            },
            serviceAccounts: ["default"],
          },
        },
      }),
    ]);
    const r = await op.waitFor<RobotCR>("harborrobot", "spread", (o) =>
      (o.status?.copiesRefused ?? []).includes(victim),
    );
    expect(r.status?.copiedTo ?? []).toEqual([]);
    expect(condition(r, "Ready")?.status).toBe("True");
    expect((await admin.inNamespace(victim).tryRun(["get", "secret", "spread"])).code).not.toBe(0);
    await untilTrue(
      "the victim's default ServiceAccount",
      async () => (await admin.inNamespace(victim).tryRun(["get", "serviceaccount", "default"])).code === 0,
    );
    expect(await pullSecretsOf(admin.inNamespace(victim), "default")).toEqual([]);
  });

  test("cannot have a HarborUser take its password from a Secret the operator did not write", async () => {
    await tenant.apply(user("taker", { email: "taker@example.com", generatedSecretName: "app-db" }));
    const r = await op.waitFor<Resource>(
      "harboruser",
      "taker",
      (o) => condition(o, "Ready")?.reason === "SecretConflict",
    );
    expect(condition(r, "Ready")?.message).toContain("was not written by this resource");
    // Harbor has no such user, and the Secret is as it was.
    expect(await op.harbor.users.byName("taker")).toBeUndefined();
    const kept = await admin
      .inNamespace(op.namespace)
      .get<{ data: Record<string, string> }>("secret", "app-db");
    expect(Buffer.from(kept.data.password ?? "", "base64").toString()).toBe("db-secret-value");
  });

  test("reads no value derived from a password in a HarborUser's status", async () => {
    const password = "Tenant-Passw0rd-1";
    await tenant.apply([
      secret("dev-password", { password }, { usableAs: "harbor-user-password" }),
      user("dev", { email: "dev@example.com", passwordSecretRef: { name: "dev-password" } }),
    ]);
    const ready = await op.waitFor<Resource>(
      "harboruser",
      "dev",
      (o) => condition(o, "Ready")?.status === "True",
    );
    const status = (await tenant.get<Resource>("harboruser", "dev")).status as Record<string, unknown>;
    expect(status).toMatchObject({
      passwordSecret: "dev-password",
      passwordSecretVersion: expect.any(String),
    });
    // A resourceVersion, nothing an offline guess could be checked against.
    expect(Object.keys(status)).not.toContain("passwordHash");
    expect(JSON.stringify(ready.status)).not.toMatch(/[0-9a-f]{16,}/);
  });
});
