// A control plane of a test's own, for what the shared one must not go through: kube-apiserver
// going away and coming back (as in an upgrade), and a complete stop.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../../env/controlplane/launcher.ts";
import { isAlive } from "../../env/controlplane/processes.ts";
import { type Kubectl, kubectl } from "../../env/kubectl.ts";

describe("a control plane started by a test", () => {
  let controlPlane: ControlPlane;
  let k: Kubectl;

  beforeAll(async () => {
    controlPlane = await startControlPlane();
    k = kubectl(controlPlane.kubeconfigPath, controlPlane.binaries.kubectl).inNamespace("default");
  });

  afterAll(async () => {
    await controlPlane?.stop();
  });

  it("restarts kube-apiserver on the same address with its data kept", async () => {
    await k.run(["create", "configmap", "survivor", "--from-literal=note=kept in etcd"]);

    await controlPlane.stopApiserver();
    const down = await k.tryRun(["get", "configmap", "survivor", "--request-timeout=5s"]);
    expect(down.code).not.toBe(0);
    // kubectl words it "dial tcp …: connect: connection refused" after a discovery attempt, or
    // "The connection to the server … was refused" when it gets no further (seen on a busy machine).
    expect(down.stderr).toMatch(/connection refused|connection to the server .* was refused/);

    await controlPlane.startApiserver();
    const survivor = await k.get<{ data: { note: string } }>("configmap", "survivor");
    expect(survivor.data.note).toBe("kept in etcd");
  });

  it("stops every process it started and removes its data", async () => {
    const components = controlPlane.components();
    expect(components.map((c) => c.name).sort()).toEqual([
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
    ]);

    await controlPlane.stop();
    expect(components.filter((c) => isAlive(c.pid))).toEqual([]);
    expect(existsSync(controlPlane.dataDir)).toBe(false);
  });
});
