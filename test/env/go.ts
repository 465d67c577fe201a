// What the builds of Go binaries for the tests share (the control plane, Argo CD, Flux, Helm):
// finding Go, checking for a built binary, the elapsed time of a build for its progress lines, and
// building a binary from a build module of this repository (test/env/*/build) into a cache.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { withFileLock } from "./controlplane/file-lock.ts";

/** The Go command, or undefined when the machine has none. */
export function findGo(): string | undefined {
  // /usr/local/go is where Go's own installer puts it, often not on a non-login shell's PATH.
  return ["go", "/usr/local/go/bin/go"].find(
    (candidate) => spawnSync(candidate, ["env", "GOVERSION"], { stdio: "ignore" }).status === 0,
  );
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** "42s" or "4m36s" since `since` (a Date.now()). */
export function elapsed(since: number): string {
  const s = Math.round((Date.now() - since) / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/**
 * The environment of a build from a build module: the toolchain its go.mod names (`auto` fetches it
 * through the module proxy when the machine's Go is older), static, never rewriting go.mod/go.sum.
 */
export function goModuleEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GOTOOLCHAIN: "auto",
    CGO_ENABLED: "0",
    GOFLAGS: "-mod=readonly -buildvcs=false",
    GOWORK: "off",
  };
}

export interface GoModuleBuild {
  go: string;
  /** The build module's folder: its go.mod pins what is built. */
  moduleDir: string;
  /** The package to build: "." or an import path the module requires. */
  pkg: string;
  dest: string;
  ldflags?: string;
  /** What is built, for the progress lines ("Argo CD 3.6.1 (…)"). */
  what: string;
  /** How long a first build takes on this machine, for the first progress line. */
  expected: string;
  log: (line: string) => void;
}

/** Builds into `dest` through a partial file, so that an interrupted build leaves no binary behind. */
export async function goModuleBuild(o: GoModuleBuild): Promise<void> {
  // Named after this process: a build orphaned by an earlier run's death may still be writing its own.
  const partial = `${o.dest}.${process.pid}.partial`;
  const args = [
    "build",
    // As for the control plane: bounded parallelism keeps a first run's peak memory predictable.
    `-p=${Math.min(availableParallelism(), 4)}`,
    "-trimpath",
    `-ldflags=-s -w${o.ldflags ? ` ${o.ldflags}` : ""}`,
    "-o",
    partial,
    o.pkg,
  ];
  const started = Date.now();
  o.log(`building ${o.what} with ${o.go}`);
  o.log(`  (first run on this machine only; ${o.expected} on 2 cores)…`);
  const heartbeat = setInterval(() => o.log(`  … still building ${o.what} (${elapsed(started)})`), 30_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(o.go, args, {
        cwd: o.moduleDir,
        env: goModuleEnv(),
        stdio: ["ignore", "inherit", "inherit"],
      });
      child.once("error", reject);
      child.once("exit", resolve);
    });
    if (code !== 0) throw new Error(`go build of ${o.what} failed (exit ${code}); its output is above`);
  } finally {
    clearInterval(heartbeat);
  }
  renameSync(partial, o.dest);
  o.log(`built ${o.what} in ${elapsed(started)}`);
}

/** Where the module cache holds a module the build module requires (downloaded by its build). */
export function requiredModuleDir(go: string, moduleDir: string, modulePath: string): string {
  const r = spawnSync(go, ["list", "-m", "-f", "{{.Dir}}", modulePath], {
    cwd: moduleDir,
    env: goModuleEnv(),
    encoding: "utf8",
  });
  const dir = r.stdout.trim();
  if (r.status !== 0 || !dir) throw new Error(`go list -m ${modulePath} failed: ${r.stderr}`);
  return dir;
}

/** The version of `modulePath` that a build module's go.mod requires: the single place it is written. */
export function pinnedVersion(moduleDir: string, modulePath: string): string {
  const goMod = readFileSync(join(moduleDir, "go.mod"), "utf8");
  const escaped = modulePath.replaceAll(".", "\\.").replaceAll("/", "\\/");
  const match = goMod.match(new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+v(\\S+)`, "m"));
  if (!match?.[1]) throw new Error(`${moduleDir}/go.mod does not require ${modulePath}`);
  return match[1];
}

/**
 * The cache folder of one build: under `root`, named after the release and a hash of the build
 * module's files, so that a change of a pin (or of the module's code) gets a folder of its own.
 */
export function buildCacheDir(
  root: string,
  version: string,
  moduleDir: string,
  files: readonly string[],
): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(readFileSync(join(moduleDir, file)));
  return join(root, `${version}-${hash.digest("hex").slice(0, 12)}`);
}

/**
 * Runs `build` holding the cache folder's lock, so that two test runs build once; what an
 * interrupted run left half-written (`*.partial`) goes first. `build` checks again what is
 * missing: another run may have built it while this one waited.
 */
export async function buildLocked(
  dir: string,
  log: (line: string) => void,
  build: () => Promise<void>,
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const onWait = (pid: number) =>
    log(`waiting for another test run (pid ${pid}) that is building into ${dir}`);
  await withFileLock(`${dir}.lock`, onWait, async () => {
    for (const entry of readdirSync(dir)) {
      if (entry.endsWith(".partial")) rmSync(join(dir, entry), { recursive: true, force: true });
    }
    await build();
  });
}
