// HarborLabel end to end: kubectl → apiserver → the operator process → Harbor (the emulator). What
// is the label's own: names Kubernetes would refuse, global and project scope, Harbor's update that
// replaces every field, drift, adoption by exact name within a scope, deletion blocked while a
// replication policy's filter names the label, and input refused at admission. The lifecycle cases
// every kind shares are proven once, on projects (project.test.ts).
import { describe, expect, test } from "vitest";
import type { Label } from "../../src/harbor/labels.ts";
import { useOperator } from "../env/operator.ts";
import { refusedByKubectl } from "../env/refused.ts";
import {
  condition,
  eventsOf,
  invalid,
  type LabelCR,
  label,
  project,
  readyForSpec,
  registry,
  replicationPolicy,
} from "../env/resources.ts";

const RESOURCE = "harborlabel";
const op = useOperator({ namespacePrefix: "label" });

/** The labels Harbor holds in a scope, as an admin sees them. */
const labelsIn = async (scope: "g" | "p", projectId?: number): Promise<Label[]> =>
  op.harbor.labels.list({ scope, ...(projectId === undefined ? {} : { projectId }) });

describe("HarborLabel", () => {
  test("a global label with a name no Kubernetes object could have: Ready, held by Harbor as written", async () => {
    await op.kubectl.apply(
      label("approved", { name: "Release: Approved ✓", color: "#0065ab", description: "ok for prod" }),
    );
    const cr = await op.waitReady<LabelCR>(RESOURCE, "approved");
    const id = cr.status?.harborId as number;
    expect(await op.harbor.labels.get(id)).toMatchObject({
      name: "Release: Approved ✓",
      color: "#0065ab",
      description: "ok for prod",
      scope: "g",
    });
    expect(cr.status).toMatchObject({ scope: "global", harborName: "Release: Approved ✓" });
    expect(cr.status?.projectId).toBeUndefined();
    const table = await op.kubectl.run(["get", "harborlabels"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+SCOPE\s+PROJECT\s+AGE/);
    expect(table).toMatch(new RegExp(`approved\\s+True\\s+Synced\\s+${id}\\s+global\\s`));
  });

  test("a project label lives in its project; the same name may be global and in each project", async () => {
    await op.kubectl.apply([
      project("team"),
      label("team-approved", { projectRef: { name: "team" }, name: "Release: Approved ✓" }),
    ]);
    const cr = await op.waitReady<LabelCR>(RESOURCE, "team-approved");
    const projectId = (await op.harbor.projects.get("team")).project_id;
    expect(cr.status).toMatchObject({ scope: "project", projectId });
    expect((await labelsIn("p", projectId)).map((l) => l.name)).toEqual(["Release: Approved ✓"]);
    expect((await labelsIn("g")).filter((l) => l.name === "Release: Approved ✓")).toHaveLength(1);
    const table = await op.kubectl.run(["get", "harborlabels"]);
    expect(table).toMatch(/team-approved\s+True\s+Synced\s+\d+\s+project\s+team\s/);
  });

  test("editing the YAML changes Harbor; what the spec leaves unset is not cleared", async () => {
    // Harbor's update replaces name, description and colour together: the operator sends the
    // description Harbor has when the spec leaves it unset.
    await op.kubectl.apply(label("approved", { name: "Release: Approved ✓", color: "#FF0000" }));
    const cr = await op.waitFor<LabelCR>(RESOURCE, "approved", readyForSpec);
    expect(await op.harbor.labels.get(cr.status?.harborId as number)).toMatchObject({
      color: "#FF0000",
      description: "ok for prod",
    });
    expect((await eventsOf(op.kubectl, "approved", "HarborLabel")).map((e) => e.reason)).toContain("Updated");
  });

  test("a change made in Harbor is reverted and named; colours differing only in case are no drift", async () => {
    await op.kubectl.apply(
      label("approved", { name: "Release: Approved ✓", color: "#FF0000", description: "ok for prod" }),
    );
    const cr = await op.waitFor<LabelCR>(RESOURCE, "approved", readyForSpec);
    const id = cr.status?.harborId as number;
    const name = "Release: Approved ✓";
    await op.harbor.labels.update(id, { name, color: "#ff0000", description: "ok for prod" });
    await new Promise((r) => setTimeout(r, 7_000)); // two drift intervals
    expect((await op.kubectl.get<LabelCR>(RESOURCE, "approved")).status?.lastDriftCorrection).toBeUndefined();
    expect((await op.harbor.labels.get(id)).color).toBe("#ff0000");

    await op.harbor.labels.update(id, { name, color: "#ff0000", description: "mine" });
    const after = await op.waitFor<LabelCR>(
      RESOURCE,
      "approved",
      (o) => JSON.stringify(o.status?.lastDriftCorrection?.fields) === '["description"]',
      30_000,
    );
    expect(after.status?.harborId).toBe(id);
    expect((await op.harbor.labels.get(id)).description).toBe("ok for prod");
    expect((await eventsOf(op.kubectl, "approved", "HarborLabel")).map((e) => e.reason)).toContain(
      "DriftCorrected",
    );
  });

  test("adoption takes the label of exactly that name in its scope", async () => {
    const p = await op.harbor.projects.get("team");
    // Decoys: a longer name that contains it, the same name in the project.
    await op.harbor.labels.create({ name: "shared-x", scope: "g", description: "decoy" });
    await op.harbor.labels.create({ name: "shared", scope: "p", project_id: p.project_id });
    const id = await op.harbor.labels.create({ name: "shared", scope: "g", description: "from the UI" });
    await op.kubectl.apply(label("shared", { creationPolicy: "Adopt" }));
    const cr = await op.waitReady<LabelCR>(RESOURCE, "shared");
    expect(cr.status?.harborId).toBe(id);
    // Unset in the spec: left as Harbor has it.
    expect((await op.harbor.labels.get(id)).description).toBe("from the UI");
    expect((await eventsOf(op.kubectl, "shared", "HarborLabel")).map((e) => e.reason)).toContain("Adopted");
    // With creationPolicy Create, the existing label is refused.
    await op.kubectl.apply(label("shared-create", { name: "shared-x" }));
    const refused = await op.waitFor<LabelCR>(
      RESOURCE,
      "shared-create",
      (o) => condition(o, "Ready")?.reason === "AlreadyExists",
    );
    expect(condition(refused, "Stalled")?.status).toBe("True");
    await op.kubectl.delete(RESOURCE, "shared-create", { wait: true });
    expect((await labelsIn("g")).some((l) => l.name === "shared-x")).toBe(true);
  });

  test("a second resource for the same label is a Conflict", async () => {
    await op.kubectl.apply(label("approved-again", { name: "Release: Approved ✓", creationPolicy: "Adopt" }));
    const cr = await op.waitFor<LabelCR>(
      RESOURCE,
      "approved-again",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(cr, "Ready")?.message).toContain("approved");
    await op.kubectl.delete(RESOURCE, "approved-again", { wait: true });
    expect((await labelsIn("g")).some((l) => l.name === "Release: Approved ✓")).toBe(true);
  });

  test("deletion waits while a replication policy filters on the label, and goes once the policy does", async () => {
    await op.kubectl.apply([
      label("gate", { name: "Gate: Passed" }),
      label("team-gate", { projectRef: { name: "team" }, name: "Gate: Passed" }),
      registry("mirror"),
      replicationPolicy("ship", {
        registryRef: { name: "mirror" },
        filters: { labels: { values: ["Gate: Passed"], decoration: "matches" } },
      }),
    ]);
    const gate = await op.waitReady<LabelCR>(RESOURCE, "gate");
    await op.waitReady<LabelCR>(RESOURCE, "team-gate");
    await op.waitReady("harborreplicationpolicy", "ship");

    // A project label of the same name is no replication label: it goes at once.
    await op.kubectl.delete(RESOURCE, "team-gate", { wait: true });

    await op.kubectl.delete(RESOURCE, "gate");
    const blocked = await op.waitFor<LabelCR>(
      RESOURCE,
      "gate",
      (o) => condition(o, "Ready")?.reason === "DeletionBlocked",
    );
    expect(condition(blocked, "Ready")?.message).toContain(`HarborReplicationPolicy ${op.namespace}/ship`);
    const id = gate.status?.harborId as number;
    expect((await op.harbor.labels.get(id)).name).toBe("Gate: Passed");
    // Let the retry backoff grow past the wait below: only the policy's going can explain a prompt end.
    await new Promise((r) => setTimeout(r, 16_000));
    const started = Date.now();
    await op.kubectl.delete("harborreplicationpolicy", "ship", { wait: true });
    await op.kubectl.wait(RESOURCE, "gate", "delete", 8_000);
    expect(Date.now() - started).toBeLessThan(8_000);
    await expect(op.harbor.labels.get(id)).rejects.toMatchObject({ status: 404 });
    const deleted = (await eventsOf(op.kubectl, "gate", "HarborLabel")).find((e) => e.reason === "Deleted");
    expect(deleted?.message).toContain("removed it from every artifact");
  });

  test("steady state: no Harbor writes, and the sweep lists labels without reading them one by one", async () => {
    const before = op.emulator.counters.list();
    const writes = op.emulator.counters.writes();
    await new Promise((r) => setTimeout(r, 8_000)); // more than two drift intervals of 3 s
    const since = op.emulator.counters.since(before);
    expect(op.emulator.counters.writes()).toBe(writes);
    expect(since.ListLabels).toBeGreaterThan(0);
    expect(since.GetLabelByID).toBeUndefined();
  });

  test("invalid YAML is refused by kubectl, naming the field", async () => {
    const refused = (o: object) => refusedByKubectl(op.kubectl, o);
    expect(await refused(label("too-long", { name: "x".repeat(129) }))).toMatch(/spec\.name/);
    expect(await refused(label("padded", { name: " padded" }))).toMatch(/spec\.name/);
    expect(await refused(label("zero-width", { name: "a\u200bb" }))).toMatch(/spec\.name.*invisible/);
    expect(await refused(label("blue", { color: "blue" }))).toMatch(/spec\.color/);
    expect(await refused(label("approved", { name: "renamed" }))).toContain(
      'the label name is immutable (Harbor keeps objects by name): it stays "Release: Approved ✓"',
    );
    expect(
      await refused(label("approved", { name: "Release: Approved ✓", projectRef: { name: "team" } })),
    ).toMatch(/spec\.projectRef: Invalid value: .*projectRef is immutable: it was unset/);
    expect(
      await refused(
        label("team-approved", { name: "Release: Approved ✓", projectRef: invalid({ name: "other" }) }),
      ),
    ).toMatch(/projectRef is immutable: it stays "team"/);
  });
});
