// `npm run generate`: the files derived from the kind registry, so that none is kept by hand —
// crds/ (one CRD per kind, from the zod schemas, plus a Kustomization listing them),
// deploy/rbac.yaml (the operator's least-privilege RBAC, from rbac.ts: its rules for our kinds, and
// for what the kinds follow), and the same two as templates of the Helm chart in deploy/helm/ (its CRDs and its
// RBAC, named after the release), the RBAC of deploy/components/namespaced (the Secret and
// ServiceAccount rules per watched namespace), the finalizer's admission policy
// (deploy/components/finalizer-at-admission, and the chart's template), deploy/flux/kustomization-example.yaml (a Flux
// Kustomization with a health check for every kind) and docs/reference/api.md (every field of every
// kind, from the same schemas). With --check it writes nothing and exits 1 when a
// file differs (a test runs it).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stringify } from "yaml";
import { renderChartFinalizerPolicy, renderFinalizerPolicy } from "./admission-policy.ts";
import { API_VERSION, GROUP } from "./api/common.ts";
import { crdFor } from "./api/crd.ts";
import { renderApiReference } from "./api-reference.ts";
import { ALL_DEFINITIONS, CONNECTION_DEFINITIONS } from "./controllers/kind-list.ts";
import { HEADER, LABELS, TEMPLATE_HEADER } from "./generated-text.ts";
import { renderChartRbac, renderNamespacedPatch, renderNamespacedRbac, renderRbac } from "./rbac.ts";

const ROOT = join(import.meta.dirname, "..");
export const CRD_DIR = join(ROOT, "crds");
export const RBAC_FILE = join(ROOT, "deploy", "rbac.yaml");
export const CHART_DIR = join(ROOT, "deploy", "helm", "harbor-config-operator");
export const CHART_CRD_DIR = join(CHART_DIR, "templates", "crds");
export const CHART_RBAC_FILE = join(CHART_DIR, "templates", "rbac.yaml");
export const NAMESPACED_DIR = join(ROOT, "deploy", "components", "namespaced");
export const NAMESPACED_RBAC_FILE = join(NAMESPACED_DIR, "rbac.yaml");
export const NAMESPACED_PATCH_FILE = join(NAMESPACED_DIR, "cluster-role-patch.yaml");
export const FINALIZER_POLICY_FILE = join(
  ROOT,
  "deploy",
  "components",
  "finalizer-at-admission",
  "policy.yaml",
);
export const CHART_FINALIZER_POLICY_FILE = join(CHART_DIR, "templates", "finalizer-policy.yaml");
export const FLUX_KUSTOMIZATION_FILE = join(ROOT, "deploy", "flux", "kustomization-example.yaml");
export const API_REFERENCE_FILE = join(ROOT, "docs", "reference", "api.md");
export const KIND_PAGES_DIR = join(ROOT, "docs", "kinds");
const EXAMPLES_DIR = join(ROOT, "deploy", "examples");

/**
 * File name → text of every file in crds/: one CRD per kind, and `Kustomization` listing them so
 * that kustomize can use crds/ as a base (deploy/ does). That file has no .yaml extension so that
 * `kubectl apply -f crds/` still applies the CRDs alone.
 */
export function renderCrds(): Map<string, string> {
  const files = new Map<string, string>();
  for (const def of ALL_DEFINITIONS) {
    files.set(`${GROUP}_${def.plural}.yaml`, HEADER + stringify(crdFor(def), { lineWidth: 0 }));
  }
  const kustomization = {
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    resources: [...files.keys()].sort(),
  };
  files.set("Kustomization", HEADER + stringify(kustomization));
  return files;
}

/**
 * File name → text of every CRD template of the chart (templates/crds/): the CRDs of crds/ with the
 * chart's labels, installed when `crds.install` is on and kept on `helm uninstall` when `crds.keep`
 * is on (deleting a CRD deletes every resource of its kind). Templates rather than Helm's crds/
 * folder, which Helm installs once and never upgrades: a new chart must bring its new kinds and
 * schema changes with `helm upgrade`.
 */
export function renderChartCrds(): Map<string, string> {
  const files = new Map<string, string>();
  for (const def of ALL_DEFINITIONS) {
    const crd = crdFor(def) as { metadata: Record<string, unknown> };
    if (crd.metadata.annotations !== undefined)
      throw new Error(`${def.kind}: the chart's CRD template does not merge annotations of its own yet`);
    const marker = "HELM_LABELS_MARKER";
    const body = stringify({ ...crd, metadata: { ...crd.metadata, labels: marker } }, { lineWidth: 0 })
      // Text that Go templates would read as an action (none today, but descriptions are free text).
      .replaceAll("{{", '{{ "{{" }}')
      .replace(
        `  labels: ${marker}\n`,
        [
          "  labels:",
          `    ${LABELS}`,
          "  {{- if .Values.crds.keep }}",
          "  annotations:",
          "    helm.sh/resource-policy: keep",
          "  {{- end }}",
          "",
        ].join("\n"),
      );
    if (body.includes(marker)) throw new Error(`${def.kind}: the CRD's labels were not where expected`);
    files.set(
      `${GROUP}_${def.plural}.yaml`,
      `${TEMPLATE_HEADER}{{- if .Values.crds.install }}\n${body}{{- end }}\n`,
    );
  }
  return files;
}

/**
 * Flux's health checks for our kinds, as CEL: Current once Ready is True for the current generation,
 * Failed once Stalled is True; in progress otherwise (Flux itself checks observedGeneration first).
 * kstatus alone would take a resource the operator has not written a status for yet as Current, so
 * `wait: true` would end before the operator even looked.
 */
export function renderFluxKustomization(): string {
  const condition = (type: string) =>
    `status.conditions.exists(c, c.type == '${type}' && c.status == 'True')`;
  const kinds = [
    ...CONNECTION_DEFINITIONS,
    ...ALL_DEFINITIONS.filter((d) => !CONNECTION_DEFINITIONS.includes(d)),
  ];
  const kustomization = {
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name: "team-a-harbor", namespace: "flux-system" },
    spec: {
      interval: "10m",
      retryInterval: "1m",
      sourceRef: { kind: "GitRepository", name: "platform" },
      path: "./teams/team-a/harbor",
      prune: true,
      wait: true,
      timeout: "3m",
      healthCheckExprs: kinds.map((d) => ({
        apiVersion: API_VERSION,
        kind: d.kind,
        failed: condition("Stalled"),
        current: `status.observedGeneration == metadata.generation && ${condition("Ready")}`,
      })),
    },
  };
  return `# Generated by \`npm run generate\` from the kind registry; do not edit.
#
# A Flux Kustomization for one team's folder of Harbor resources (replace the name, sourceRef and
# path). healthCheckExprs makes \`wait: true\` mean what the operator's statuses say: a resource is
# done once Ready is True for its current generation, failed once Stalled is True. Without them
# Flux's default (kstatus) takes a resource whose status the operator has not written yet as done.
# Connections in a Kustomization of their own, which this one names in dependsOn, come first:
#   dependsOn: [{name: harbor-connections}]
${stringify(kustomization, { lineWidth: 0 })}`;
}

const EXAMPLE_BEGIN = "<!-- The example, copied from deploy/examples/ by `npm run generate`: -->";
const EXAMPLE_END = "<!-- End of the example. -->";

/**
 * Each kind's page in docs/kinds/ with its example: the files of deploy/examples/ that hold a
 * resource of the page's kinds (those its title names), copied between two markers after the
 * page's opening lines, so that the example a page shows is the one the tests apply.
 */
export function renderKindPages(): Map<string, string> {
  const pages = new Map<string, string>();
  const examples = readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
    .sort()
    .map((f) => ({ file: f, text: readFileSync(join(EXAMPLES_DIR, f), "utf8") }));
  for (const page of readdirSync(KIND_PAGES_DIR).filter((f) => f.endsWith(".md"))) {
    const path = join(KIND_PAGES_DIR, page);
    const text = readFileSync(path, "utf8");
    const title = /^# (.+)$/m.exec(text)?.[1] ?? "";
    const kinds = ALL_DEFINITIONS.map((d) => d.kind).filter(
      (k) => new RegExp(`\\b${k}\\b`).test(title) || (page === "runs.md" && k.endsWith("Run")),
    );
    const files = examples.filter((e) => kinds.some((k) => new RegExp(`^kind: ${k}$`, "m").test(e.text)));
    const block = [
      EXAMPLE_BEGIN,
      "",
      ...files.flatMap((e) => [
        `[\`deploy/examples/${e.file}\`](../../deploy/examples/${e.file}):`,
        "",
        "```yaml",
        e.text.trimEnd(),
        "```",
        "",
      ]),
      EXAMPLE_END,
    ].join("\n");
    const begin = text.indexOf(EXAMPLE_BEGIN);
    const end = text.indexOf(EXAMPLE_END);
    let next: string;
    if (begin >= 0 && end > begin) next = text.slice(0, begin) + block + text.slice(end + EXAMPLE_END.length);
    else {
      // After the title and the line that links the API reference.
      const lines = text.split("\n");
      const at = lines.findIndex((l, i) => i > 0 && l.includes("reference/api.md"));
      lines.splice(at + 1, 0, "", "## Example", "", block, "", "## How it works");
      next = lines.join("\n");
    }
    if (files.length) pages.set(path, next);
  }
  return pages;
}

/** Every generated file by path, with its text. */
export function renderAll(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, text] of renderCrds()) files.set(join(CRD_DIR, name), text);
  files.set(RBAC_FILE, renderRbac());
  for (const [name, text] of renderChartCrds()) files.set(join(CHART_CRD_DIR, name), text);
  files.set(CHART_RBAC_FILE, renderChartRbac());
  files.set(NAMESPACED_RBAC_FILE, renderNamespacedRbac());
  files.set(NAMESPACED_PATCH_FILE, renderNamespacedPatch());
  files.set(FINALIZER_POLICY_FILE, renderFinalizerPolicy());
  files.set(CHART_FINALIZER_POLICY_FILE, renderChartFinalizerPolicy());
  files.set(FLUX_KUSTOMIZATION_FILE, renderFluxKustomization());
  files.set(API_REFERENCE_FILE, renderApiReference(ALL_DEFINITIONS));
  for (const [path, text] of renderKindPages()) files.set(path, text);
  return files;
}

/** The folders whose every file is generated: a file there that nothing generates is stale. */
export const GENERATED_DIRS = [CRD_DIR, CHART_CRD_DIR];
const isGenerated = (file: string) => file.endsWith(".yaml") || file === "Kustomization";

function main(check: boolean): number {
  const files = renderAll();
  const stale: string[] = [];
  // A file left in crds/ (or the chart's CRD templates) that no kind generates is stale too.
  const expected = new Set(files.keys());
  for (const dir of GENERATED_DIRS) {
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(dir).filter(isGenerated)) {
      const path = join(dir, f);
      if (expected.has(path)) continue;
      stale.push(path);
      if (!check) rmSync(path);
    }
  }
  for (const [path, text] of files) {
    let current: string | undefined;
    try {
      current = readFileSync(path, "utf8");
    } catch {
      current = undefined;
    }
    if (current === text) continue;
    stale.push(path);
    if (check) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  const names = stale.map((p) => p.slice(ROOT.length + 1));
  if (check && stale.length) {
    process.stderr.write(`out of date: ${names.join(", ")}; run npm run generate\n`);
    return 1;
  }
  process.stdout.write(check ? "generated files are up to date\n" : `wrote ${names.length} file(s)\n`);
  return 0;
}

if (import.meta.main) process.exit(main(process.argv.includes("--check")));
