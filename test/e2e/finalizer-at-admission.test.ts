// The finalizer set at admission (deploy/components/finalizer-at-admission) end to end: the real
// apiserver's MutatingAdmissionPolicy, bound to this file's namespace, and the operator process.
// What needs them: the finalizer and its annotation arrive with the object (a user's own finalizers
// kept), stay through a server-side apply that does not name them, and the operator converges a
// resource writing only its status; a finalizer that came at admission marks no create, so someone
// else's object of the same name is refused and left in Harbor when the resource goes. Each branch
// of the lifecycle is a row of test/unit/runtime/managed-lifecycle.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FINALIZER, FINALIZER_SET_AT_ANNOTATION } from "../../src/api/common.ts";
import { budget } from "../env/budget.ts";
import { installFinalizerPolicy } from "../env/finalizer-policy.ts";
import type { KubeObject } from "../env/kubectl.ts";
import { useOperator } from "../env/operator.ts";
import { condition, harborIdOf, type LabelCR, label } from "../env/resources.ts";

const RESOURCE = "harborlabel";
const op = useOperator({ namespacePrefix: "finalizer-admission" });
let removePolicy: (() => Promise<void>) | undefined;

beforeAll(async () => {
  removePolicy = await installFinalizerPolicy(op.kubectl, op.namespace);
}, budget.operatorMs + budget.requestMs);
afterAll(async () => {
  await removePolicy?.();
}, budget.operatorMs + budget.requestMs);

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  subresource?: string;
}

describe("the finalizer set at admission", () => {
  test("comes with the object beside a user's own finalizers, with its annotation", async () => {
    const manifest = label("dry-run");
    manifest.metadata = {
      ...manifest.metadata,
      finalizers: ["example.com/hold"],
    } as typeof manifest.metadata;
    const out = await op.kubectl.run(["create", "--dry-run=server", "-o", "json", "-f", "-"], {
      input: JSON.stringify(manifest),
    });
    const created = JSON.parse(out) as KubeObject;
    expect(created.metadata.finalizers).toEqual(["example.com/hold", FINALIZER]);
    expect(created.metadata.annotations?.[FINALIZER_SET_AT_ANNOTATION]).toBe("admission");
  });

  test("the operator converges a resource writing only its status; a server-side apply keeps the finalizer", async () => {
    await op.kubectl.apply(label("approved", { description: "ok for prod" }));
    const cr = await op.waitReady<LabelCR>(RESOURCE, "approved");
    const id = harborIdOf(cr);
    expect((await op.harbor.labels.get(id)).description).toBe("ok for prod");
    // The operator's writes show in managedFields under its manager: its status only.
    const full = await op.kubectl.get<KubeObject>(RESOURCE, "approved");
    const entries = (full.metadata.managedFields ?? []) as ManagedFieldsEntry[];
    const operator = entries.filter((e) => e.manager === "harbor-config-operator");
    expect(operator.map((e) => e.subresource)).toEqual(["status"]);

    // A server-side apply of the manifest, which names no finalizer, leaves it in place.
    await op.kubectl.apply(label("approved", { description: "ok for all" }), { serverSide: true });
    const applied = await op.waitFor<LabelCR>(
      RESOURCE,
      "approved",
      (o) =>
        o.status?.observedGeneration === o.metadata.generation && condition(o, "Ready")?.status === "True",
    );
    expect(applied.metadata.finalizers).toContain(FINALIZER);
    expect((await op.harbor.labels.get(id)).description).toBe("ok for all");

    await op.kubectl.delete(RESOURCE, "approved", { wait: true });
    await expect(op.harbor.labels.get(id)).rejects.toThrow();
  });

  test("it marks no create of the operator's: someone else's object of the name is refused and left in Harbor", async () => {
    const theirs = await op.harbor.labels.create({ name: "theirs", scope: "g", description: "not ours" });
    await op.kubectl.apply(label("theirs", { creationPolicy: "Create" }));
    const refused = await op.waitFor<LabelCR>(
      RESOURCE,
      "theirs",
      (o) => condition(o, "Ready")?.reason === "AlreadyExists",
    );
    expect(refused.metadata.finalizers).toEqual([FINALIZER]);
    expect(refused.status?.harborId).toBeUndefined();

    await op.kubectl.delete(RESOURCE, "theirs", { wait: true });
    expect((await op.harbor.labels.get(theirs)).description).toBe("not ours");
  });
});
