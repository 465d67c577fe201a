// The SecretWriter against a real apiserver: a watcher can tell the writer's own changes from
// anyone else's, also when the watch reports a write before the write's answer has arrived (the
// answer is held back here, as a slow network would).
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { KubeClient } from "../../../src/kube/client.ts";
import { SecretWriter } from "../../../src/kube/secrets.ts";
import { type KubeObject, type ResourceType, type SecretObject, Secrets } from "../../../src/kube/types.ts";
import { Informer } from "../../../src/runtime/informer.ts";
import { budget } from "../../env/budget.ts";
import { sharedControlPlane, useNamespace } from "../../env/cluster.ts";

/** A client whose write answers arrive only after the watch has had time to report the write. */
class SlowAnswers extends KubeClient {
  override async create<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    const created = await super.create(type, object);
    await sleep(400);
    return created;
  }
  override async replace<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    const replaced = await super.replace(type, object);
    await sleep(400);
    return replaced;
  }
}

describe("SecretWriter on the shared control plane", () => {
  const ns = useNamespace("secret-writer");
  let kube: KubeClient;
  let other: KubeClient;

  beforeAll(() => {
    const kubeconfig = sharedControlPlane().kubeconfigPath;
    kube = SlowAnswers.fromOptions({ kubeconfig });
    other = KubeClient.fromOptions({ kubeconfig });
  });
  afterAll(() => {
    kube?.close();
    other?.close();
  });

  test("its own writes are recognised even when the watch is faster than the answer", async () => {
    expect(kube).toBeInstanceOf(SlowAnswers);
    const writer = new SecretWriter(kube);
    const informer = new Informer<SecretObject>({
      client: other,
      type: Secrets,
      logger: pino({ level: "silent" }),
      namespaces: [ns.name],
    });
    const seen: Array<{ event: string; version: string | undefined; own: boolean }> = [];
    const record = (event: string, s: SecretObject, deleted = false) => {
      // Asked at once, as the operator's watch handler does.
      void writer.isOwnChange(s, deleted).then((own) => {
        if (s.metadata.name === "pull") seen.push({ event, version: s.metadata.resourceVersion, own });
      });
    };
    informer.on({
      add: (s) => record("add", s),
      update: (_a, b) => record("update", b),
      delete: (s) => record("delete", s, true),
    });
    informer.start();
    await informer.waitForSync();

    const owner: KubeObject = {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "HarborRobot",
      metadata: { name: "ci", namespace: ns.name, uid: "0b4e8e2c-4a49-4d1c-9f5c-4c1c0f6f2d11" },
    };
    const desired = (secret: string) => ({
      namespace: ns.name,
      name: "pull",
      type: "Opaque",
      labels: { "harborconfig.io/watch": "true" },
      data: { password: secret },
    });
    // Another namespace's object cannot own it; a copy outside the owner's namespace has no
    // ownerReference, so the writer's copy path is what is exercised here.
    const copyOwner = { ...owner, metadata: { ...owner.metadata, namespace: "elsewhere" } };

    expect(await writer.apply(copyOwner, desired("one"))).toBe("created");
    await expect.poll(() => seen.length, { timeout: budget.operatorMs }).toBe(1);
    expect(seen[0]).toMatchObject({ event: "add", own: true });

    expect(await writer.apply(copyOwner, desired("two"))).toBe("updated");
    await expect.poll(() => seen.length, { timeout: budget.operatorMs }).toBe(2);
    expect(seen[1]).toMatchObject({ event: "update", own: true });

    // Someone else's edit is not the writer's.
    const current = await other.get<SecretObject>(Secrets, ns.name, "pull");
    await other.replace<SecretObject>(Secrets, {
      ...current,
      data: { password: Buffer.from("edited").toString("base64") },
    });
    await expect.poll(() => seen.length, { timeout: budget.operatorMs }).toBe(3);
    expect(seen[2]).toMatchObject({ event: "update", own: false });

    expect(await writer.deleteOwned(copyOwner, ns.name, "pull")).toBe(true);
    await expect.poll(() => seen.length, { timeout: budget.operatorMs }).toBe(4);
    expect(seen[3]).toMatchObject({ event: "delete", own: true });
    await informer.stop();
  });

  test("a Secret the caller has just read is not read again, and a change since then is never overwritten", async () => {
    const writer = new SecretWriter(other);
    const owner: KubeObject = {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "HarborRobot",
      metadata: { name: "ci", namespace: "elsewhere", uid: "5d0c1f8a-7b0e-4e57-9a55-0f3a2c6e9b21" },
    };
    const desired = (secret: string) => ({
      namespace: ns.name,
      name: "seen",
      type: "Opaque",
      labels: {},
      data: { password: secret },
    });
    const password = async () =>
      Buffer.from(
        (await other.get<SecretObject>(Secrets, ns.name, "seen")).data?.password ?? "",
        "base64",
      ).toString();

    expect(await writer.apply(owner, desired("one"), null)).toBe("created");
    const read = await other.get<SecretObject>(Secrets, ns.name, "seen");
    expect(await writer.apply(owner, desired("one"), read)).toBe("unchanged");
    expect(await writer.apply(owner, desired("two"), read)).toBe("updated");
    expect(await password()).toBe("two");

    // Read as absent, created by someone since: the create fails, nothing is overwritten.
    await expect(writer.apply(owner, desired("three"), null)).rejects.toMatchObject({ kind: "conflict" });
    // Read before a change made since: the replace carries the old resourceVersion and fails.
    await expect(writer.apply(owner, desired("three"), read)).rejects.toMatchObject({ kind: "conflict" });
    expect(await password()).toBe("two");
  });
});
