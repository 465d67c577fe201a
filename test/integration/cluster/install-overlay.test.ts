// The documented install steps, as written: the overlay that docs/getting-started.md's "Install in a
// cluster" section makes next
// to deploy/ renders the Deployment with the image the user built and pushed, and the whole install
// passes a server-side dry run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { budget } from "../../env/budget.ts";
import { adminKubectl } from "../../env/cluster.ts";

const root = join(import.meta.dirname, "..", "..", "..");

/** The overlay the docs write with `cat > my-install/kustomization.yaml <<'YAML' … YAML`. */
function readmeOverlay(): string {
  const page = readFileSync(join(root, "docs", "getting-started.md"), "utf8");
  const install = page.slice(page.indexOf("## Install in a cluster"));
  const m = /cat > my-install\/kustomization\.yaml <<'YAML'\n([\s\S]*?)\nYAML\n/.exec(install);
  if (!m?.[1])
    throw new Error("docs/getting-started.md's install section writes no my-install/kustomization.yaml");
  return `${m[1]}\n`;
}

test("the documented overlay sets the image and installs", async () => {
  const admin = adminKubectl();
  // Next to deploy/, as docs/getting-started.md says, so that its `../deploy` resolves.
  const dir = mkdtempSync(join(root, ".install-overlay-"));
  let createdNamespace = false;
  try {
    writeFileSync(join(dir, "kustomization.yaml"), readmeOverlay());
    const objects = parseAllDocuments(await admin.run(["kustomize", dir])).map(
      (d) =>
        d.toJS() as {
          kind: string;
          metadata: { name: string };
          spec?: { template?: { spec?: { containers?: Array<{ image: string }> } } };
        },
    );
    const deployment = objects.find((o) => o.kind === "Deployment");
    expect(deployment?.spec?.template?.spec?.containers?.[0]?.image).toBe(
      "registry.example.com/platform/harbor-config-operator:0.1.0",
    );
    expect(objects.filter((o) => o.kind === "CustomResourceDefinition").length).toBeGreaterThanOrEqual(7);
    // The namespace exists for real before a dry run can place objects in it (deploy.test.ts).
    if ((await admin.tryRun(["get", "namespace", "harbor-config-operator"])).code !== 0) {
      await admin.run(["create", "namespace", "harbor-config-operator"]);
      createdNamespace = true;
    }
    // Every object of the install admitted in turn, the CRDs' rules compiled: more than one request.
    const r = await admin.tryRun(["apply", "--dry-run=server", "-k", dir], { timeoutMs: budget.operatorMs });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("deployment.apps/harbor-config-operator");
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (createdNamespace) await admin.delete("namespace", "harbor-config-operator");
  }
});
