// HarborProject end to end: kubectl → apiserver → the operator process → Harbor (the emulator).
// The cases every kind goes through the same way (adoption, a second claim, deletion and Orphan,
// drift) are proven end to end here, on projects, once; the other kinds' files test what is their
// own. test/unit/runtime/managed-lifecycle.test.ts holds the decisions for every case.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  connection,
  credentials,
  eventReasons,
  eventsOf,
  type ProjectCR,
  project,
  ready,
  registry,
} from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "proj" });

describe("HarborProject", () => {
  test("apply → Ready, with the Harbor id in kubectl get", async () => {
    await op.kubectl.apply(project("alpha", { public: true, autoScan: true, storageLimit: "10Gi" }));
    const cr = await op.waitReady<ProjectCR>("harborproject", "alpha");
    const inHarbor = await op.harbor.projects.get("alpha");
    expect(cr.status?.harborId).toBe(inHarbor.project_id);
    expect(inHarbor.metadata).toMatchObject({ public: "true", auto_scan: "true" });
    expect(cr.status).toMatchObject({
      owner: "admin",
      repositoryCount: 0,
      deletable: true,
      quota: { hard: "10Gi", used: "0" },
    });
    expect(cr.metadata.finalizers).toContain("harborconfig.io/finalizer");

    const table = await op.kubectl.run(["get", "harborprojects"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+AGE/);
    expect(table).toMatch(new RegExp(`alpha\\s+True\\s+Synced\\s+${inHarbor.project_id}\\s`));
    expect(await op.kubectl.run(["get", "harbor"])).toContain("harborproject.harborconfig.io/alpha");
  });

  test("editing the YAML changes Harbor", async () => {
    await op.kubectl.apply(
      project("alpha", { public: false, autoScan: true, severity: "high", preventVulnerable: true }),
    );
    await op.waitFor<ProjectCR>("harborproject", "alpha", (o) => ready(o)?.status === "True");
    await expect
      .poll(async () => (await op.harbor.projects.get("alpha")).metadata, { timeout: 30_000 })
      .toMatchObject({
        public: "false",
        severity: "high",
        prevent_vul: "true",
      });
  });

  test("a change made in Harbor behind the operator's back is reverted and named", async () => {
    const before = await op.kubectl.get<ProjectCR>("harborproject", "alpha");
    await op.harbor.projects.update("alpha", { metadata: { public: "true", auto_scan: "false" } });
    const after = await op.waitFor<ProjectCR>(
      "harborproject",
      "alpha",
      (o) => (o.status?.lastDriftCorrection?.fields ?? []).includes("public"),
      30_000,
    );
    expect(after.status?.lastDriftCorrection?.fields.sort()).toEqual(["autoScan", "public"]);
    expect((await op.harbor.projects.get("alpha")).metadata).toMatchObject({
      public: "false",
      auto_scan: "true",
    });
    expect(after.status?.harborId).toBe(before.status?.harborId);
    expect(await eventReasons(op.kubectl, "alpha")).toContain("DriftCorrected");
  });

  test("steady state makes no Harbor writes", async () => {
    const before = op.emulator.counters.writes();
    await new Promise((r) => setTimeout(r, 8_000)); // more than two drift intervals of 3 s
    expect(op.emulator.counters.writes()).toBe(before);
  });

  test("invalid YAML is rejected by kubectl with a clear message", async () => {
    const bad = await op.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(project("bad-name", { name: "Not_Valid" })),
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/spec\.name/);
    const needsSeverity = await op.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(project("no-severity", { preventVulnerable: true })),
    });
    expect(needsSeverity.stderr).toContain("preventVulnerable needs a severity");
    const immutable = await op.kubectl.tryRun(["apply", "-f", "-"], {
      input: JSON.stringify(project("alpha", { name: "renamed" })),
    });
    expect(immutable.code).not.toBe(0);
    expect(immutable.stderr).toContain("name is immutable");
  });

  test("an existing Harbor project is refused under Create and adopted under CreateOrAdopt or Adopt", async () => {
    await op.harbor.projects.create({ project_name: "existing", metadata: { public: "true" } });
    await op.kubectl.apply(project("existing"));
    const refused = await op.waitFor<ProjectCR>(
      "harborproject",
      "existing",
      (o) => ready(o)?.reason === "AlreadyExists",
    );
    expect(condition(refused, "Stalled")?.status).toBe("True");
    expect(ready(refused)?.message).toContain("creationPolicy");
    expect((await op.harbor.projects.get("existing")).metadata?.public).toBe("true"); // left alone

    const adoptOnly = await op.harbor.projects.create({ project_name: "adopt-only" });
    await op.kubectl.apply([
      project("existing", { creationPolicy: "CreateOrAdopt" }),
      project("adopt-only", { creationPolicy: "Adopt", public: true }),
    ]);
    const adopted = await op.waitReady<ProjectCR>("harborproject", "existing");
    expect(adopted.status?.harborId).toBe((await op.harbor.projects.get("existing")).project_id);
    expect((await op.harbor.projects.get("existing")).metadata?.public).toBe("false"); // the spec now rules
    expect((await op.waitReady<ProjectCR>("harborproject", "adopt-only")).status?.harborId).toBe(adoptOnly);
    expect((await op.harbor.projects.get("adopt-only")).metadata?.public).toBe("true");
  });

  test("a second resource claiming the same Harbor project gets Conflict and never touches it", async () => {
    await op.kubectl.apply(project("alpha-twin", { name: "alpha", public: true }));
    const twin = await op.waitFor<ProjectCR>(
      "harborproject",
      "alpha-twin",
      (o) => ready(o)?.reason === "Conflict",
    );
    expect(ready(twin)?.message).toContain("alpha");
    expect((await op.harbor.projects.get("alpha")).metadata?.public).toBe("false");
    await op.kubectl.delete("harborproject", "alpha-twin", { wait: true });
    expect(await op.harbor.projects.exists("alpha")).toBe(true);
  });

  test("a project holding repositories is kept, with Harbor's reason, until it is emptied", async () => {
    await op.kubectl.apply(project("busy"));
    await op.waitReady("harborproject", "busy");
    op.emulator.control.projects.addRepository("busy", "app");
    await op.kubectl.delete("harborproject", "busy");
    const blocked = await op.waitFor<ProjectCR>(
      "harborproject",
      "busy",
      (o) => ready(o)?.reason === "DeletionBlocked",
    );
    expect(ready(blocked)?.message).toContain("the project contains repositories");
    expect(await op.harbor.projects.exists("busy")).toBe(true);
    op.emulator.control.projects.removeRepository("busy", "app");
    await op.kubectl.wait("harborproject", "busy", "delete", 90_000);
    expect(await op.harbor.projects.exists("busy")).toBe(false);
  });

  test("delete removes the project from Harbor; Orphan keeps it", async () => {
    await op.kubectl.apply([project("gone"), project("kept", { deletionPolicy: "Orphan" })]);
    await op.waitReady("harborproject", "gone");
    await op.waitReady("harborproject", "kept");
    await op.kubectl.delete("harborproject", "gone", { wait: true });
    await op.kubectl.delete("harborproject", "kept", { wait: true });
    expect(await op.harbor.projects.exists("gone")).toBe(false);
    expect(await op.harbor.projects.exists("kept")).toBe(true);
  });
});

describe("HarborProject storage limit: kept in Harbor's quota", () => {
  const GiB = 2 ** 30;
  const hardInHarbor = async (name: string) => {
    const id = (await op.harbor.projects.get(name)).project_id as number;
    return (await op.harbor.quotas.ofProject(id))?.hard?.storage;
  };

  test("a storageLimit change reaches Harbor's quota", async () => {
    await op.kubectl.apply(project("quota-a", { storageLimit: "10Gi" }));
    await op.waitReady("harborproject", "quota-a");
    expect(await hardInHarbor("quota-a")).toBe(10 * GiB);

    await op.kubectl.apply(project("quota-a", { storageLimit: "20Gi" }));
    const raised = await op.waitFor<ProjectCR>(
      "harborproject",
      "quota-a",
      (o) => ready(o)?.status === "True" && o.status?.quota?.hard === "20Gi",
      30_000,
    );
    expect(await hardInHarbor("quota-a")).toBe(20 * GiB);
    expect(ready(raised)?.reason).toBe("Synced");

    await op.kubectl.apply(project("quota-a", { storageLimit: "unlimited" }));
    await op.waitFor<ProjectCR>(
      "harborproject",
      "quota-a",
      (o) => o.status?.quota?.hard === "unlimited",
      30_000,
    );
    expect(await hardInHarbor("quota-a")).toBe(-1);
    expect((await eventsOf(op.kubectl, "quota-a")).map((e) => e.message)).toContainEqual(
      expect.stringContaining("Updated storageLimit"),
    );
  });

  test("a quota changed in Harbor is put back and named", async () => {
    await op.kubectl.apply(project("quota-b", { storageLimit: "5Gi" }));
    await op.waitReady("harborproject", "quota-b");
    const id = (await op.harbor.projects.get("quota-b")).project_id as number;
    const quotaId = (await op.harbor.quotas.ofProject(id))?.id as number;

    // Someone raises the limit in Harbor's UI.
    await op.harbor.quotas.update(quotaId, { storage: 50 * GiB });
    const after = await op.waitFor<ProjectCR>(
      "harborproject",
      "quota-b",
      (o) => (o.status?.lastDriftCorrection?.fields ?? []).includes("storageLimit"),
      30_000,
    );
    expect(after.status?.lastDriftCorrection?.fields).toEqual(["storageLimit"]);
    expect(await hardInHarbor("quota-b")).toBe(5 * GiB);
    expect(after.status?.quota?.hard).toBe("5Gi");
  });

  test("the quota's usage shows in status as Harbor counts it, without a write", async () => {
    await op.kubectl.apply(project("quota-c", { storageLimit: "1Gi" }));
    await op.waitReady("harborproject", "quota-c");
    const updates = op.emulator.counters.total({ op: "updateQuota" });
    op.emulator.control.projects.addRepository("quota-c", "app", 1, 3 * 2 ** 20);
    await op.waitFor<ProjectCR>("harborproject", "quota-c", (o) => o.status?.quota?.used === "3Mi", 30_000);
    expect(op.emulator.counters.total({ op: "updateQuota" })).toBe(updates);
    op.emulator.control.projects.removeRepository("quota-c", "app");
  });

  test("a limit Harbor refuses to change shows Harbor's answer, not Synced", async () => {
    // A connection whose user is no Harbor admin: Harbor refuses it every quota operation.
    op.emulator.control.users.add({ username: "teamlead", password: "Teamlead12345" });
    await op.kubectl.apply([
      credentials("teamlead-credentials", { username: "teamlead", password: "Teamlead12345" }),
      connection("teamlead", op.emulator.url, "teamlead-credentials"),
    ]);
    await op.waitReady("harborconnection", "teamlead");
    // The user administers the project (non-admins cannot look up projects they are not in).
    await op.harbor.projects.create({ project_name: "quota-refused" });
    op.emulator.control.users.setMember("quota-refused", "teamlead", "projectAdmin");
    await op.kubectl.apply(
      project("quota-refused", {
        connectionRef: { name: "teamlead" },
        creationPolicy: "Adopt",
        storageLimit: "5Gi",
      }),
    );
    const refused = await op.waitFor<ProjectCR>(
      "harborproject",
      "quota-refused",
      (o) => ready(o)?.reason === "HarborForbidden",
      30_000,
    );
    expect(ready(refused)?.status).toBe("False");
    expect(ready(refused)?.message).toContain("storageLimit is not applied");
    expect(ready(refused)?.message).toContain(": teamlead"); // Harbor's message: the caller's name
    expect(ready(refused)?.message).toContain("only system administrators");
    expect(condition(refused, "Synced")?.status).toBe("False");
    // Harbor kept its default.
    expect(await hardInHarbor("quota-refused")).toBe(-1);

    // Made a Harbor admin, the same user gets the limit set.
    const lead = op.emulator.world.identities.byName("teamlead");
    if (lead) lead.sysadmin = true;
    await op.waitFor<ProjectCR>(
      "harborproject",
      "quota-refused",
      (o) => ready(o)?.status === "True" && o.status?.quota?.hard === "5Gi",
      60_000,
    );
    expect(await hardInHarbor("quota-refused")).toBe(5 * GiB);
  });

  test("without system access a limit that holds is Synced, and one changed in Harbor is found and said", async () => {
    // teamlead (made admin above) is a plain user again; a project whose limit already holds.
    const lead = op.emulator.world.identities.byName("teamlead");
    if (lead) lead.sysadmin = false;
    await op.harbor.projects.create({ project_name: "quota-held", storage_limit: 5 * GiB });
    op.emulator.control.users.setMember("quota-held", "teamlead", "projectAdmin");
    await op.kubectl.apply(
      project("quota-held", {
        connectionRef: { name: "teamlead" },
        creationPolicy: "Adopt",
        storageLimit: "5Gi",
      }),
    );
    const held = await op.waitReady<ProjectCR>("harborproject", "quota-held");
    expect(held.status?.quota?.hard).toBe("5Gi"); // read from the summary

    // An admin changes it in Harbor: the drift sweep reads the summary, and the operator says
    // that it cannot put the limit back.
    const id = (await op.harbor.projects.get("quota-held")).project_id as number;
    await op.harbor.quotas.update((await op.harbor.quotas.ofProject(id))?.id as number, { storage: 8 * GiB });
    const refused = await op.waitFor<ProjectCR>(
      "harborproject",
      "quota-held",
      (o) => ready(o)?.reason === "HarborForbidden",
      30_000,
    );
    expect(ready(refused)?.message).toContain("storageLimit is not applied");
    expect(await hardInHarbor("quota-held")).toBe(8 * GiB);
  });
});

describe("HarborProject fields Harbor fixes at creation", () => {
  const cache = (spec: Record<string, unknown>) => project("cache", spec);
  const refusal = async (manifest: object) =>
    (await op.kubectl.tryRun(["apply", "-f", "-"], { input: JSON.stringify(manifest) })).stderr;

  test("a proxy cache's speedKbps changes in Harbor; being one, and of which registry, cannot change", async () => {
    await op.kubectl.apply([registry("hub"), registry("other")]);
    await op.waitReady("harborregistry", "hub");
    await op.kubectl.apply(cache({ proxyCache: { registryRef: { name: "hub" }, speedKbps: 100 } }));
    await op.waitReady("harborproject", "cache", 60_000);
    expect((await op.harbor.projects.get("cache")).metadata?.proxy_speed_kb).toBe("100");

    await op.kubectl.apply(cache({ proxyCache: { registryRef: { name: "hub" }, speedKbps: 200 } }));
    await expect
      .poll(async () => (await op.harbor.projects.get("cache")).metadata?.proxy_speed_kb, { timeout: 30_000 })
      .toBe("200");

    const immutable = "proxyCache and proxyCache.registryRef are immutable";
    expect(await refusal(cache({ proxyCache: { registryRef: { name: "other" } } }))).toContain(immutable);
    expect(await refusal(cache({}))).toContain(immutable);
    expect(await refusal(project("alpha", { proxyCache: { registryRef: { name: "hub" } } }))).toContain(
      immutable,
    );
    expect(
      await refusal(
        project("cache-trust", { contentTrust: true, proxyCache: { registryRef: { name: "hub" } } }),
      ),
    ).toContain("contentTrust cannot be true on a proxy-cache project");
  });
});

describe("HarborProject request costs", () => {
  // A drift interval too long to matter: what is counted comes from the reconcile alone.
  const quiet = useOperator({ namespacePrefix: "proj-n", driftInterval: "1h" });

  test("converging a new project costs at most 3 Harbor requests: look up, create, its quota", async () => {
    const before = quiet.emulator.counters.list();
    await quiet.kubectl.apply(project("counted", { storageLimit: "3Gi" }));
    const cr = await quiet.waitReady<ProjectCR>("harborproject", "counted");
    await new Promise((r) => setTimeout(r, 1_500)); // let any follow-up reconcile happen
    // The lookup by name (404), the create, and the quota's read-back, which names the project.
    expect(quiet.emulator.counters.since(before)).toEqual({ getProject: 1, createProject: 1, listQuotas: 1 });
    // Status shows the limit Harbor holds, read back, not the one asked for.
    expect(cr.status?.quota).toEqual({ hard: "3Gi", used: "0" });
  });

  test("a reconcile of a project in sync reads the project and its quota and writes nothing", async () => {
    const before = quiet.emulator.counters.list();
    await quiet.kubectl.run(["annotate", "harborproject", "counted", "example.com/touch=1"]);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(quiet.emulator.counters.since(before)).toEqual({ getProject: 1, listQuotas: 1 });
  });
});
