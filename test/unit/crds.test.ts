// crds/ is generated from the zod schemas in src/api: it must be current, so that what users
// install is what the operator parses.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { CRD_DIR, renderCrds } from "../../src/api/generate.ts";

test("crds/ matches the schemas in src/api (run npm run generate after changing them)", () => {
  const generated = renderCrds();
  const onDisk = readdirSync(CRD_DIR).filter((f) => f.endsWith(".yaml") || f === "Kustomization");
  expect(onDisk.sort()).toEqual([...generated.keys()].sort());
  for (const [name, text] of generated) expect(readFileSync(join(CRD_DIR, name), "utf8"), name).toBe(text);
});
