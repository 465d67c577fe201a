// The operation table in src/harbor/README.md is the client's documented surface: every row must
// name a real client method, and that method's module must send that operationId.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { HarborClient } from "../../../src/harbor/client.ts";

const dir = join(import.meta.dirname, "..", "..", "..", "src", "harbor");
const rows = readFileSync(join(dir, "README.md"), "utf8")
  .split("\n")
  .map((line) =>
    /^\|\s*(GET|POST|PUT|PATCH|DELETE|HEAD)\s*\|\s*(\S+)\s*\|\s*(\w+)\s*\|\s*`(\w+)\.(\w+)`\s*\|$/.exec(line),
  )
  .filter((m): m is RegExpExecArray => m !== null)
  .map(([, method, path, operation, area, name]) => ({ method, path, operation, area, name }));
const sources = readdirSync(dir)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => readFileSync(join(dir, f), "utf8"))
  .join("\n");

describe("the operation table", () => {
  const client = new HarborClient({ url: "https://harbor.invalid", username: "u", password: "p" });

  test("lists every operation once", () => {
    expect(rows.length).toBeGreaterThanOrEqual(91);
    expect(new Set(rows.map((r) => r.operation)).size).toBe(rows.length);
  });

  test.each(rows)("$operation is $area.$name", ({ operation, area, name }) => {
    const api = (client as unknown as Record<string, Record<string, unknown>>)[area as string];
    expect(typeof api?.[name as string]).toBe("function");
    expect(sources).toContain(`operation: "${operation}"`);
  });
});
