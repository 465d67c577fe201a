// The informer against a real apiserver: whatever happens to the watch, the cache ends equal to the
// apiserver's state and every change reaches the handlers.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { KubeClient } from "../../../src/kube/client.ts";
import type { KubeObject, ResourceType } from "../../../src/kube/types.ts";
import { Informer } from "../../../src/runtime/informer.ts";
import { budget } from "../../env/budget.ts";
import { adminKubectl, sharedControlPlane, useNamespace } from "../../env/cluster.ts";
import { type ControlPlane, startControlPlane } from "../../env/controlplane/launcher.ts";
import { kubectl } from "../../env/kubectl.ts";

const group = "informer.test.harborconfig.io";
const Gadgets: ResourceType = { group, version: "v1", plural: "gadgets", kind: "Gadget", namespaced: true };
const crd = (columns: Array<{ name: string; type: string; jsonPath: string }> = []) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `gadgets.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: { kind: "Gadget", plural: "gadgets", singular: "gadget", listKind: "GadgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        additionalPrinterColumns: columns,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
          },
        },
      },
    ],
  },
});
const gadget = (name: string, size: number) => ({
  apiVersion: `${group}/v1`,
  kind: "Gadget",
  metadata: { name },
  spec: { size },
});
type Gadget = KubeObject & { spec: { size: number } };

const quiet = pino({ level: "silent" });

/** Records what handlers saw, and throws from one handler to prove that cannot hurt. */
function recorder(informer: Informer<Gadget>) {
  const seen: string[] = [];
  informer.on({
    add: (o) => seen.push(`add ${o.metadata.name} ${o.spec.size}`),
    update: (_a, b) => seen.push(`update ${b.metadata.name} ${b.spec.size}`),
    delete: (o) => seen.push(`delete ${o.metadata.name}`),
  });
  informer.on({
    add: () => {
      throw new Error("a broken handler");
    },
  });
  return seen;
}

const state = (informer: Informer<Gadget>) =>
  Object.fromEntries(informer.list().map((g) => [g.metadata.name, g.spec.size]));

describe("informer on the shared control plane", () => {
  const ns = useNamespace("informer");
  const admin = adminKubectl();
  let kube: KubeClient;

  beforeAll(async () => {
    await admin.apply(crd());
    await admin.wait("crd", `gadgets.${group}`, "condition=Established");
    kube = KubeClient.fromOptions({ kubeconfig: sharedControlPlane().kubeconfigPath });
  });
  afterAll(() => kube?.close());

  test("watches beyond the client's request connections leave its requests unaffected", async () => {
    // One watch per kind and namespace: more kinds and more --namespace flags mean more long-lived
    // connections than the 32 requests the client runs at once.
    const { resourceVersion } = await kube.list<Gadget>(Gadgets, { namespace: ns.name });
    const stop = new AbortController();
    const watches = Array.from({ length: 40 }, () =>
      kube.watch<Gadget>(Gadgets, { namespace: ns.name, resourceVersion, signal: stop.signal }, () => {}),
    );
    try {
      await new Promise((r) => setTimeout(r, 500)); // every watch connected
      const started = Date.now();
      await kube.list<Gadget>(Gadgets, { namespace: ns.name });
      // Held back behind the watches, it would wait for one of them to end: half an hour or more.
      expect(Date.now() - started).toBeLessThan(budget.requestMs);
    } finally {
      stop.abort();
      await Promise.allSettled(watches);
    }
  });

  test("a watch the server keeps closing loses nothing", async () => {
    const informer = new Informer<Gadget>({
      client: kube,
      type: Gadgets,
      logger: quiet,
      namespaces: [ns.name],
      watchTimeoutSeconds: 1, // the apiserver ends every watch after about a second
    });
    const seen = recorder(informer);
    informer.start();
    await informer.waitForSync();
    for (let i = 1; i <= 4; i++) {
      await ns.kubectl.apply(gadget(`g${i}`, i));
      await new Promise((r) => setTimeout(r, 700)); // spread changes across several watches
    }
    await ns.kubectl.delete("gadget", "g2", { wait: true });
    await expect.poll(() => state(informer), { timeout: budget.operatorMs }).toEqual({ g1: 1, g3: 3, g4: 4 });
    expect(seen).toEqual(["add g1 1", "add g2 2", "add g3 3", "add g4 4", "delete g2"]);
    await informer.stop();
  });

  test("a watch that stays silent is restarted and still delivers later changes", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (l: string) => lines.push(l) });
    const informer = new Informer<Gadget>({
      client: kube,
      type: Gadgets,
      logger,
      namespaces: [ns.name],
      watchTimeoutSeconds: 300,
      idleTimeoutMs: 800,
    });
    informer.start();
    await informer.waitForSync();
    await expect
      .poll(() => lines.some((l) => l.includes("watch was silent too long")), { timeout: budget.operatorMs })
      .toBe(true);
    await ns.kubectl.apply(gadget("late", 7));
    await expect.poll(() => state(informer).late, { timeout: budget.operatorMs }).toBe(7);
    await informer.stop();
    await ns.kubectl.delete("gadget", "late", { wait: true });
  });

  test("more watches than the client's request sockets never starve its lists and writes", async () => {
    // 40 informers on one client (an operator with 10 kinds in 4 namespaces), each holding a watch.
    const informers = Array.from(
      { length: 40 },
      (_, i) =>
        new Informer<Gadget>({
          client: kube,
          type: Gadgets,
          logger: quiet,
          namespaces: [i === 0 ? ns.name : `${ns.name}-nowhere-${i}`],
        }),
    );
    for (const i of informers) i.start();
    await Promise.all(informers.map((i) => i.waitForSync()));
    // Every watch is open; a request still gets a socket, and a change still reaches the watches.
    await expect(kube.list(Gadgets, { namespace: ns.name })).resolves.toMatchObject({
      items: expect.any(Array),
    });
    await ns.kubectl.apply(gadget("crowded", 1));
    await expect
      .poll(() => state(informers[0] as Informer<Gadget>).crowded, { timeout: budget.operatorMs })
      .toBe(1);
    await Promise.all(informers.map((i) => i.stop()));
    await ns.kubectl.delete("gadget", "crowded", { wait: true });
  });

  test("after a 410 Gone it lists again and reports the changes it missed, deletions included", async () => {
    const informer = new Informer<Gadget>({
      client: kube,
      type: Gadgets,
      logger: quiet,
      namespaces: [ns.name],
    });
    const seen = recorder(informer);
    informer.start();
    await informer.waitForSync();
    expect(state(informer)).toEqual({ g1: 1, g3: 3, g4: 4 });
    await informer.stop();

    // While nobody watches: changes, then a fresh watch cache (a CRD change), so that the
    // informer's resourceVersion is too old when it resumes.
    await ns.kubectl.delete("gadget", "g1", { wait: true });
    await ns.kubectl.apply(gadget("g3", 33));
    await ns.kubectl.apply(gadget("g5", 5));
    await admin.apply(crd([{ name: "Size", type: "integer", jsonPath: ".spec.size" }]));
    await expect
      .poll(() => admin.run(["get", "gadgets", "-n", ns.name]), { timeout: budget.operatorMs })
      .toMatch(/\bSIZE\b/);

    seen.length = 0;
    informer.start();
    await expect
      .poll(() => state(informer), { timeout: budget.operatorMs })
      .toEqual({ g3: 33, g4: 4, g5: 5 });
    expect(seen.sort()).toEqual(["add g5 5", "delete g1", "update g3 33"]);
    await informer.stop();
  });
});

describe("informer across a kube-apiserver restart", () => {
  let cp: ControlPlane;
  let kube: KubeClient;

  beforeAll(async () => {
    cp = await startControlPlane();
    const k = adminKubectlFor(cp.kubeconfigPath);
    await k.apply(crd());
    await k.wait("crd", `gadgets.${group}`, "condition=Established");
    kube = KubeClient.fromOptions({ kubeconfig: cp.kubeconfigPath });
  });
  afterAll(async () => {
    kube?.close();
    await cp?.stop();
  });

  test("changes made after the apiserver comes back are all seen", async () => {
    const k = adminKubectlFor(cp.kubeconfigPath).inNamespace("default");
    await k.apply(gadget("before", 1));
    const informer = new Informer<Gadget>({
      client: kube,
      type: Gadgets,
      logger: quiet,
      namespaces: ["default"],
      backoffBaseMs: 200,
      backoffMaxMs: 1000,
    });
    recorder(informer);
    informer.start();
    await informer.waitForSync();
    await cp.stopApiserver();
    await new Promise((r) => setTimeout(r, 1500)); // the informer fails and backs off meanwhile
    await cp.startApiserver();
    await k.apply(gadget("after", 2));
    await k.apply(gadget("before", 10));
    await expect
      .poll(() => state(informer), { timeout: budget.operatorMs })
      .toEqual({ before: 10, after: 2 });
    await informer.stop();
  });
});

/** kubectl for another control plane, with the binary the shared one uses. */
function adminKubectlFor(kubeconfigPath: string) {
  return kubectl(kubeconfigPath, sharedControlPlane().kubectl);
}
