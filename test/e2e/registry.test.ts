// HarborRegistry end to end: kubectl → apiserver → the operator process → Harbor (the emulator).
// Two operators: one with a short drift interval (steady state, the sweep finding a changed Secret),
// one with a drift interval too long to matter, so that what it shows comes from the Secret watch
// and from the reconcile alone (prompt credential push, exact request counts). Refusal and adoption,
// Orphan and drift go as for every kind: project.test.ts proves them once.
import { describe, expect, test } from "vitest";
import { type OperatorFixture, useOperator } from "../env/operator.ts";
import {
  condition,
  eventReasons,
  invalid,
  type RegistryCR,
  readyForSpec,
  registry,
  secret as secretOf,
} from "../env/resources.ts";

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
    const id = cr.status?.harborId as number;
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
    const writes = () => op.emulator.counters.writes();
    const before = { writes: writes(), gets: count(op, "getRegistry"), lists: count(op, "listRegistries") };
    await new Promise((r) => setTimeout(r, 8_000)); // more than two drift intervals of 3 s
    expect(writes()).toBe(before.writes);
    expect(count(op, "getRegistry")).toBe(before.gets);
    expect(count(op, "listRegistries")).toBeGreaterThan(before.lists); // the sweep did read, in a list
  });

  test("editing the YAML changes Harbor", async () => {
    await op.kubectl.apply(
      registry("mirror", {
        url: "https://mirror.example.com/v2",
        description: "moved",
        insecure: true,
        ...credential("mirror-creds"),
      }),
    );
    const cr = await op.waitFor<RegistryCR>("harborregistry", "mirror", readyForSpec);
    expect(await op.harbor.registries.get(cr.status?.harborId as number)).toMatchObject({
      url: "https://mirror.example.com/v2",
      description: "moved",
      insecure: true,
    });
    expect(cr.status?.lastDriftCorrection).toBeUndefined();
    await expect.poll(() => eventReasons(op.kubectl, "mirror")).toContain("Updated");
  });

  test("a changed credential Secret without the watch label is pushed by the drift sweep", async () => {
    await op.kubectl.apply([
      secret("quiet-creds", "quiet", "quiet-Secret1", false),
      registry("quiet", { url: "https://quiet.example.com", ...credential("quiet-creds") }),
    ]);
    const id = (await op.waitReady<RegistryCR>("harborregistry", "quiet")).status?.harborId as number;
    await op.kubectl.apply(secret("quiet-creds", "quiet", "quiet-Secret2", false));
    const version = await resourceVersion(op, "quiet-creds");
    await op.waitFor<RegistryCR>(
      "harborregistry",
      "quiet",
      (o) => o.status?.credentialsVersion === version,
      30_000,
    );
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
    expect(storedSecret(op, cr.status?.harborId as number)).toBe("late-Secret1");
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
    const cr = await op.waitReady<RegistryCR>("harborregistry", "down", 45_000);
    expect((await op.harbor.registries.get(cr.status?.harborId as number)).name).toBe("down");
  });

  test("a type this Harbor does not support stalls, naming the types it does; a type change is refused", async () => {
    const creates = count(op, "createRegistry");
    await op.kubectl.apply(registry("odd", { type: "quay-io", url: "https://odd.example.com" }));
    const stalled = await op.waitFor<RegistryCR>(
      "harborregistry",
      "odd",
      (o) => condition(o, "Stalled")?.status === "True",
    );
    expect(condition(stalled, "Ready")?.reason).toBe("UnsupportedType");
    expect(condition(stalled, "Ready")?.message).toMatch(/"quay-io".*docker-hub.*github-ghcr/);
    expect(count(op, "createRegistry")).toBe(creates);
    // Fixing the spec clears it.
    await op.kubectl.apply(registry("odd", { type: "quay", url: "https://odd.example.com" }));
    const fixed = await op.waitReady<RegistryCR>("harborregistry", "odd");
    expect(condition(fixed, "Stalled")).toBeUndefined();

    // Harbor cannot change the type of a registry it holds: kubectl refuses the change.
    const changed = await op.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(registry("odd", { type: "harbor", url: "https://odd.example.com" })),
    });
    expect(changed.code).not.toBe(0);
    expect(changed.stderr).toContain(
      `spec.type: Invalid value: type is immutable once the registry exists in Harbor (status.harborId ${fixed.status?.harborId}): Harbor cannot change the type of an existing registry; it stays "quay"`,
    );

    // Adopting a registry of another type is refused by the operator, and Harbor left alone.
    const updates = count(op, "updateRegistry");
    const existing = await op.harbor.registries.create({
      name: "other-type",
      type: "quay",
      url: "https://other.example.com",
      insecure: false,
    });
    await op.kubectl.apply(
      registry("other-type", { type: "harbor", url: "https://other.example.com", creationPolicy: "Adopt" }),
    );
    const mismatch = await op.waitFor<RegistryCR>(
      "harborregistry",
      "other-type",
      (o) => condition(o, "Ready")?.reason === "TypeMismatch",
    );
    expect(condition(mismatch, "Stalled")?.status).toBe("True");
    expect(condition(mismatch, "Ready")?.message).toContain("cannot change a registry's type");
    expect(count(op, "updateRegistry")).toBe(updates);
    expect((await op.harbor.registries.get(existing)).type).toBe("quay");
    await op.kubectl.delete("harborregistry", "other-type", { wait: true });
  });

  test("invalid YAML is rejected by kubectl with a clear message", async () => {
    const badUrl = await op.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(registry("bad-url", { url: "ftp://files.example.com" })),
    });
    expect(badUrl.code).not.toBe(0);
    expect(badUrl.stderr).toMatch(/spec\.url/);
    const rename = await op.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(registry("mirror", { name: "renamed", url: "https://mirror.example.com/v2" })),
    });
    expect(rename.code).not.toBe(0);
    expect(rename.stderr).toContain("name is immutable");
    const badCredential = await op.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(
        registry("bad-cred", {
          url: "https://x.example.com",
          credential: { type: invalid("token"), secretRef: { name: "s" } },
        }),
      ),
    });
    expect(badCredential.code).not.toBe(0);
    expect(badCredential.stderr).toMatch(/spec\.credential\.type/);
  });

  test("an adopted registry takes the spec's credential from its Secret", async () => {
    const existing = await op.harbor.registries.create({
      name: "old-mirror",
      type: "docker-hub",
      url: "https://hub.example.com",
    });
    await op.kubectl.apply([
      secret("hub-creds", "hubbot", "hub-Secret1", true),
      registry("old-mirror", {
        type: "docker-hub",
        url: "https://hub.example.com",
        creationPolicy: "Adopt",
        ...credential("hub-creds"),
      }),
    ]);
    expect((await op.waitReady<RegistryCR>("harborregistry", "old-mirror")).status?.harborId).toBe(existing);
    expect((await op.harbor.registries.get(existing)).credential).toMatchObject({ access_key: "hubbot" });
    expect(storedSecret(op, existing)).toBe("hub-Secret1");
  });

  test("a registry in use is kept, with Harbor's reason, until it is free", async () => {
    await op.kubectl.apply(registry("used", { url: "https://used.example.com" }));
    const used = (await op.waitReady<RegistryCR>("harborregistry", "used")).status?.harborId as number;
    const policy = await op.harbor.replication.createPolicy({
      name: "uses-it",
      src_registry: { id: 0 },
      dest_registry: { id: used },
    });

    await op.kubectl.delete("harborregistry", "used");
    const blocked = await op.waitFor<RegistryCR>(
      "harborregistry",
      "used",
      (o) => condition(o, "Ready")?.reason === "DeletionBlocked",
    );
    expect(condition(blocked, "Ready")?.message).toContain("referenced by replication policies");
    await op.harbor.replication.deletePolicy(policy);
    await op.kubectl.wait("harborregistry", "used", "delete", 45_000);
    await expect(op.harbor.registries.get(used)).rejects.toMatchObject({ kind: "notFound" });
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
    const id = (await op.kubectl.get<RegistryCR>("harborregistry", "watched")).status?.harborId as number;
    await op.kubectl.apply(secret("watched-creds", "watcher", "watched-Secret2", true));
    const version = await resourceVersion(op, "watched-creds");
    // No drift sweep runs in this operator's lifetime: only the Secret watch can bring this about.
    await op.waitFor<RegistryCR>(
      "harborregistry",
      "watched",
      (o) => o.status?.credentialsVersion === version,
      30_000,
    );
    expect(storedSecret(op, id)).toBe("watched-Secret2");
    expect((await op.harbor.registries.get(id)).credential?.access_secret).toBe("*****");
  });
});
