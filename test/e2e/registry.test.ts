// HarborRegistry end to end: kubectl → apiserver → the operator process → Harbor (the emulator).
// Two operators: one with a short drift interval (steady state, drift, the sweep finding a changed
// Secret), one with a drift interval too long to matter, so that what it shows comes from the Secret
// watch and from the reconcile alone (prompt credential push, exact request counts). The shared
// lifecycle (creationPolicy, Conflict, Orphan) is proven in
// test/unit/runtime/managed-lifecycle.test.ts; the kind's mapping and what its client decides (an
// unsupported or mismatched type, an unhealthy remote, a registry in use) in
// test/unit/controllers/registry-mapping.test.ts; what kubectl refuses, in
// test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { type OperatorFixture, useOperator } from "../env/operator.ts";
import { requestsOverSweeps } from "../env/operator-log.ts";
import {
  condition,
  eventOf,
  harborIdOf,
  type RegistryCR,
  readyForSpec,
  registry,
  secret as secretOf,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

/** A credential Secret, opted in as a registry credential (secret-opt-in.test.ts covers the rest). */
const secret = (name: string, accessKey: string, accessSecret: string, watched: boolean) =>
  secretOf(name, { accessKey, accessSecret }, { usableAs: "registry-credential", watched });

const credential = (secretName: string) => ({ credential: { secretRef: { name: secretName } } });

/** The secret Harbor stores (the API masks it; the emulator's world holds it). */
const storedSecret = (op: OperatorFixture, id: number) =>
  op.emulator.world.registries.get(id)?.credential?.access_secret;

const count = (op: OperatorFixture, o: string, method?: string) =>
  op.emulator.counters.total({ op: o, ...(method ? { method } : {}) });

const resourceVersion = async (op: OperatorFixture, name: string) =>
  (await op.kubectl.get("secret", name)).metadata.resourceVersion;

describe("HarborRegistry, with a short drift interval", () => {
  const op = useOperator({ namespacePrefix: "reg" });

  test("apply → Ready with the Harbor id in kubectl get; Harbor holds it as written", async () => {
    await op.kubectl.apply([
      secret("mirror-creds", "bot", "first-Secret1", true),
      registry("mirror", {
        url: "https://mirror.example.com/",
        description: "team mirror",
        ...credential("mirror-creds"),
      }),
    ]);
    const cr = await op.waitReady<RegistryCR>("harborregistry", "mirror");
    const id = harborIdOf(cr);
    const inHarbor = await op.harbor.registries.get(id);
    expect(inHarbor).toMatchObject({
      name: "mirror",
      type: "docker-registry",
      url: "https://mirror.example.com",
      description: "team mirror",
      credential: { type: "basic", access_key: "bot", access_secret: "*****" },
    });
    expect(inHarbor.insecure ?? false).toBe(false);
    expect(storedSecret(op, id)).toBe("first-Secret1");
    expect(cr.status).toMatchObject({
      health: "healthy",
      credentialsVersion: await resourceVersion(op, "mirror-creds"),
    });
    expect(JSON.stringify(cr)).not.toContain("first-Secret1");

    const table = await op.kubectl.run(["get", "harborregistries"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+TYPE\s+HEALTH\s+AGE/);
    expect(table).toMatch(new RegExp(`mirror\\s+True\\s+Synced\\s+${id}\\s+docker-registry\\s+healthy\\s`));
  });

  test("steady state: no Harbor writes and no per-registry reads, though the URL is written differently", async () => {
    const { writes, requests } = await requestsOverSweeps(op, "HarborRegistry", 2);
    expect(writes).toBe(0);
    // The sweep reads every registry of the connection in one list.
    expect(requests).toEqual({ listRegistries: 2 });
  });

  test("editing the YAML changes Harbor; a change made in Harbor is reverted and named", async () => {
    await op.kubectl.apply(
      registry("mirror", {
        url: "https://mirror.example.com/v2",
        description: "moved",
        insecure: true,
        ...credential("mirror-creds"),
      }),
    );
    const cr = await op.waitFor<RegistryCR>("harborregistry", "mirror", readyForSpec);
    const id = harborIdOf(cr);
    expect(await op.harbor.registries.get(id)).toMatchObject({
      url: "https://mirror.example.com/v2",
      description: "moved",
      insecure: true,
    });
    expect(cr.status?.lastDriftCorrection).toBeUndefined();
    await eventOf(op.kubectl, "mirror", "HarborRegistry", "Updated");

    // Someone edits it in Harbor: the drift sweep puts it back and names what it reverted.
    await op.harbor.registries.update(id, { description: "by hand", url: "https://elsewhere.example.com" });
    await until("the registry to be reverted in Harbor", async () => {
      const r = await op.harbor.registries.get(id);
      return r.description === "moved" && r.url === "https://mirror.example.com/v2" ? r : undefined;
    });
    const reverted = await op.waitFor<RegistryCR>(
      "harborregistry",
      "mirror",
      (o) => o.status?.lastDriftCorrection !== undefined,
    );
    expect(reverted.status?.lastDriftCorrection?.fields).toEqual(["url", "description"]);
    const drift = await eventOf(op.kubectl, "mirror", "HarborRegistry", "DriftCorrected");
    expect(drift.message).toBe("Reverted changes made in Harbor to url, description");
    expect(storedSecret(op, id)).toBe("first-Secret1");
  });

  test("a changed credential Secret without the watch label is pushed by the drift sweep", async () => {
    await op.kubectl.apply([
      secret("quiet-creds", "quiet", "quiet-Secret1", false),
      registry("quiet", { url: "https://quiet.example.com", ...credential("quiet-creds") }),
    ]);
    const id = harborIdOf(await op.waitReady<RegistryCR>("harborregistry", "quiet"));
    await op.kubectl.apply(secret("quiet-creds", "quiet", "quiet-Secret2", false));
    const version = await resourceVersion(op, "quiet-creds");
    await op.waitFor<RegistryCR>("harborregistry", "quiet", (o) => o.status?.credentialsVersion === version);
    expect(storedSecret(op, id)).toBe("quiet-Secret2");
  });

  test("waits for its credentials Secret, then syncs", async () => {
    await op.kubectl.apply(
      registry("late-creds", { url: "https://late.example.com", ...credential("late-creds") }),
    );
    const waiting = await op.waitFor<RegistryCR>(
      "harborregistry",
      "late-creds",
      (o) => condition(o, "Ready")?.reason === "SecretNotFound",
    );
    expect(condition(waiting, "Ready")?.message).toContain("late-creds");
    await op.kubectl.apply(secret("late-creds", "late", "late-Secret1", true));
    const cr = await op.waitReady<RegistryCR>("harborregistry", "late-creds");
    expect(storedSecret(op, harborIdOf(cr))).toBe("late-Secret1");
  });

  test("an unreachable remote shows Harbor's message and is retried until it is up", async () => {
    op.emulator.control.registries.setHealth("https://down.example.com", false);
    await op.kubectl.apply(registry("down", { url: "https://down.example.com" }));
    const failing = await op.waitFor<RegistryCR>(
      "harborregistry",
      "down",
      (o) => condition(o, "Ready")?.reason === "RegistryUnhealthy",
    );
    expect(condition(failing, "Ready")?.message).toContain("the registry is unhealthy");
    expect(condition(failing, "Stalled")).toBeUndefined();
    op.emulator.control.registries.setHealth("https://down.example.com", true);
    const cr = await op.waitReady<RegistryCR>("harborregistry", "down");
    expect((await op.harbor.registries.get(harborIdOf(cr))).name).toBe("down");
  });

  test("deletion waits, with Harbor's reason, while a replication policy uses the registry; then removes it from Harbor", async () => {
    const id = harborIdOf(await op.kubectl.get<RegistryCR>("harborregistry", "mirror"));
    const policy = await op.harbor.replication.createPolicy({
      name: "uses-it",
      src_registry: { id: 0 },
      dest_registry: { id },
    });

    await op.kubectl.delete("harborregistry", "mirror");
    const blocked = await op.waitFor<RegistryCR>(
      "harborregistry",
      "mirror",
      (o) => condition(o, "Ready")?.reason === "DeletionBlocked",
    );
    expect(condition(blocked, "Ready")?.message).toContain("referenced by replication policies");
    await op.harbor.replication.deletePolicy(policy);
    await op.kubectl.wait("harborregistry", "mirror", "delete", budget.operatorMs);
    await expect(op.harbor.registries.get(id)).rejects.toMatchObject({ kind: "notFound" });
  });
});

describe("HarborRegistry, with drift sweeps out of the way", () => {
  const op = useOperator({ namespacePrefix: "reg-watch", driftInterval: "10m" });

  test("converging a new registry costs 3 Harbor requests plus the provider list once", async () => {
    const ops = [
      "listRegistries",
      "createRegistry",
      "getRegistry",
      "listRegistryProviderTypes",
      "updateRegistry",
    ];
    // The Secret first: its watch event then finds no registry to queue a second time.
    await op.kubectl.apply(secret("watched-creds", "watcher", "watched-Secret1", true));
    const before = Object.fromEntries(ops.map((o) => [o, count(op, o)]));
    await op.kubectl.apply(
      registry("watched", { url: "https://watched.example.com", ...credential("watched-creds") }),
    );
    await op.waitReady("harborregistry", "watched");
    const spent = Object.fromEntries(ops.map((o) => [o, count(op, o) - (before[o] as number)]));
    // Observe by name, create, read back; the provider types are read once per connection.
    expect(spent).toEqual({
      listRegistries: 1,
      createRegistry: 1,
      getRegistry: 1,
      listRegistryProviderTypes: 1,
      updateRegistry: 0,
    });
    await op.kubectl.apply(registry("second", { url: "https://second.example.com" }));
    await op.waitReady("harborregistry", "second");
    expect(count(op, "listRegistryProviderTypes") - (before.listRegistryProviderTypes as number)).toBe(1);
  });

  test("a changed credential Secret labelled for watching is pushed at once", async () => {
    const id = harborIdOf(await op.kubectl.get<RegistryCR>("harborregistry", "watched"));
    await op.kubectl.apply(secret("watched-creds", "watcher", "watched-Secret2", true));
    const version = await resourceVersion(op, "watched-creds");
    // No drift sweep runs in this operator's lifetime: only the Secret watch can bring this about.
    await op.waitFor<RegistryCR>(
      "harborregistry",
      "watched",
      (o) => o.status?.credentialsVersion === version,
    );
    expect(storedSecret(op, id)).toBe("watched-Secret2");
    expect((await op.harbor.registries.get(id)).credential?.access_secret).toBe("*****");
  });
});
