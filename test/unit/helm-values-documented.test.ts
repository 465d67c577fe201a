// The values table of the Helm chart (docs/getting-started.md) names every value of its values.yaml,
// and nothing that is not one: a value added to the chart fails this test until the docs say what
// it does.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { parse } from "yaml";
import { CHART_DIR } from "../../src/generate.ts";

const root = join(import.meta.dirname, "..", "..");

/** A value's dotted path; maps are followed down, but for free-form Kubernetes fields. */
function paths(values: Record<string, unknown>, prefix = ""): string[] {
  const wholeObjects = new Set(["resources"]);
  return Object.entries(values).flatMap(([key, value]) => {
    const path = `${prefix}${key}`;
    const isMap = value !== null && typeof value === "object" && !Array.isArray(value);
    if (isMap && Object.keys(value).length > 0 && !wholeObjects.has(path))
      return paths(value as Record<string, unknown>, `${path}.`);
    return [path];
  });
}

test("the values table of docs/getting-started.md lists every value of the chart", () => {
  const values = parse(readFileSync(join(CHART_DIR, "values.yaml"), "utf8")) as Record<string, unknown>;
  const page = readFileSync(join(root, "docs", "getting-started.md"), "utf8");
  const section = page.slice(page.indexOf("## Install with Helm"));
  const table = section.slice(section.indexOf("| Value | Default | Meaning |"));
  const rows = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);
  const documented = rows.flatMap((row) =>
    [...(row.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]),
  );
  expect(rows.length).toBeGreaterThan(10);
  expect(documented.sort()).toEqual(paths(values).sort());
});
