// HarborScannerRegistration and HarborProject.spec.scanner end to end: kubectl → apiserver → the
// operator process → Harbor (the emulator). Harbor registers only an adapter that answers its ping,
// so each test puts the adapters it registers into the emulator's world first. Two operators: one
// with a short drift interval (drift, the default scanner kept, the sweep's cost), one with a drift
// interval too long to matter (exact request counts, a credential Secret pushed by its watch alone,
// Harbor's built-in Trivy). What every kind does alike (adoption, conflicts, a Secret that does not
// opt in, waits) is proven once in test/unit/runtime/managed-lifecycle.test.ts; the scanner's own
// decisions (request, diff, claim, identity) in test/unit/controllers/scanner-mapping.test.ts; its
// admission refusals in test/integration/cluster/admission.test.ts.
import { beforeAll, describe, expect, test } from "vitest";
import { comparableUrl } from "../../src/controllers/registry/mapping.ts";
import type { OperatorFixture } from "../env/operator.ts";
import { useOperator } from "../env/operator.ts";
import { harborCallsPerSweep } from "../env/operator-log.ts";
import {
  condition,
  eventOf,
  eventsOf,
  harborIdOf,
  type ProjectCR,
  project,
  type Resource,
  readyForSpec,
  type ScannerRegistrationCR,
  scannerRegistration,
  secret as secretOf,
} from "../env/resources.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KIND = "harborscannerregistration";

/** A credential Secret, opted in as a scanner credential and watched. */
const token = (name: string, credential: string) =>
  secretOf(name, { credential }, { usableAs: "scanner-credential", watched: true });

const bearer = (secretName: string) => ({
  auth: { type: "Bearer" as const, secretRef: { name: secretName } },
});

const adapter = (name: string) => `http://${name}-adapter:8080`;

const count = (op: OperatorFixture, o: string) => op.emulator.counters.total({ op: o });

/** The credential Harbor stores (its world holds it; the API shows it only as Harbor 2.12 does). */
const storedCredential = (op: OperatorFixture, uuid: string) =>
  op.emulator.world.scanners.get(uuid)?.access_credential;

/** `GET /api/v2.0/<path>` as Harbor's admin, past the operator's client: Harbor's own answer. */
async function harborApi<T>(op: OperatorFixture, path: string): Promise<T> {
  const auth = Buffer.from(`${op.emulator.adminUsername}:${op.emulator.adminPassword}`).toString("base64");
  const res = await fetch(`${op.emulator.url}/api/v2.0${path}`, {
    headers: { authorization: `Basic ${auth}`, "x-is-resource-name": "true" },
  });
  expect(res.status, path).toBe(200);
  const text = await res.text();
  return (text === "" ? undefined : JSON.parse(text)) as T;
}

interface HarborScanner {
  uuid: string;
  name: string;
  url: string;
  description?: string;
  auth?: string;
  disabled?: boolean;
  is_default?: boolean;
  skip_certVerify?: boolean;
  use_internal_addr?: boolean;
}

const uuidOf = async (op: OperatorFixture, name: string) =>
  harborIdOf<string>(await op.kubectl.get<ScannerRegistrationCR>(KIND, name));

describe("HarborScannerRegistration, with a short drift interval", () => {
  const op = useOperator({ namespacePrefix: "scan" });

  beforeAll(() => {
    for (const name of ["team", "moved", "second", "third", "down", "plain", "existing"])
      op.emulator.control.scanners.addAdapter(adapter(name));
  });

  test("apply → Ready: registered as written, with its credential, status showing the adapter and that Harbor made its first registration the default; a spec edit reaches Harbor; a change made in Harbor is reverted and named (a credential Harbor no longer shows is put back unnamed)", async () => {
    await op.kubectl.apply([
      token("team-token", "team-Token-1"),
      scannerRegistration("team", {
        description: "team scanner",
        useInternalAddr: true,
        ...bearer("team-token"),
      }),
    ]);
    const cr = await op.waitReady<ScannerRegistrationCR>(KIND, "team");
    const uuid = harborIdOf<string>(cr);
    expect(uuid).toMatch(UUID);
    expect(await op.harbor.scanners.get(uuid)).toMatchObject({
      name: "team",
      url: adapter("team"),
      description: "team scanner",
      auth: "Bearer",
      use_internal_addr: true,
      is_default: true,
    });
    expect(storedCredential(op, uuid)).toBe("team-Token-1");
    expect(cr.status).toMatchObject({
      isDefault: true,
      health: "healthy",
      adapter: { name: "Trivy", vendor: "Aqua Security", version: "v0.56.1" },
      capabilities: ["vulnerability", "sbom"],
      credentialsVersion: (await op.kubectl.get("secret", "team-token")).metadata.resourceVersion,
    });
    expect(cr.status?.builtIn).toBeUndefined();
    expect(JSON.stringify(cr)).not.toContain("team-Token-1");
    expect(JSON.stringify(await eventsOf(op.kubectl, "team"))).not.toContain("team-Token-1");
    expect(op.output()).not.toContain("team-Token-1");

    // By its short name, wide: the columns, those of priority 1 (URL, adapter, name in Harbor) too.
    const table = await op.kubectl.run(["get", "hscan", "-o", "wide"]);
    expect(table).toMatch(
      /NAME\s+READY\s+REASON\s+HARBOR ID\s+DEFAULT\s+HEALTH\s+URL\s+ADAPTER\s+HARBOR NAME\s+AGE/,
    );
    expect(table).toMatch(
      new RegExp(
        `team\\s+True\\s+Synced\\s+${uuid}\\s+true\\s+healthy\\s+${adapter("team")}\\s+Trivy\\s+team\\s`,
      ),
    );

    // A spec edit.
    await op.kubectl.apply(
      scannerRegistration("team", {
        url: `${adapter("moved")}/`,
        description: "moved",
        skipCertVerify: true,
        useInternalAddr: true,
        ...bearer("team-token"),
      }),
    );
    await op.waitFor<ScannerRegistrationCR>(KIND, "team", readyForSpec);
    expect(await op.harbor.scanners.get(uuid)).toMatchObject({
      url: adapter("moved"),
      description: "moved",
      skip_certVerify: true,
    });
    await eventOf(op.kubectl, "team", "HarborScannerRegistration", "Updated");

    // Changed in Harbor's UI.
    const current = await op.harbor.scanners.get(uuid);
    await op.harbor.scanners.update(uuid, {
      name: "team",
      url: current.url ?? "",
      description: "changed in the UI",
      auth: "Bearer",
      access_credential: "typed-in-the-UI",
      skip_certVerify: false,
      use_internal_addr: true,
    });
    const reverted = await op.waitFor<ScannerRegistrationCR>(
      KIND,
      "team",
      (o) => (o.status?.lastDriftCorrection?.fields.length ?? 0) >= 2,
    );
    expect(reverted.status?.lastDriftCorrection?.fields).toEqual(["description", "skipCertVerify"]);
    expect(await op.harbor.scanners.get(uuid)).toMatchObject({ description: "moved", skip_certVerify: true });
    // From 2.14.4 Harbor no longer shows a registration's credential, so one typed in its UI is not
    // named (scanner-mapping.test.ts: a shown one that differs is); the correction sends the whole
    // registration, the Secret's credential with it, so it is put back all the same.
    expect(storedCredential(op, uuid)).toBe("team-Token-1");
    await eventOf(op.kubectl, "team", "HarborScannerRegistration", "DriftCorrected");
  });

  test("steady state: a drift sweep lists the registrations once and reads none of them on its own; nothing is written", async () => {
    await op.kubectl.apply([
      scannerRegistration("plain"),
      scannerRegistration("existing-too", { url: adapter("existing") }),
    ]);
    await op.waitReady(KIND, "plain");
    await op.waitReady(KIND, "existing-too");
    // One sweep first, so that no reconcile of the creates is still reading.
    await op.sweeps("HarborScannerRegistration", 1);
    const writes = op.emulator.counters.writes();
    // Each of two whole sweeps, from the operator's log between sweep lines: a snapshot of the
    // emulator's counters could miss the list of a sweep that had begun before it was taken.
    const sweeps = await harborCallsPerSweep(op, "HarborScannerRegistration", 2);
    // Three registrations: reads per object would be three a sweep. Each sweep lists once.
    for (const sweep of sweeps) {
      expect(sweep.listScanners).toBe(1);
      expect(sweep.getScanner).toBeUndefined();
      expect(sweep.getScannerMetadata).toBeUndefined();
    }
    expect(op.emulator.counters.writes()).toBe(writes);
  });

  test("default: true takes Harbor's default and keeps it; a second one is Conflict naming the holder; the holder letting go hands it over", async () => {
    await op.kubectl.apply(scannerRegistration("second", { default: true }));
    const second = await op.waitReady<ScannerRegistrationCR>(KIND, "second");
    const secondUuid = harborIdOf<string>(second);
    expect(second.status?.isDefault).toBe(true);
    expect((await op.harbor.scanners.get(secondUuid)).is_default).toBe(true);
    // The registration that was the default shows it no longer is (the sweep refreshes its status).
    await op.waitFor<ScannerRegistrationCR>(KIND, "team", (o) => o.status?.isDefault === false);

    const creates = count(op, "createScanner");
    await op.kubectl.apply(scannerRegistration("third", { default: true }));
    const third = await op.waitFor<ScannerRegistrationCR>(
      KIND,
      "third",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(third, "Ready")?.message).toBe(
      `HarborScannerRegistration ${op.namespace}/second already holds Harbor's default scanner (spec.default: true) of this Harbor; only one resource may`,
    );
    expect(count(op, "createScanner")).toBe(creates);
    expect((await op.harbor.scanners.list()).map((s) => s.name)).not.toContain("third");

    // Moved in Harbor's UI: moved back.
    await op.harbor.scanners.setDefault(await uuidOf(op, "team"));
    const back = await op.waitFor<ScannerRegistrationCR>(
      KIND,
      "second",
      (o) => o.status?.lastDriftCorrection?.fields.includes("default") === true,
    );
    expect(back.status?.isDefault).toBe(true);
    expect((await op.harbor.scanners.get(secondUuid)).is_default).toBe(true);
    expect(condition(await op.kubectl.get<Resource>(KIND, "third"), "Ready")?.reason).toBe("Conflict");

    // The holder lets go: the one waiting takes it.
    await op.kubectl.apply(scannerRegistration("second", { default: false }));
    const taken = await op.waitReady<ScannerRegistrationCR>(KIND, "third");
    expect(taken.status?.isDefault).toBe(true);
    expect((await op.harbor.scanners.get(harborIdOf<string>(taken))).is_default).toBe(true);
  });

  test("disabling Harbor's default waits with DefaultScannerDisabled until another one is the default", async () => {
    await op.kubectl.apply(scannerRegistration("third", { disabled: true }));
    const waiting = await op.waitFor<ScannerRegistrationCR>(
      KIND,
      "third",
      (o) => condition(o, "Ready")?.reason === "DefaultScannerDisabled",
    );
    expect(condition(waiting, "Ready")?.message).toContain(
      "Harbor's default scanner, which Harbor keeps enabled",
    );
    expect(condition(waiting, "Stalled")).toBeUndefined();
    await op.kubectl.apply(scannerRegistration("second", { default: true }));
    const disabled = await op.waitFor<ScannerRegistrationCR>(KIND, "third", readyForSpec);
    expect((await op.harbor.scanners.get(harborIdOf<string>(disabled))).disabled).toBe(true);
  });

  test("an unreachable adapter is retried with ScannerUnreachable until it answers; one that goes away later shows unhealthy", async () => {
    op.emulator.control.scanners.setAdapterReachable(adapter("down"), false);
    await op.kubectl.apply(scannerRegistration("down"));
    const failing = await op.waitFor<ScannerRegistrationCR>(
      KIND,
      "down",
      (o) => condition(o, "Ready")?.reason === "ScannerUnreachable",
    );
    expect(condition(failing, "Ready")?.message).toContain(
      `Harbor cannot reach the scanner adapter at ${adapter("down")}`,
    );
    expect(condition(failing, "Stalled")).toBeUndefined();
    expect(failing.status?.harborId).toBeUndefined();
    // Nothing else changes: the retry alone creates it once the adapter answers.
    op.emulator.control.scanners.setAdapterReachable(adapter("down"), true);
    const up = await op.waitReady<ScannerRegistrationCR>(KIND, "down");
    expect(up.status?.health).toBe("healthy");

    // Registered, then the adapter goes: the next reconcile (a spec change here) sees it.
    op.emulator.control.scanners.setAdapterReachable(adapter("down"), false);
    await op.kubectl.apply(scannerRegistration("down", { description: "now down" }));
    const gone = await op.waitFor<ScannerRegistrationCR>(
      KIND,
      "down",
      (o) => condition(o, "Ready")?.reason === "ScannerUnreachable" && o.status?.observedGeneration === 2,
    );
    expect(gone.status?.health).toBe("unhealthy");
    expect(condition(gone, "Synced")?.status).toBe("True");
    // Back: the next reconcile shows it healthy again (a spec change rather than the 15 s look
    // again of a wait, which test/unit/runtime/managed-lifecycle.test.ts proves).
    op.emulator.control.scanners.setAdapterReachable(adapter("down"), true);
    await op.kubectl.apply(scannerRegistration("down", { description: "up again" }));
    const again = await op.waitFor<ScannerRegistrationCR>(KIND, "down", readyForSpec);
    expect(again.status?.health).toBe("healthy");
  });

  test("a project's scanner: a referenced registration, or Harbor's default, kept when changed in Harbor", async () => {
    await op.kubectl.apply([
      project("scanned", { scanner: { registrationRef: { name: "team" } } }),
      project("follows", { scanner: { systemDefault: true } }),
    ]);
    const teamUuid = await uuidOf(op, "team");
    const secondUuid = await uuidOf(op, "second"); // Harbor's default now
    const scanned = await op.waitReady<ProjectCR>("harborproject", "scanned");
    expect(scanned.status?.scanner).toEqual({ name: "team", uuid: teamUuid, inherited: false });
    expect((await op.harbor.scanners.getOfProject("scanned"))?.uuid).toBe(teamUuid);
    const follows = await op.waitReady<ProjectCR>("harborproject", "follows");
    expect(follows.status?.scanner).toEqual({ name: "second", uuid: secondUuid, inherited: true });

    // Changed in Harbor: put back.
    await op.harbor.scanners.setOfProject("scanned", secondUuid);
    await op.harbor.scanners.setOfProject("follows", teamUuid);
    for (const name of ["scanned", "follows"]) {
      const cr = await op.waitFor<ProjectCR>(
        "harborproject",
        name,
        (o) => o.status?.lastDriftCorrection?.fields.includes("scanner") === true,
      );
      expect(cr.status?.lastDriftCorrection?.fields).toEqual(["scanner"]);
    }
    expect((await op.harbor.scanners.getOfProject("scanned"))?.uuid).toBe(teamUuid);
    expect((await op.harbor.scanners.getOfProject("follows"))?.uuid).toBe(secondUuid);

    // Harbor's default moves (its holder changes): the project that follows it goes along.
    await op.kubectl.apply([
      scannerRegistration("second", { default: false }),
      scannerRegistration("plain", { default: true }),
    ]);
    const plainUuid = harborIdOf<string>(
      await op.waitFor<ScannerRegistrationCR>(KIND, "plain", (o) => o.status?.isDefault === true),
    );
    const moved = await op.waitFor<ProjectCR>(
      "harborproject",
      "follows",
      (o) => o.status?.scanner?.uuid === plainUuid,
    );
    expect(moved.status?.scanner).toEqual({ name: "plain", uuid: plainUuid, inherited: true });
  });

  test("an export of what the operator created, read straight from Harbor's API, matches the specs field for field", async () => {
    const crs = (
      await op.kubectl.get<{ items: Array<ScannerRegistrationCR & { spec: Record<string, unknown> }> }>(
        "harborscannerregistrations",
      )
    ).items.filter((o) => condition(o, "Ready")?.status === "True");
    expect(crs.length).toBeGreaterThanOrEqual(6);
    const inHarbor = await harborApi<HarborScanner[]>(op, "/scanners?page_size=100");
    for (const cr of crs) {
      const spec = cr.spec as {
        name?: string;
        url?: string;
        description?: string;
        auth?: { type: string; secretRef?: { name: string; key?: string } };
        skipCertVerify?: boolean;
        useInternalAddr?: boolean;
        disabled?: boolean;
        default?: boolean;
      };
      const r = inHarbor.find((s) => s.uuid === cr.status?.harborId);
      const what = `${cr.metadata.name} in Harbor`;
      expect(r, what).toBeDefined();
      const h = r as HarborScanner;
      expect(h.name, what).toBe(spec.name ?? cr.metadata.name);
      if (spec.url !== undefined) expect(comparableUrl(h.url), what).toBe(comparableUrl(spec.url));
      if (spec.description !== undefined) expect(h.description ?? "", what).toBe(spec.description);
      if (spec.skipCertVerify !== undefined)
        expect(h.skip_certVerify ?? false, what).toBe(spec.skipCertVerify);
      if (spec.useInternalAddr !== undefined)
        expect(h.use_internal_addr ?? false, what).toBe(spec.useInternalAddr);
      if (spec.disabled !== undefined) expect(h.disabled ?? false, what).toBe(spec.disabled);
      if (spec.default) expect(h.is_default, what).toBe(true);
      if (spec.auth) {
        expect(h.auth || "None", what).toBe(spec.auth.type);
        if (spec.auth.secretRef) {
          const secret = await op.kubectl.get<{ data: Record<string, string> }>(
            "secret",
            spec.auth.secretRef.name,
          );
          const value = Buffer.from(
            secret.data[spec.auth.secretRef.key ?? "credential"] ?? "",
            "base64",
          ).toString();
          expect(storedCredential(op, h.uuid), what).toBe(value);
        }
      }
    }
    // The projects' scanners, as Harbor answers for them.
    for (const name of ["scanned", "follows"]) {
      const cr = await op.kubectl.get<
        ProjectCR & { spec: { scanner: { registrationRef?: { name: string } } } }
      >("harborproject", name);
      const answer = await harborApi<HarborScanner>(op, `/projects/${name}/scanner`);
      const ref = cr.spec.scanner.registrationRef;
      if (ref) expect(answer.uuid, name).toBe(await uuidOf(op, ref.name));
      else expect(answer.is_default, name).toBe(true);
      expect(cr.status?.scanner?.uuid, name).toBe(answer.uuid);
    }
  });

  test("deleting a registration deletes it in Harbor; its project waits for it", async () => {
    const uuid = await uuidOf(op, "team");
    await op.kubectl.delete(KIND, "team", { wait: true });
    await expect(op.harbor.scanners.get(uuid)).rejects.toMatchObject({ kind: "notFound" });
    const waiting = await op.waitFor<ProjectCR>(
      "harborproject",
      "scanned",
      (o) => condition(o, "Ready")?.reason === "DependencyNotReady",
    );
    expect(condition(waiting, "Ready")?.message).toContain("HarborScannerRegistration team does not exist");
  });
});

describe("HarborScannerRegistration, with drift sweeps out of the way", () => {
  const op = useOperator({ namespacePrefix: "scan-quiet", driftInterval: "10m" });
  const ops = [
    "listScanners",
    "createScanner",
    "getScanner",
    "getScannerMetadata",
    "setScannerAsDefault",
    "updateScanner",
  ];
  const snapshot = () => Object.fromEntries(ops.map((o) => [o, count(op, o)]));
  const since = (before: Record<string, number>) =>
    Object.fromEntries(ops.map((o) => [o, count(op, o) - (before[o] as number)]));

  beforeAll(() => {
    for (const name of ["first", "next", "wanted", "keyed"])
      op.emulator.control.scanners.addAdapter(adapter(name));
  });

  test("a new registration converges in three Harbor requests; one more to take the default from another", async () => {
    let before = snapshot();
    await op.kubectl.apply(scannerRegistration("first"));
    const first = await op.waitReady<ScannerRegistrationCR>(KIND, "first");
    // Looked up in the list (which tells it will be Harbor's first, so its default), created, its adapter asked.
    expect(since(before)).toEqual({
      listScanners: 1,
      createScanner: 1,
      getScanner: 0,
      getScannerMetadata: 1,
      setScannerAsDefault: 0,
      updateScanner: 0,
    });
    expect(first.status?.isDefault).toBe(true);

    before = snapshot();
    await op.kubectl.apply(scannerRegistration("next"));
    expect((await op.waitReady<ScannerRegistrationCR>(KIND, "next")).status?.isDefault).toBe(false);
    expect(since(before)).toMatchObject({ listScanners: 1, createScanner: 1, getScannerMetadata: 1 });

    before = snapshot();
    await op.kubectl.apply(scannerRegistration("wanted", { default: true }));
    const wanted = await op.waitReady<ScannerRegistrationCR>(KIND, "wanted");
    expect(wanted.status?.isDefault).toBe(true);
    expect(since(before)).toEqual({
      listScanners: 1,
      createScanner: 1,
      getScanner: 0,
      getScannerMetadata: 1,
      setScannerAsDefault: 1,
      updateScanner: 0,
    });
  });

  test("a changed credential Secret is pushed by its watch alone, naming the field and never the value", async () => {
    await op.kubectl.apply([
      token("keyed-token", "keyed-Token-1"),
      scannerRegistration("keyed", bearer("keyed-token")),
    ]);
    const uuid = harborIdOf<string>(await op.waitReady<ScannerRegistrationCR>(KIND, "keyed"));
    expect(storedCredential(op, uuid)).toBe("keyed-Token-1");

    // With drift sweeps ten minutes apart and the registration in sync, only the watched Secret's
    // change can queue it.
    const before = snapshot();
    await op.kubectl.apply(token("keyed-token", "keyed-Token-2"));
    const version = (await op.kubectl.get("secret", "keyed-token")).metadata.resourceVersion;
    const cr = await op.waitFor<ScannerRegistrationCR>(
      KIND,
      "keyed",
      (o) => o.status?.credentialsVersion === version,
    );
    expect(storedCredential(op, uuid)).toBe("keyed-Token-2");
    expect(since(before)).toMatchObject({ createScanner: 0, updateScanner: 1 });
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["auth.secretRef"]);
    expect(JSON.stringify(cr)).not.toContain("keyed-Token-2");
    expect(JSON.stringify(await eventsOf(op.kubectl, "keyed"))).not.toContain("keyed-Token-2");
    expect(op.output()).not.toContain("keyed-Token-2");
  });

  test("Harbor's built-in Trivy: adopted read-only; a spec that differs is Stalled naming Harbor's values; deleting leaves it in Harbor", async () => {
    const trivyUuid = op.emulator.control.scanners.installTrivy();
    await op.kubectl.apply(
      scannerRegistration("builtin", { name: "Trivy", creationPolicy: "Adopt", url: undefined }),
    );
    const adopted = await op.waitReady<ScannerRegistrationCR>(KIND, "builtin");
    expect(adopted.status).toMatchObject({
      harborId: trivyUuid,
      builtIn: true,
      isDefault: true,
      health: "healthy",
    });

    const updates = count(op, "updateScanner");
    await op.kubectl.apply(
      scannerRegistration("builtin", {
        name: "Trivy",
        creationPolicy: "Adopt",
        url: "http://my-trivy:8080",
        useInternalAddr: true,
      }),
    );
    const stalled = await op.waitFor<ScannerRegistrationCR>(
      KIND,
      "builtin",
      (o) => condition(o, "Stalled")?.status === "True",
    );
    expect(condition(stalled, "Ready")?.reason).toBe("BuiltInScanner");
    expect(condition(stalled, "Ready")?.message).toContain(
      `"Trivy" is Harbor's built-in scanner registration, which Harbor lets nobody change (it answers 403, immutable); the spec differs in spec.url (Harbor has "http://trivy-adapter:8080")`,
    );
    expect(count(op, "updateScanner")).toBe(updates);

    // Only the default applies to it: taken back from "wanted" (which gives it up first).
    await op.kubectl.apply(scannerRegistration("wanted", { default: false }));
    await op.waitFor(KIND, "wanted", readyForSpec);
    await op.harbor.scanners.setDefault(await uuidOf(op, "wanted"));
    await op.kubectl.apply(
      scannerRegistration("builtin", {
        name: "Trivy",
        creationPolicy: "Adopt",
        url: undefined,
        default: true,
      }),
    );
    const holder = await op.waitFor<ScannerRegistrationCR>(KIND, "builtin", readyForSpec);
    expect(holder.status?.isDefault).toBe(true);
    expect((await op.harbor.scanners.get(trivyUuid)).is_default).toBe(true);
    expect(count(op, "updateScanner")).toBe(updates);

    await op.kubectl.delete(KIND, "builtin", { wait: true });
    expect((await op.harbor.scanners.get(trivyUuid)).name).toBe("Trivy");
    const orphaned = await eventOf(op.kubectl, "builtin", "HarborScannerRegistration", "Orphaned");
    expect(orphaned.message).toBe(
      `Left "Trivy", Harbor's built-in scanner registration, in Harbor: Harbor lets nobody delete it`,
    );
  });
});
