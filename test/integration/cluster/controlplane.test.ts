// The test control plane behaves as a Kubernetes cluster does for an operator: CRDs with a status
// subresource and printer columns, optimistic concurrency, watch expiry, RBAC for ServiceAccount
// tokens, garbage collection, namespace deletion and the audit log. Driven by kubectl, as a user.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { budget } from "../../env/budget.ts";
import { adminKubectl, sharedControlPlane, useNamespace } from "../../env/cluster.ts";
import { isWrite, readAuditLog } from "../../env/controlplane/audit.ts";
import { writeKubeconfig } from "../../env/controlplane/kubeconfig.ts";
import { type KubeObject, kubectl } from "../../env/kubectl.ts";

const group = "controlplane.test.harborconfig.io";
const crdName = `widgets.${group}`;

function widgetCrd(extraColumns: object[] = []) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: crdName },
    spec: {
      group,
      scope: "Namespaced",
      names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            ...extraColumns,
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: { size: { type: "integer", minimum: 1 } },
                  "x-kubernetes-validations": [{ rule: "self.size <= 10", message: "size is at most 10" }],
                },
                status: {
                  type: "object",
                  properties: {
                    conditions: {
                      type: "array",
                      items: {
                        type: "object",
                        required: ["type", "status"],
                        properties: { type: { type: "string" }, status: { type: "string" } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

function widget(name: string, size = 1) {
  return { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name }, spec: { size } };
}

interface Widget extends KubeObject {
  spec: { size: number };
  status?: { conditions?: { type: string; status: string }[] };
}

describe("the test control plane", () => {
  const admin = adminKubectl();
  const ns = useNamespace("controlplane");

  beforeAll(async () => {
    await admin.apply(widgetCrd());
    await admin.wait("crd", crdName, "condition=Established");
  });

  afterAll(async () => {
    await admin.delete("crd", crdName);
  });

  it("serves a custom resource with a status subresource and printer columns", async () => {
    const k = ns.kubectl;
    await k.apply(widget("status"));
    const created = await k.get<Widget>("widget", "status");

    // Status is written through its subresource only, and does not bump the generation.
    const condition = { type: "Ready", status: "True" };
    await k.run(
      ["patch", "widget", "status", "--subresource=status", "--type=merge", "-p"].concat(
        JSON.stringify({ status: { conditions: [condition] } }),
      ),
    );
    await k.wait("widget", "status", "condition=Ready");
    const patched = await k.get<Widget>("widget", "status");
    expect(patched.status?.conditions).toEqual([condition]);
    expect(patched.metadata.generation).toBe(created.metadata.generation);

    // A status sent to the main resource is ignored; a spec change bumps the generation.
    await k.run(
      ["patch", "widget", "status", "--type=merge", "-p"].concat(
        JSON.stringify({ spec: { size: 2 }, status: { conditions: [{ type: "Ready", status: "False" }] } }),
      ),
    );
    const updated = await k.get<Widget>("widget", "status");
    expect(updated.status?.conditions).toEqual([condition]);
    expect(updated.metadata.generation).toBe((created.metadata.generation ?? 0) + 1);

    const table = await k.run(["get", "widgets"]);
    expect(table).toMatch(/^NAME\s+READY$/m);
    expect(table).toMatch(/^status\s+True\s+/m);
  });

  it("rejects what the CRD's schema and CEL rules forbid", async () => {
    const tooSmall = await ns.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(widget("small", 0)),
    });
    expect(tooSmall.code).not.toBe(0);
    expect(tooSmall.stderr).toMatch(
      /spec\.size: Invalid value: 0: spec\.size in body should be greater than or equal to 1/,
    );

    const tooLarge = await ns.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(widget("large", 11)),
    });
    expect(tooLarge.code).not.toBe(0);
    expect(tooLarge.stderr).toContain("size is at most 10");
  });

  it("answers 409 Conflict to an update with a stale resourceVersion", async () => {
    const k = ns.kubectl;
    await k.apply(widget("conflict"));
    const stale = await k.get<Widget>("widget", "conflict");
    await k.run(["patch", "widget", "conflict", "--type=merge", "-p", '{"spec":{"size":2}}']);

    const result = await k.tryRun(["replace", "-f", "-"], {
      input: JSON.stringify({ ...stale, spec: { size: 3 } }),
    });
    expect(result.code).not.toBe(0);
    // kubectl names the HTTP status by its reason: Conflict is 409.
    expect(result.stderr).toContain("Error from server (Conflict)");
    expect(result.stderr).toContain("the object has been modified");
    expect((await k.get<Widget>("widget", "conflict")).spec.size).toBe(2);
  });

  it("ends a watch from a resourceVersion it no longer keeps with 410 Gone", async () => {
    const k = ns.kubectl;
    await k.apply(widget("expired"));
    const { resourceVersion } = (await k.get<Widget>("widget", "expired")).metadata;
    await k.run(["patch", "widget", "expired", "--type=merge", "-p", '{"spec":{"size":2}}']);

    // A watch resumes from where its client left off, as long as the apiserver's watch cache still
    // holds that point. Changing the CRD gives its resources a fresh cache that starts now, as a
    // restart of the apiserver does: the resourceVersion read above is then too old.
    await admin.apply(widgetCrd([{ name: "Size", type: "integer", jsonPath: ".spec.size" }]));
    await expect
      .poll(() => k.run(["get", "widgets"]), { timeout: budget.operatorMs, interval: 250 })
      .toMatch(/\bSIZE\b/);

    const path = `/apis/${group}/v1/namespaces/${ns.name}/widgets?watch=true&resourceVersion=${resourceVersion}`;
    // An expired watch ends at once with one ERROR event; a live one would stream until killed.
    const result = await k.tryRun(["get", "--raw", path]);
    const event = JSON.parse(result.stdout.split("\n")[0] ?? "") as {
      type: string;
      object: { kind: string; code: number; reason: string };
    };
    expect(event.type).toBe("ERROR");
    expect(event.object).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
  });

  it("issues ServiceAccount tokens and enforces RBAC on them", async () => {
    const k = ns.kubectl;
    await k.apply([
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "reader" } },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "widget-reader" },
        rules: [{ apiGroups: [group], resources: ["widgets"], verbs: ["get", "list", "watch"] }],
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "widget-reader" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "widget-reader" },
        subjects: [{ kind: "ServiceAccount", name: "reader", namespace: ns.name }],
      },
      widget("guarded"),
    ]);
    // TokenRequest API, as a pod's projected token or a CI job gets one.
    const token = (await k.run(["create", "token", "reader", "--duration=10m"])).trim();
    const dir = mkdtempSync(join(tmpdir(), "hco-token-"));
    try {
      const { server, caCertPath, kubectl: command } = sharedControlPlane();
      const kubeconfig = writeKubeconfig(join(dir, "kubeconfig"), {
        server,
        caCert: caCertPath,
        user: "reader",
        credentials: { token },
        namespace: ns.name,
      });
      const reader = kubectl(kubeconfig, command);

      const whoami = JSON.parse(await reader.run(["auth", "whoami", "-o", "json"])) as {
        status: { userInfo: { username: string } };
      };
      expect(whoami.status.userInfo.username).toBe(`system:serviceaccount:${ns.name}:reader`);
      expect((await reader.get<Widget>("widget", "guarded")).spec.size).toBe(1);
      const denied = await reader.tryRun(["delete", "widget", "guarded"]);
      expect(denied.stderr).toContain("Error from server (Forbidden)");
      const secrets = await reader.tryRun(["get", "secrets"]);
      expect(secrets.stderr).toContain("Error from server (Forbidden)");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("garbage-collects an object whose owner is deleted", async () => {
    // The owner is of a built-in kind: the garbage collector learns of kinds added after it
    // started (this file's CRD) only at its next discovery, up to 30 s later.
    const k = ns.kubectl;
    await k.run(["create", "configmap", "owner"]);
    const owner = await k.get("configmap", "owner");
    await k.apply({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "owned",
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid }],
      },
    });
    await k.delete("configmap", "owner");
    await k.wait("configmap", "owned", "delete", budget.operatorMs);
  });

  it("deletes a namespace together with its contents", async () => {
    const name = `${ns.name}-doomed`;
    await admin.run(["create", "namespace", name]);
    const doomed = admin.inNamespace(name);
    await doomed.apply(widget("inside"));
    await doomed.run(["create", "configmap", "inside"]);
    // kubectl waits until the namespace controller has emptied it and the namespace is gone; the
    // process gets a request's time more than its own wait.
    const seconds = Math.ceil(budget.operatorMs / 1000);
    await admin.run(["delete", "namespace", name, "--wait=true", `--timeout=${seconds}s`], {
      timeoutMs: budget.operatorMs + budget.requestMs,
    });
    const gone = await admin.tryRun(["get", "namespace", name]);
    expect(gone.stderr).toContain("NotFound");
  });

  it("records who changed what in the audit log", async () => {
    await ns.kubectl.apply(widget("audited"));
    const writes = readAuditLog(sharedControlPlane().auditLogPath).filter(isWrite);
    const create = writes.find(
      (e) =>
        e.objectRef?.resource === "widgets" &&
        e.objectRef.namespace === ns.name &&
        e.objectRef.name === "audited",
    );
    expect(create).toMatchObject({
      verb: "create",
      user: { username: "admin" },
      responseStatus: { code: 201 },
    });
  });
});
