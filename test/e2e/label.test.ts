// HarborLabel end to end: kubectl → apiserver → the operator process → Harbor (the emulator). What
// needs them for the label: names Kubernetes would refuse, global and project scope, Harbor's update
// that replaces every field, drift, adoption by exact name within a scope (Harbor's name filter
// matches parts of names), and deletion held while a replication policy's filter names the label,
// released by the policy's going. The label's mapping, drift and claim are rows of
// test/unit/controllers/label-mapping.test.ts, its refusals rows of the admission table
// (test/integration/cluster/admission.test.ts), what its drift sweep reads is counted in
// labels-groups-members-export.test.ts, and the lifecycle every kind shares is proven in
// test/unit/runtime/managed-lifecycle.test.ts.
import { describe, expect, test } from "vitest";
import type { Label } from "../../src/harbor/labels.ts";
import { budget } from "../env/budget.ts";
import { useOperator } from "../env/operator.ts";
import { reconcileLog } from "../env/operator-log.ts";
import {
  condition,
  eventOf,
  harborIdOf,
  type LabelCR,
  label,
  project,
  readyForSpec,
  registry,
  replicationPolicy,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

const RESOURCE = "harborlabel";
const op = useOperator({ namespacePrefix: "label" });
const NAME = "Release: Approved ✓";

/** The labels Harbor holds in a scope, as an admin sees them. */
const labelsIn = async (scope: "g" | "p", projectId?: number): Promise<Label[]> =>
  op.harbor.labels.list({ scope, ...(projectId === undefined ? {} : { projectId }) });

describe("HarborLabel", () => {
  test("a global label: held by Harbor as written, under a name no Kubernetes object could have; put back when changed in Harbor, edited, deleted", async () => {
    await op.kubectl.apply(label("approved", { name: NAME, color: "#0065ab", description: "ok for prod" }));
    const cr = await op.waitReady<LabelCR>(RESOURCE, "approved");
    const id = harborIdOf(cr);
    expect(await op.harbor.labels.get(id)).toMatchObject({
      name: NAME,
      color: "#0065ab",
      description: "ok for prod",
      scope: "g",
    });
    expect(cr.status).toMatchObject({ scope: "global", harborName: NAME });
    expect(cr.status?.projectId).toBeUndefined();
    const table = await op.kubectl.run(["get", "harborlabels"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+SCOPE\s+PROJECT\s+AGE/);
    expect(table).toMatch(new RegExp(`approved\\s+True\\s+Synced\\s+${id}\\s+global\\s`));

    // Someone changes the description, and the colour's letter case only: the description is put
    // back and named; a colour differing only in case is no drift.
    await op.harbor.labels.update(id, { name: NAME, color: "#0065AB", description: "mine" });
    const after = await op.waitFor<LabelCR>(
      RESOURCE,
      "approved",
      (o) => o.status?.lastDriftCorrection !== undefined,
    );
    expect(after.status?.lastDriftCorrection?.fields).toEqual(["description"]);
    expect(harborIdOf(after)).toBe(id);
    expect((await op.harbor.labels.get(id)).description).toBe("ok for prod");
    await eventOf(op.kubectl, "approved", "HarborLabel", "DriftCorrected");

    // Harbor's update replaces name, description and colour together: the operator sends the
    // description Harbor has when the spec leaves it unset.
    await op.kubectl.apply(label("approved", { name: NAME, color: "#FF0000" }));
    await op.waitFor<LabelCR>(RESOURCE, "approved", readyForSpec);
    expect(await op.harbor.labels.get(id)).toMatchObject({ color: "#FF0000", description: "ok for prod" });
    await eventOf(op.kubectl, "approved", "HarborLabel", "Updated");

    await op.kubectl.delete(RESOURCE, "approved", { wait: true });
    await expect(op.harbor.labels.get(id)).rejects.toMatchObject({ status: 404 });
  });

  test("a project label lives in its project; the same name may be global and in each project", async () => {
    await op.kubectl.apply([
      project("team"),
      label("approved", { name: NAME }),
      label("team-approved", { projectRef: { name: "team" }, name: NAME }),
    ]);
    const cr = await op.waitReady<LabelCR>(RESOURCE, "team-approved");
    await op.waitReady<LabelCR>(RESOURCE, "approved");
    const projectId = (await op.harbor.projects.get("team")).project_id;
    expect(cr.status).toMatchObject({ scope: "project", projectId });
    expect((await labelsIn("p", projectId)).map((l) => l.name)).toEqual([NAME]);
    expect((await labelsIn("g")).filter((l) => l.name === NAME)).toHaveLength(1);
    const table = await op.kubectl.run(["get", "harborlabels"]);
    expect(table).toMatch(/team-approved\s+True\s+Synced\s+\d+\s+project\s+team\s/);
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
    await eventOf(op.kubectl, "shared", "HarborLabel", "Adopted");
  });

  test("deletion waits while a replication policy filters on the label, and the policy's going lets it go", async () => {
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
    const id = harborIdOf(gate);
    expect((await op.harbor.labels.get(id)).name).toBe("Gate: Passed");

    // A blocked deletion is looked at again less often (5 s, 10 s, 20 s, …). Once its next look is
    // far enough away (further on a slower machine), a deletion before it is due can only come from
    // the policy's going, which the kind wiring turns into a reconcile of the label.
    const far = 10_000 * budget.scale;
    const scheduled = await until("a retry of the blocked deletion scheduled far enough away", () =>
      reconcileLog(op, "HarborLabel", "gate").find(
        (e) => e.msg === "reconciled" && Number(e.requeueAfterMs) >= far,
      ),
    );
    await op.kubectl.delete("harborreplicationpolicy", "ship", { wait: true });
    await op.kubectl.wait(RESOURCE, "gate", "delete", budget.operatorMs);
    // The line follows the finalizer's removal, which kubectl saw first: on its way through the pipe.
    const released = await until("the label's finalizer removed, in the operator's log", () =>
      reconcileLog(op, "HarborLabel", "gate").find((e) => e.msg === "finalizer removed"),
    );
    expect(
      Date.parse(released.time),
      "the label went before its retry was due: the policy's going queued it",
    ).toBeLessThan(Date.parse(scheduled.time) + Number(scheduled.requeueAfterMs));
    await expect(op.harbor.labels.get(id)).rejects.toMatchObject({ status: 404 });
    await eventOf(op.kubectl, "gate", "HarborLabel", "Deleted", "removed it from every artifact");
  });
});
