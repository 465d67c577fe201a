// Every kind of the registry describes itself to users: an example in deploy/examples/ (which the
// demo applies and the deploy test brings to Ready) and a section of the README. A kind added to
// src/controllers/registry.ts without them fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { ALL_DEFINITIONS } from "../../src/controllers/registry.ts";
import { exampleResources, examplesDir } from "../env/examples.ts";

const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
/** The README's third-level headings, e.g. "HarborConnection and ClusterHarborConnection". */
const sections = [...readme.matchAll(/^### (.+)$/gm)].map((m) => m[1] as string);

describe.each(ALL_DEFINITIONS.map((d) => d.kind))("%s", (kind) => {
  test("has an example in deploy/examples/", () => {
    expect(exampleResources().map((o) => o.kind)).toContain(kind);
  });

  test("has a section of the README (a ### heading that names it)", () => {
    expect(sections.filter((s) => new RegExp(`\\b${kind}\\b`).test(s))).not.toEqual([]);
  });
});

test("every example file is in deploy/examples/kustomization.yaml", () => {
  const kustomization = parse(readFileSync(join(examplesDir, "kustomization.yaml"), "utf8")) as {
    resources: string[];
  };
  const files = readdirSync(examplesDir).filter((f) => /\.ya?ml$/.test(f) && f !== "kustomization.yaml");
  expect([...kustomization.resources].sort()).toEqual(files.sort());
});
