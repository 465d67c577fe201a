// crds/ and deploy/rbac.yaml are generated from the kind registry (`npm run generate`): they must be
// current, so that what users install is what the operator parses and needs.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { MANAGED_KINDS, RUN_KINDS } from "../../src/controllers/registry.ts";
import { CRD_DIR, RBAC_FILE, renderAll, renderCrds } from "../../src/generate.ts";

describe("generated files", () => {
  test("crds/ and deploy/rbac.yaml are current (run npm run generate after changing a kind)", () => {
    const onDisk = readdirSync(CRD_DIR).filter((f) => f.endsWith(".yaml") || f === "Kustomization");
    expect(onDisk.sort()).toEqual([...renderCrds().keys()].sort());
    for (const [path, text] of renderAll()) expect(readFileSync(path, "utf8"), path).toBe(text);
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
