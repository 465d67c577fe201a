// crds/, deploy/rbac.yaml and the Helm chart's CRD and RBAC templates are generated from the kind
// registry (`npm run generate`): they must be current, so that what users install, either way, is
// what the operator parses and needs.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { MANAGED_KINDS, RUN_KINDS } from "../../src/controllers/kind-list.ts";
import {
  CHART_CRD_DIR,
  CHART_RBAC_FILE,
  CRD_DIR,
  RBAC_FILE,
  renderAll,
  renderChartCrds,
  renderCrds,
} from "../../src/generate.ts";

describe("generated files", () => {
  test("crds/, deploy/rbac.yaml and the chart's templates are current (run npm run generate after changing a kind)", () => {
    const onDisk = readdirSync(CRD_DIR).filter((f) => f.endsWith(".yaml") || f === "Kustomization");
    expect(onDisk.sort()).toEqual([...renderCrds().keys()].sort());
    expect(readdirSync(CHART_CRD_DIR).sort()).toEqual([...renderChartCrds().keys()].sort());
    const generated = renderAll();
    expect(generated.has(CHART_RBAC_FILE)).toBe(true);
    for (const [path, text] of generated) expect(readFileSync(path, "utf8"), path).toBe(text);
  });

  test("the chart's CRD templates are the CRDs of crds/, switchable and kept on uninstall", () => {
    const crds = renderCrds();
    for (const [name, text] of renderChartCrds()) {
      expect(crds.has(name), name).toBe(true);
      expect(text).toMatch(/^\{\{\/\*.*\*\/\}\}\n\{\{- if \.Values\.crds\.install \}\}\n/);
      expect(text).toContain(
        "  {{- if .Values.crds.keep }}\n  annotations:\n    helm.sh/resource-policy: keep\n",
      );
      // Everything from `spec:` on is the CRD of crds/ as it is.
      const spec = (t: string) =>
        t.slice(t.indexOf("\nspec:\n"), t.lastIndexOf("\n{{- end }}") + 1 || undefined);
      expect(spec(text)).toBe((crds.get(name) ?? "").slice((crds.get(name) ?? "").indexOf("\nspec:\n")));
    }
  });

  test("the RBAC covers every managed kind, its status, and nothing it does not need", () => {
    const [role] = parseAllDocuments(readFileSync(RBAC_FILE, "utf8")).map((d) => d.toJS()) as Array<{
      rules: Array<{ resources: string[]; verbs: string[] }>;
    }>;
    const granted = (resource: string) =>
      (role?.rules ?? []).filter((r) => r.resources.includes(resource)).flatMap((r) => r.verbs);
    for (const k of MANAGED_KINDS) {
      expect(granted(k.def.plural).sort(), k.def.kind).toEqual(["get", "list", "patch", "watch"]);
      expect(granted(`${k.def.plural}/status`), k.def.kind).toEqual(["patch"]);
      expect(granted(`${k.def.plural}/finalizers`), k.def.kind).toEqual(k.ownsSecrets ? ["update"] : []);
    }
    expect(granted("configmaps")).toEqual([]);
  });

  test("run kinds: what managed kinds get, plus delete (a finished run's TTL), and only they get delete", () => {
    const [role] = parseAllDocuments(readFileSync(RBAC_FILE, "utf8")).map((d) => d.toJS()) as Array<{
      rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    }>;
    const rules = role?.rules ?? [];
    const granted = (resource: string) =>
      rules.filter((r) => r.resources.includes(resource)).flatMap((r) => r.verbs);
    expect(RUN_KINDS.length).toBeGreaterThan(0);
    for (const k of RUN_KINDS) {
      expect(granted(k.def.plural).sort(), k.def.kind).toEqual(["delete", "get", "list", "patch", "watch"]);
      expect(granted(`${k.def.plural}/status`), k.def.kind).toEqual(["patch"]);
      expect(granted(`${k.def.plural}/finalizers`), k.def.kind).toEqual([]);
    }
    const runs = new Set(RUN_KINDS.map((k) => k.def.plural));
    const deletable = rules
      .filter((r) => r.apiGroups.includes("harborconfig.io") && r.verbs.includes("delete"))
      .flatMap((r) => r.resources);
    expect(deletable.sort()).toEqual([...runs].sort());
  });
});
