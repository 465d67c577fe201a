// What a test file of the `cluster` project uses to reach the control plane that global-setup.ts
// started for its worker slot: kubectl against it, and a namespace of the file's own.
import { afterAll, beforeAll, inject } from "vitest";
import type { SharedControlPlane, SharedHarbor } from "./global-setup.ts";
import { clusterApi } from "./kube-api.ts";
import { type Kubectl, kubectl } from "./kubectl.ts";

/** This worker's slot among the project's (VITEST_POOL_ID counts from 1). */
function slot<T>(all: T[]): T {
  const id = Number(process.env.VITEST_POOL_ID ?? "1");
  const one = all[(Math.max(1, id) - 1) % all.length];
  if (!one) throw new Error("no shared control plane: is this file in the cluster project?");
  return one;
}

/** The control plane of this file's worker slot: no file running at the same time uses it. */
export const sharedControlPlane = (): SharedControlPlane => slot(inject("controlPlanes"));

/** The Harbor emulator of this file's worker slot; its state outlives the file: use unique names. */
export const sharedHarbor = (): SharedHarbor => slot(inject("harbors"));

/** kubectl as the cluster's admin (group system:masters). */
export function adminKubectl(): Kubectl {
  const { kubeconfigPath, kubectl: command } = sharedControlPlane();
  return kubectl(kubeconfigPath, command);
}

export interface TestNamespace {
  /** The namespace's generated name; available from beforeAll on. */
  readonly name: string;
  /** kubectl as admin, defaulting to this namespace. */
  readonly kubectl: Kubectl;
}

/**
 * A fresh namespace for the calling test file: created in beforeAll with a generated name
 * (`<prefix>-xxxxx`), deleted in afterAll, the operator's finalizers taken off what is left first.
 * Deletion is not awaited: the namespace controller finishes it in the background while the next
 * file runs.
 */
export function useNamespace(prefix = "test"): TestNamespace {
  const admin = adminKubectl();
  let created: TestNamespace | undefined;
  beforeAll(async () => {
    const manifest = { apiVersion: "v1", kind: "Namespace", metadata: { generateName: `${prefix}-` } };
    const name = await admin.run(["create", "-f", "-", "-o", "jsonpath={.metadata.name}"], {
      input: JSON.stringify(manifest),
    });
    created = { name, kubectl: admin.inNamespace(name) };
  });
  afterAll(async () => {
    if (!created) return;
    // The file's operator has stopped by now (its afterAll runs first): what it kept finalized
    // would hold the namespace in Terminating for good, and kube-controller-manager would go over
    // all its resource types again and again for the rest of the run.
    await clusterApi(admin.kubeconfigPath).releaseFinalizers(created.name);
    await admin.delete("namespace", created.name);
  });
  const current = (): TestNamespace => {
    if (!created) throw new Error("useNamespace(): the namespace exists from beforeAll on");
    return created;
  };
  return {
    get name() {
      return current().name;
    },
    get kubectl() {
      return current().kubectl;
    },
  };
}
