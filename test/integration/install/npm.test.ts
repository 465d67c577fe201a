// The README's set-up with the newest npm: npm 12 runs no dependency install script that
// package.json's allowScripts does not approve, so an approval that does not match (as once
// happened) leaves the project without its Node 24 and every script on the machine's own Node.
// Run on a clean copy of the project with npm 12 taken from the registry (cached per machine).
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { copyOfProject, machineEnv, npmRelease } from "../../env/npm.ts";

const NPM = "12.2.0";
let npmCli = "";
let project: ReturnType<typeof copyOfProject> | undefined;

beforeAll(() => {
  npmCli = npmRelease(NPM);
  project = copyOfProject();
}, 240_000);
afterAll(() => project?.remove());

/** npm 12 in the copy, started by the machine's own node as a user's shell would. */
function npm(args: string[], timeout = 240_000) {
  const r = spawnSync("node", [npmCli, ...args], {
    cwd: project?.dir,
    env: machineEnv(),
    encoding: "utf8",
    timeout,
  });
  return { code: r.status, stdout: r.stdout, output: `${r.stdout}${r.stderr}` };
}

describe(`set-up with npm ${NPM}`, () => {
  test("an install script allowScripts does not cover fails the install instead of being skipped", () => {
    const dir = project?.dir ?? "";
    const manifest = readFileSync(join(dir, "package.json"), "utf8");
    writeFileSync(
      join(dir, "package.json"),
      manifest.replace(/"allowScripts": \{[^}]*\}/, '"allowScripts": {}'),
    );
    try {
      const r = npm(["ci"]);
      expect(r.code, r.output).not.toBe(0);
      expect(r.output).toMatch(/ESTRICTALLOWSCRIPTS/);
      expect(r.output).toMatch(/node@\d+\.\d+\.\d+/);
    } finally {
      writeFileSync(join(dir, "package.json"), manifest);
      rmSync(join(dir, "node_modules"), { recursive: true, force: true });
    }
  });

  test("npm ci provides the project's Node 24 and npm test runs on it", () => {
    const dir = project?.dir ?? "";
    const ci = npm(["ci"]);
    expect(ci.code, ci.output).toBe(0);
    expect(ci.output).not.toMatch(/install scripts? (blocked|not yet covered)/);

    const pinned = (
      JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        devDependencies: Record<string, string>;
      }
    ).devDependencies.node;
    const node = spawnSync(join(dir, "node_modules", ".bin", "node"), ["--version"], { encoding: "utf8" });
    expect(node.stdout.trim()).toBe(`v${pinned}`);

    const run = npm(["test", "--", "--project", "unit", "test/unit/log.test.ts"], 120_000);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout.trim().split("\n").at(-1)).toMatch(/^[1-9]\d* passed, 0 failed$/);
  });
});
