// HarborProject end to end: kubectl → apiserver → the operator process → Harbor (the emulator).
// The lifecycle every kind shares is decided in test/unit/runtime/managed-lifecycle.test.ts; it is
// walked end to end here, on projects, once (Ready, a spec edit, drift reverted, adoption, a second
// claim, Delete and Orphan), together with what is the project's own: its quota, a project that
// holds repositories, a proxy cache, and what a reconcile costs. Admission refusals are rows of
// test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  connection,
  credentials,
  eventOf,
  harborIdOf,
  type ProjectCR,
  project,
  ready,
  readyForSpec,
  registry,
} from "../env/resources.ts";
import { untilTrue } from "../env/until.ts";

// A short drift interval: a change made in Harbor is put back, and two sweeps pass, in seconds.
const op = useOperator({ namespacePrefix: "proj", driftInterval: "1s" });

const GiB = 2 ** 30;
/** The storage limit Harbor's quota of the project holds, in bytes (-1: unlimited). */
const hardInHarbor = async (name: string) => {
  const id = (await op.harbor.projects.get(name)).project_id as number;
  return (await op.harbor.quotas.ofProject(id))?.hard?.storage;
};

describe("HarborProject: the lifecycle every kind shares, end to end", () => {
  test("apply → Ready, with the Harbor id in kubectl get", async () => {
    await op.kubectl.apply(project("alpha", { public: true, autoScan: true, storageLimit: "10Gi" }));
    const cr = await op.waitReady<ProjectCR>("harborproject", "alpha");
    const inHarbor = await op.harbor.projects.get("alpha");
    expect(harborIdOf(cr)).toBe(inHarbor.project_id);
    expect(inHarbor.metadata).toMatchObject({ public: "true", auto_scan: "true" });
    expect(await hardInHarbor("alpha")).toBe(10 * GiB);
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

  test("editing the YAML changes Harbor: the project's metadata and its quota", async () => {
    await op.kubectl.apply(
      project("alpha", {
        public: false,
        autoScan: true,
        severity: "high",
        preventVulnerable: true,
        storageLimit: "20Gi",
      }),
    );
    const cr = await op.waitFor<ProjectCR>("harborproject", "alpha", readyForSpec);
    expect(ready(cr)?.reason).toBe("Synced");
    expect(cr.status?.quota?.hard).toBe("20Gi");
    expect(cr.status?.lastDriftCorrection).toBeUndefined();
    expect((await op.harbor.projects.get("alpha")).metadata).toMatchObject({
      public: "false",
      severity: "high",
      prevent_vul: "true",
    });
    expect(await hardInHarbor("alpha")).toBe(20 * GiB);
    const updated = await eventOf(op.kubectl, "alpha", "HarborProject", "Updated", "Updated public,");
    expect(updated.message).toBe("Updated public, preventVulnerable, severity, storageLimit");
  });

  test("changes made in Harbor behind the operator's back, to the quota too, are reverted and named", async () => {
    const id = harborIdOf(await op.kubectl.get<ProjectCR>("harborproject", "alpha"));
    await op.harbor.projects.update("alpha", { metadata: { public: "true", auto_scan: "false" } });
    const after = await op.waitFor<ProjectCR>("harborproject", "alpha", (o) =>
      (o.status?.lastDriftCorrection?.fields ?? []).includes("public"),
    );
    expect(after.status?.lastDriftCorrection?.fields.sort()).toEqual(["autoScan", "public"]);
    expect((await op.harbor.projects.get("alpha")).metadata).toMatchObject({
      public: "false",
      auto_scan: "true",
    });
    expect(harborIdOf(after)).toBe(id);
    await eventOf(op.kubectl, "alpha", "HarborProject", "DriftCorrected");

    // Someone raises the limit in Harbor's UI.
    const quotaId = (await op.harbor.quotas.ofProject(id))?.id as number;
    await op.harbor.quotas.update(quotaId, { storage: 50 * GiB });
    const quota = await op.waitFor<ProjectCR>("harborproject", "alpha", (o) =>
      (o.status?.lastDriftCorrection?.fields ?? []).includes("storageLimit"),
    );
    expect(quota.status?.lastDriftCorrection?.fields).toEqual(["storageLimit"]);
    expect(await hardInHarbor("alpha")).toBe(20 * GiB);
    expect(quota.status?.quota?.hard).toBe("20Gi");
  });

  test("steady state makes no Harbor writes", async () => {
    const before = op.emulator.counters.writes();
    await op.sweeps("HarborProject");
    expect(op.emulator.counters.writes()).toBe(before);
  });

  test("an existing Harbor project is adopted under CreateOrAdopt, and the spec rules it from then on", async () => {
    const existing = await op.harbor.projects.create({
      project_name: "existing",
      metadata: { public: "true" },
    });
    // Orphan: the last test deletes the resource and the project stays in Harbor.
    await op.kubectl.apply(
      project("existing", { creationPolicy: "CreateOrAdopt", deletionPolicy: "Orphan" }),
    );
    const adopted = await op.waitReady<ProjectCR>("harborproject", "existing");
    expect(harborIdOf(adopted)).toBe(existing);
    expect((await op.harbor.projects.get("existing")).metadata?.public).toBe("false");
    await eventOf(op.kubectl, "existing", "HarborProject", "Adopted");
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

  test("delete removes the project from Harbor; Orphan keeps it", async () => {
    await op.kubectl.delete("harborproject", "alpha", { wait: true });
    await op.kubectl.delete("harborproject", "existing", { wait: true });
    expect(await op.harbor.projects.exists("alpha")).toBe(false);
    expect(await op.harbor.projects.exists("existing")).toBe(true);
  });
});

describe("HarborProject: what Harbor does with projects", () => {
  test("a project's usage shows in status as Harbor counts it, without a write; holding repositories, it is kept with Harbor's reason until emptied", async () => {
    await op.kubectl.apply(project("busy", { storageLimit: "1Gi" }));
    await op.waitReady("harborproject", "busy");
    const updates = op.emulator.counters.total({ op: "updateQuota" });
    op.emulator.control.projects.addRepository("busy", "app", 1, 3 * 2 ** 20);
    const used = await op.waitFor<ProjectCR>("harborproject", "busy", (o) => o.status?.quota?.used === "3Mi");
    expect(used.status?.repositoryCount).toBe(1);
    expect(op.emulator.counters.total({ op: "updateQuota" })).toBe(updates);

    await op.kubectl.delete("harborproject", "busy");
    const blocked = await op.waitFor<ProjectCR>(
      "harborproject",
      "busy",
      (o) => ready(o)?.reason === "DeletionBlocked",
    );
    expect(ready(blocked)?.message).toContain("the project contains repositories");
    expect(await op.harbor.projects.exists("busy")).toBe(true);
    op.emulator.control.projects.removeRepository("busy", "app");
    await op.waitGone("harborproject", "busy");
    expect(await op.harbor.projects.exists("busy")).toBe(false);
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
    const id = harborIdOf(held);
    await op.harbor.quotas.update((await op.harbor.quotas.ofProject(id))?.id as number, { storage: 8 * GiB });
    const refused = await op.waitFor<ProjectCR>(
      "harborproject",
      "quota-held",
      (o) => ready(o)?.reason === "HarborForbidden",
    );
    expect(ready(refused)?.message).toContain("storageLimit is not applied");
    expect(await hardInHarbor("quota-held")).toBe(8 * GiB);
  });

  test("a proxy cache's speedKbps changes in Harbor", async () => {
    // Being one, and of which registry, are fixed at creation: admission.test.ts refuses changes.
    await op.kubectl.apply(registry("hub"));
    await op.waitReady("harborregistry", "hub");
    const cache = (speedKbps: number) =>
      project("cache", { proxyCache: { registryRef: { name: "hub" }, speedKbps } });
    await op.kubectl.apply(cache(100));
    await op.waitReady("harborproject", "cache");
    expect((await op.harbor.projects.get("cache")).metadata?.proxy_speed_kb).toBe("100");

    await op.kubectl.apply(cache(200));
    await op.waitFor<ProjectCR>("harborproject", "cache", readyForSpec);
    expect((await op.harbor.projects.get("cache")).metadata?.proxy_speed_kb).toBe("200");
  });
});

describe("HarborProject request costs", () => {
  // A drift interval too long to matter: what is counted comes from the reconcile alone. One
  // worker takes keys in the order they were queued, which is what `settled` relies on.
  const quiet = useOperator({ namespacePrefix: "proj-n", driftInterval: "1h", extraArgs: ["--workers=1"] });

  /**
   * Resolves once the operator has reconciled project `barrier`, touched now: every reconcile that
   * the steps before queued (an echo of the operator's own writes, say) has run by then.
   */
  async function settled(barrier: string): Promise<void> {
    const from = quiet.output().length;
    const since = Date.now();
    await quiet.kubectl.run([
      "annotate",
      "--overwrite",
      "harborproject",
      barrier,
      `example.com/barrier=${since}`,
    ]);
    // By the line's own time: an earlier reconcile's line may still be on its way through the pipe.
    await untilTrue(`a reconcile of ${barrier}`, () =>
      quiet.reconciles("harborproject", barrier, from).some((e) => Date.parse(e.time) >= since),
    );
  }

  test("converging a new project costs 2 Harbor requests: the create (no lookup first) and its quota", async () => {
    await quiet.kubectl.apply(project("barrier"));
    await quiet.waitReady("harborproject", "barrier");
    const from = quiet.output().length;
    const before = quiet.emulator.counters.list();
    await quiet.kubectl.apply(project("counted", { storageLimit: "3Gi" }));
    const cr = await quiet.waitReady<ProjectCR>("harborproject", "counted");
    // The create (a taken name would be refused, and only then looked up), and the quota's
    // read-back, which names the project.
    expect(quiet.emulator.counters.since(before)).toEqual({ createProject: 1, listQuotas: 1 });
    // Status shows the limit Harbor holds, read back, not the one asked for.
    expect(cr.status?.quota).toEqual({ hard: "3Gi", used: "0" });
    // And no reconcile follows: neither one the operator's own writes cause, nor one it schedules.
    await settled("barrier");
    const reconciles = quiet.reconciles("harborproject", "counted", from);
    expect(reconciles).toHaveLength(1);
    expect(reconciles[0]?.requeueAfterMs).toBeUndefined();
  });

  test("a reconcile of a project in sync reads the project and its quota and writes nothing", async () => {
    const from = quiet.output().length;
    const before = quiet.emulator.counters.list();
    await quiet.kubectl.run(["annotate", "harborproject", "counted", "example.com/touch=1"]);
    await untilTrue(
      "a reconcile of counted",
      () => quiet.reconciles("harborproject", "counted", from).length > 0,
    );
    expect(quiet.emulator.counters.since(before)).toEqual({ getProject: 1, listQuotas: 1 });
    await settled("barrier");
    expect(quiet.reconciles("harborproject", "counted", from)).toHaveLength(1);
  });
});
