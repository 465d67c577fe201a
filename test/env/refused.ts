// Bad input refused by kubectl (the CRD schema and its CEL rules), for the e2e cases that check the
// earliest clear error.
import { expect } from "vitest";
import type { Kubectl } from "./kubectl.ts";

/** `kubectl apply` of `manifest`, which must fail; kubectl's standard error, naming why. */
export async function refusedByKubectl(kubectl: Pick<Kubectl, "tryRun">, manifest: object): Promise<string> {
  const r = await kubectl.tryRun(["apply", "-f", "-"], { input: JSON.stringify(manifest) });
  expect(r.code).not.toBe(0);
  return r.stderr;
}
