// HarborProject end to end: kubectl → apiserver → the operator process → Harbor (the emulator).
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";

const op = useOperator({ namespacePrefix: "proj" });

interface ProjectCR {
  metadata: { name: string; finalizers?: string[] };
  status?: {
    harborId?: number;
    owner?: string;
    repositoryCount?: number;
    deletable?: boolean;
    quota?: { hard?: string; used?: string };
    conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
    lastDriftCorrection?: { fields: string[] };
  };
}

const project = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "harborconfig.io/v1alpha1",
  kind: "HarborProject",
  metadata: { name },
  spec: { connectionRef: { name: "harbor" }, ...spec },
});

const ready = (o: ProjectCR) => o.status?.conditions?.find((c) => c.type === "Ready");

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
    await op.waitFor<ProjectCR>(
      "harborproject",
      "alpha",
      (o) =>
        ready(o)?.status === "True" && (o as { metadata: { generation?: number } } & ProjectCR) !== undefined,
    );
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
    const events = await op.kubectl.run([
      "get",
      "events",
      "--field-selector",
      "involvedObject.name=alpha",
      "-o",
      "json",
    ]);
    expect(events).toContain("DriftCorrected");
  });

  test("steady state makes no Harbor writes", async () => {
    const writes = () =>
      op.emulator.counters
        .list()
        .filter((r) => r.method !== "GET" && r.method !== "HEAD")
        .reduce((n, r) => n + r.count, 0);
    const before = writes();
    await new Promise((r) => setTimeout(r, 8_000)); // more than two drift intervals of 3 s
    expect(writes()).toBe(before);
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

  test("an existing Harbor project is refused under Create and adopted under CreateOrAdopt", async () => {
    await op.harbor.projects.create({ project_name: "existing", metadata: { public: "true" } });
    await op.kubectl.apply(project("existing"));
    const refused = await op.waitFor<ProjectCR>(
      "harborproject",
      "existing",
      (o) => ready(o)?.reason === "AlreadyExists",
    );
    expect(refused.status?.conditions?.find((c) => c.type === "Stalled")?.status).toBe("True");
    expect(ready(refused)?.message).toContain("creationPolicy");

    await op.kubectl.apply(project("existing", { creationPolicy: "CreateOrAdopt" }));
    const adopted = await op.waitReady<ProjectCR>("harborproject", "existing");
    expect(adopted.status?.harborId).toBe((await op.harbor.projects.get("existing")).project_id);
    expect((await op.harbor.projects.get("existing")).metadata?.public).toBe("false"); // the spec now rules
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

  test("converging a new project costs at most 3 Harbor requests", async () => {
    // The calls about one project; periodic sweeps (listProjects) and connection checks run
    // meanwhile and are not part of converging this object.
    const perObject = ["createProject", "getProject", "headProject", "updateProject", "getProjectSummary"];
    const count = () => perObject.reduce((n, o) => n + op.emulator.counters.total({ op: o }), 0);
    const before = count();
    await op.kubectl.apply(project("counted"));
    await op.waitReady("harborproject", "counted");
    expect(count() - before).toBeLessThanOrEqual(3);
  });
});
