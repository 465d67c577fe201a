// The finalizer's admission policy (deploy/components/finalizer-at-admission, generated) bound to
// one namespace, so that it changes nothing for the tests in other namespaces of a shared control
// plane: installed by the benchmark before its operator starts, and by the end-to-end test of the
// policy. It returns once the apiserver applies it (a server-side dry run shows the finalizer).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { FINALIZER } from "../../src/api/common.ts";
import type { Kubectl, KubeObject } from "./kubectl.ts";
import { label } from "./resources.ts";
import { until } from "./until.ts";

const POLICY_FILE = join(
  import.meta.dirname,
  "..",
  "..",
  "deploy",
  "components",
  "finalizer-at-admission",
  "policy.yaml",
);

interface PolicyObject {
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown>;
}

/** The policy and its binding, renamed after `namespace` and bound to it alone. */
export function finalizerPolicyFor(namespace: string): PolicyObject[] {
  const docs = parseAllDocuments(readFileSync(POLICY_FILE, "utf8")).map((d) => d.toJS() as PolicyObject);
  return docs.map((doc) => {
    const name = `${doc.metadata.name}-${namespace}`;
    if (doc.kind !== "MutatingAdmissionPolicyBinding") return { ...doc, metadata: { ...doc.metadata, name } };
    return {
      ...doc,
      metadata: { ...doc.metadata, name },
      spec: {
        ...doc.spec,
        policyName: `${doc.spec.policyName}-${namespace}`,
        matchResources: {
          namespaceSelector: {
            matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [namespace] }],
          },
        },
      },
    };
  });
}

/**
 * Installs the policy for `namespace` (kubectl with cluster rights) and waits until a resource
 * created there gets the finalizer; returns its removal.
 */
export async function installFinalizerPolicy(
  admin: Kubectl,
  namespace: string,
): Promise<() => Promise<void>> {
  const objects = finalizerPolicyFor(namespace);
  await admin.apply(objects);
  await untilApplied(admin, namespace, true);
  return async () => {
    for (const o of [...objects].reverse())
      await admin.tryRun(["delete", o.kind.toLowerCase(), o.metadata.name, "--wait=false"]);
    // Until the apiserver drops it, finalizers taken off by a cleanup would come straight back.
    await untilApplied(admin, namespace, false);
  };
}

/** Waits until a resource created in `namespace` gets the finalizer at admission, or no longer does. */
async function untilApplied(admin: Kubectl, namespace: string, applied: boolean): Promise<void> {
  const probe = JSON.stringify(label("finalizer-policy-probe"));
  await until(
    `the finalizer's admission policy to be ${applied ? "applied" : "gone"}`,
    async () => {
      const out = await admin
        .inNamespace(namespace)
        .tryRun(["create", "--dry-run=server", "-o", "json", "-f", "-"], { input: probe });
      if (out.code !== 0) return undefined;
      const created = JSON.parse(out.stdout) as KubeObject;
      const has = (created.metadata.finalizers as string[] | undefined)?.includes(FINALIZER) === true;
      return has === applied ? true : undefined;
    },
    60_000,
  );
}
