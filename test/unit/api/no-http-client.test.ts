// src/api is the CRD contract: `npm run generate`, spec parsing and anything that only needs the
// kinds' schemas load it, and none of them should pull in the Harbor client and its HTTP stack.
// A fresh Node process imports every module of src/api with a resolve hook that records each module
// it loads; what it may load is src/api itself, the Harbor model that imports nothing but zod, zod,
// and Node's built-ins.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const apiDir = join(root, "src", "api");
const modules = readdirSync(apiDir)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => pathToFileURL(join(apiDir, f)).href);

/** Every module URL the child loads while importing `urls`, in load order. */
function loadedBy(urls: readonly string[]): string[] {
  const script = `
    import { registerHooks } from "node:module";
    const loaded = [];
    registerHooks({
      resolve(specifier, context, next) {
        const r = next(specifier, context);
        loaded.push(r.url);
        return r;
      },
    });
    for (const url of ${JSON.stringify(urls)}) await import(url);
    process.stdout.write(JSON.stringify([...new Set(loaded)]));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  return JSON.parse(out) as string[];
}

/**
 * The HTTP client: undici, or the module through which the operator loads its parts (with
 * require(), which the import hook does not see).
 */
const HTTP_CLIENT = /node_modules\/undici\/|^src\/harbor\/pool\.ts$/;

const relative = (url: string) =>
  url.startsWith("file:") ? fileURLToPath(url).slice(root.length).replaceAll("\\", "/") : url;

test("src/api has modules to check", () => {
  expect(modules.map((m) => m.split("/").pop())).toEqual(
    expect.arrayContaining(["common.ts", "crd.ts", "project.ts", "robot.ts", "webhook.ts"]),
  );
});

test("importing every src/api module loads no HTTP client", () => {
  const loaded = loadedBy(modules).map(relative);
  expect(loaded.filter((m) => HTTP_CLIENT.test(m))).toEqual([]);
  const allowed = (m: string) =>
    m.startsWith("node:") ||
    m.startsWith("src/api/") ||
    m.startsWith("src/harbor/model/") ||
    m.startsWith("node_modules/zod/");
  expect(loaded.filter((m) => !allowed(m))).toEqual([]);
  // The check sees what it should: the Harbor model and zod are among the loaded modules.
  expect(loaded).toContain("src/harbor/model/enums.ts");
  expect(loaded.some((m) => m.startsWith("node_modules/zod/"))).toBe(true);
});

test("the check notices the HTTP client when a module loads it", () => {
  const loaded = loadedBy([pathToFileURL(join(root, "src", "harbor", "client.ts")).href]).map(relative);
  expect(loaded.some((m) => HTTP_CLIENT.test(m))).toBe(true);
});
