// The image's JavaScript (src/build.ts): types stripped in place, relative imports pointing at .js,
// and every module of the operator written so that it loads without Node's TypeScript support.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { build, toJavaScript } from "../../src/build.ts";

const root = join(import.meta.dirname, "..", "..");
const out = mkdtempSync(join(tmpdir(), "hco-build-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the operator as JavaScript", () => {
  test("keeps every line and column, and imports the .js of each relative .ts import", () => {
    const source = [
      'import type { A } from "./a.ts";',
      'import { b, type C } from "../b/c.ts";',
      'export { d } from "./d.ts";',
      "const e = (x: number): string => String(x);",
      'const f = await import("./f.ts");',
      'import { g } from "node:fs";',
      'import { h } from "pkg/h.ts";',
      "export function i<T>(v: T): T { return v; } // after: the same column",
    ].join("\n");
    const js = toJavaScript(source);
    const lines = js.split("\n");
    expect(lines).toHaveLength(8);
    expect(lines[1]).toMatch(/from "\.\.\/b\/c\.js"/);
    expect(lines[2]).toBe('export { d } from "./d.js";');
    expect(lines[3]).not.toContain("number");
    expect(lines[4]).toBe('const f = await import("./f.js");');
    // Packages and built-ins are left as they are.
    expect(lines[5]).toBe('import { g } from "node:fs";');
    expect(lines[6]).toBe('import { h } from "pkg/h.ts";');
    expect(lines[7]?.indexOf("// after")).toBe(source.split("\n")[7]?.indexOf("// after"));
  });

  test("writes every module of the operator, and the result starts without Node's type stripping", () => {
    const modules = build(out);
    expect(modules).toBeGreaterThan(100);
    expect(readFileSync(join(out, "src", "main.js"), "utf8")).toContain('from "./config.js"');
    // Packages resolve from the project's node_modules and package.json says "module", as in the image.
    symlinkSync(join(root, "node_modules"), join(out, "node_modules"));
    symlinkSync(join(root, "package.json"), join(out, "package.json"));
    const r = spawnSync(
      process.execPath,
      ["--no-experimental-strip-types", join(out, "src", "main.js"), "--help"],
      {
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Usage: harbor-config-operator");
  });
});
