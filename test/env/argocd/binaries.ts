// Finds Argo CD for the real-Argo CD test, building it when missing.
//
// One binary (build/main.go) runs Argo CD's application controller, its repo server and a
// Redis-compatible server, compiled from the Go modules pinned in build/go.mod once per machine
// into a cache outside the repository, keyed by the Argo CD release and a hash of the build
// module (a change of main.go or of a pin gets a folder of its own). From the same release's module
// come Argo CD's CRDs (Application, AppProject) and the git wrapper scripts its image puts on PATH
// (the repo server runs git-verify-wrapper.sh on every revision), kept next to the binary.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { availableParallelism } from "node:os";
import { basename, join } from "node:path";
import { cacheFolder } from "../cache.ts";
import { withFileLock } from "../controlplane/file-lock.ts";
import { elapsed, findGo, isExecutable } from "../go.ts";

export interface ArgoCdBinaries {
  /** The Argo CD release, e.g. "3.6.1". */
  version: string;
  /** The multi-call binary: `<binary> application-controller|repo-server|redis …`. */
  binary: string;
  /** A folder with the release's Application and AppProject CRDs. */
  crds: string;
  /** A folder for the repo server's PATH: the release's git and gpg wrapper scripts. */
  scripts: string;
}

type Log = (line: string) => void;

const buildModule = join(import.meta.dirname, "build");
const argoModule = "github.com/argoproj/argo-cd/v3";
const binaryName = "argocd-test";
/** What is taken from the release's module: folder in the cache → files of the module. */
const releaseFiles = {
  crds: ["manifests/crds/application-crd.yaml", "manifests/crds/appproject-crd.yaml"],
  scripts: ["hack/git-verify-wrapper.sh", "hack/gpg-wrapper.sh"],
};

/** The Argo CD release that build/go.mod pins: the single place it is written. */
export function argoCdVersion(): string {
  const goMod = readFileSync(join(buildModule, "go.mod"), "utf8");
  const match = goMod.match(/^\s*(?:require\s+)?github\.com\/argoproj\/argo-cd\/v3\s+v(\S+)/m);
  if (!match?.[1]) throw new Error(`${buildModule}/go.mod does not require ${argoModule}`);
  return match[1];
}

/** The folder holding the built binary and CRDs of the pinned release and build module. */
export function cacheDir(): string {
  const root = process.env.HCO_ARGOCD_CACHE || cacheFolder("argocd");
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum", "main.go"]) hash.update(readFileSync(join(buildModule, file)));
  return join(root, `${argoCdVersion()}-${hash.digest("hex").slice(0, 12)}`);
}

/** Returns the binary and CRDs, building them on a machine's first run (minutes, once). */
export async function prepareArgoCd(log: Log): Promise<ArgoCdBinaries> {
  const version = argoCdVersion();
  const dir = cacheDir();
  const binary = join(dir, binaryName);
  const crds = join(dir, "crds");
  const scripts = join(dir, "scripts");
  if (!ready(binary, dir)) {
    const go = findGo();
    if (!go) throw new Error(noGoMessage(dir));
    mkdirSync(dir, { recursive: true });
    const onWait = (pid: number) =>
      log(`waiting for another test run (pid ${pid}) that is building into ${dir}`);
    await withFileLock(`${dir}.lock`, onWait, async () => {
      // Holding the lock, nobody else is building here: half-written files are from an interrupted run.
      for (const entry of readdirSync(dir)) {
        if (entry.endsWith(".partial")) rmSync(join(dir, entry), { recursive: true, force: true });
      }
      // Another run may have built them while this one waited for the lock.
      if (!isExecutable(binary)) await goBuild(go, version, binary, log);
      if (!existsSync(crds) || !existsSync(scripts)) copyReleaseFiles(go, dir);
    });
  }
  return { version, binary, crds, scripts };
}

function ready(binary: string, dir: string): boolean {
  return (
    isExecutable(binary) &&
    Object.entries(releaseFiles).every(([folder, files]) =>
      files.every((f) => existsSync(join(dir, folder, basename(f)))),
    )
  );
}

/** The build's environment: the toolchain go.mod names, static, never rewriting go.mod/go.sum. */
function goEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // Argo CD 3.6 needs Go 1.27: `auto` fetches the toolchain go.mod names (through the module
    // proxy) when the machine's Go is older, and uses the machine's when it is as new.
    GOTOOLCHAIN: "auto",
    CGO_ENABLED: "0",
    GOFLAGS: "-mod=readonly -buildvcs=false",
    GOWORK: "off",
  };
}

async function goBuild(go: string, version: string, dest: string, log: Log): Promise<void> {
  // Named after this process: a build orphaned by an earlier run's death may still be writing its own.
  const partial = `${dest}.${process.pid}.partial`;
  const args = [
    "build",
    // As for the control plane: bounded parallelism keeps a first run's peak memory predictable.
    `-p=${Math.min(availableParallelism(), 4)}`,
    "-trimpath",
    `-ldflags=-s -w -X ${argoModule}/common.version=${version}`,
    "-o",
    partial,
    ".",
  ];
  const started = Date.now();
  log(`building Argo CD ${version} (application controller, repo server) and miniredis with ${go}`);
  log("  (first run on this machine only; about 10 minutes on 2 cores)…");
  const heartbeat = setInterval(() => log(`  … still building Argo CD (${elapsed(started)})`), 30_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(go, args, {
        cwd: buildModule,
        env: goEnv(),
        stdio: ["ignore", "inherit", "inherit"],
      });
      child.once("error", reject);
      child.once("exit", resolve);
    });
    if (code !== 0) throw new Error(`go build of Argo CD failed (exit ${code}); its output is above`);
  } finally {
    clearInterval(heartbeat);
  }
  renameSync(partial, dest);
  log(`built Argo CD in ${elapsed(started)}`);
}

/** Copies the release's CRDs and scripts out of its (already downloaded) module. */
function copyReleaseFiles(go: string, dir: string): void {
  const r = spawnSync(go, ["list", "-m", "-f", "{{.Dir}}", argoModule], {
    cwd: buildModule,
    env: goEnv(),
    encoding: "utf8",
  });
  const moduleDir = r.stdout.trim();
  if (r.status !== 0 || !moduleDir) throw new Error(`go list -m ${argoModule} failed: ${r.stderr}`);
  for (const [folder, files] of Object.entries(releaseFiles)) {
    const dest = join(dir, folder);
    const partial = `${dest}.${process.pid}.partial`;
    mkdirSync(partial, { recursive: true });
    for (const file of files) {
      const target = join(partial, basename(file));
      copyFileSync(join(moduleDir, file), target);
      // The module cache is read-only: the copies get their own modes.
      chmodSync(target, file.endsWith(".sh") ? 0o755 : 0o644);
    }
    rmSync(dest, { recursive: true, force: true });
    renameSync(partial, dest);
  }
}

function noGoMessage(dir: string): string {
  return [
    "The real-Argo CD test runs Argo CD's application controller and repo server built from their Go",
    `modules, and Go is not installed. Install Go (https://go.dev/dl/); the first run builds them into`,
    `${dir} (minutes, once; Go fetches the toolchain Argo CD needs through the module proxy).`,
  ].join("\n");
}
