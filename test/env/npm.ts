// Other npm releases than the machine's, and a clean copy of the project to run them on, for the
// set-up tests. A release is taken from the npm registry once per machine and cached next to the
// control-plane binaries.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { cacheFolder } from "./cache.ts";
import { withoutGuard } from "./net-guard-env.ts";

const root = join(import.meta.dirname, "..", "..");

/** The npm-cli.js of that npm release, installed into the cache on first use. */
export function npmRelease(version: string): string {
  const cache = cacheFolder("npm");
  const dir = join(cache, version);
  const cli = join(dir, "node_modules", "npm", "bin", "npm-cli.js");
  if (existsSync(cli)) return cli;
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, `.${version}-`));
  try {
    const r = spawnSync(
      "npm",
      [
        "install",
        "--prefix",
        staging,
        "--no-save",
        "--no-package-lock",
        "--no-audit",
        "--no-fund",
        `npm@${version}`,
      ],
      { encoding: "utf8", env: machineEnv(), timeout: 180_000 },
    );
    if (r.status !== 0) throw new Error(`could not fetch npm ${version}: ${r.stderr.slice(-2000)}`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return cli;
}

/**
 * The environment of a fresh shell on this machine: no npm_* variables of the npm that runs the
 * tests, no node_modules/.bin of this checkout on PATH (so `node` is the machine's own), and no
 * network guard: npm here fetches from the npm registry on purpose (the guard's one exemption).
 */
export function machineEnv(extra: Record<string, string> = {}): Record<string, string> {
  let env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^npm_/i.test(k)) env[k] = v;
  }
  env = withoutGuard(env);
  env.PATH = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((p) => p && !p.endsWith(join("node_modules", ".bin")))
    .join(delimiter);
  return { ...env, ...extra };
}

/** A copy of the project's files as a clean clone would have them (tracked and new, not ignored). */
export function copyOfProject(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "hco-clone-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter((f) => f && existsSync(join(root, f)));
  for (const f of files) {
    mkdirSync(join(dir, dirname(f)), { recursive: true });
    cpSync(join(root, f), join(dir, f));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
