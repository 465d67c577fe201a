// Finds Argo CD for the real-Argo CD test, building it when missing.
//
// One binary (build/main.go) runs Argo CD's application controller, its repo server and a
// Redis-compatible server, compiled from the Go modules pinned in build/go.mod once per machine
// into a cache outside the repository, keyed by the Argo CD release and a hash of the build
// module (a change of main.go or of a pin gets a folder of its own). From the same release's module
// come Argo CD's CRDs (Application, AppProject) and the git wrapper scripts its image puts on PATH
// (the repo server runs git-verify-wrapper.sh on every revision), kept next to the binary.
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { cacheFolder } from "../cache.ts";
import {
  buildCacheDir,
  buildLocked,
  findGo,
  goModuleBuild,
  isExecutable,
  pinnedVersion,
  requiredModuleDir,
} from "../go.ts";

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
  return pinnedVersion(buildModule, argoModule);
}

/** The folder holding the built binary and CRDs of the pinned release and build module. */
export function cacheDir(): string {
  const root = process.env.HCO_ARGOCD_CACHE || cacheFolder("argocd");
  return buildCacheDir(root, argoCdVersion(), buildModule, ["go.mod", "go.sum", "main.go"]);
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
    await buildLocked(dir, log, async () => {
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

function goBuild(go: string, version: string, dest: string, log: Log): Promise<void> {
  return goModuleBuild({
    go,
    moduleDir: buildModule,
    pkg: ".",
    dest,
    ldflags: `-X ${argoModule}/common.version=${version}`,
    what: `Argo CD ${version} (application controller, repo server) and miniredis`,
    expected: "about 10 minutes",
    log,
  });
}

/** Copies the release's CRDs and scripts out of its (already downloaded) module. */
function copyReleaseFiles(go: string, dir: string): void {
  const moduleDir = requiredModuleDir(go, buildModule, argoModule);
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
