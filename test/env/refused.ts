// Bad input refused at admission (the CRD schema and its CEL rules): the earliest clear error.
// Most cases ask the apiserver directly (a server-side dry run, as `kubectl apply` sends it: no
// process, nothing stored); `refusedByKubectl` runs kubectl itself, for the cases that show what a
// user's terminal prints.
import { expect } from "vitest";
import { clusterApi } from "./kube-api.ts";
import type { Kubectl } from "./kubectl.ts";

/** An object as `kubectl apply` takes it. */
export type AppliedObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
};

/**
 * What the apiserver answers to `kubectl apply` of `manifest`, without storing it: undefined when
 * it is admitted, else the message kubectl prints (`The <Kind> "<name>" is invalid: <field>: …`).
 */
export const admission = (kubectl: Pick<Kubectl, "kubeconfigPath" | "namespace">, manifest: AppliedObject) =>
  clusterApi(kubectl.kubeconfigPath).admit(manifest, kubectl.namespace);

/** `kubectl apply` of `manifest`, which must fail; kubectl's standard error, naming why. */
export async function refusedByKubectl(kubectl: Pick<Kubectl, "tryRun">, manifest: object): Promise<string> {
  const r = await kubectl.tryRun(["apply", "-f", "-"], { input: JSON.stringify(manifest) });
  expect(r.code).not.toBe(0);
  return r.stderr;
}
