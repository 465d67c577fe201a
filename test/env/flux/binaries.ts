// Finds Flux's kustomize-controller for the real-Flux test, building it when missing.
//
// The controller is compiled from the Go modules pinned in build/go.mod once per machine into a
// cache outside the repository, keyed by its release and a hash of the build module. Beside it go
// the CRDs it needs: its Kustomization, and the source kinds of the same Flux line it watches. Only
// a GitRepository is used, and the test writes its status itself (test/env/flux/artifacts.ts serves
// the artifact it names), so that no source-controller has to run.
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cacheFolder } from "../cache.ts";
import {
  buildCacheDir,
  buildLocked,
  findGo,
  goModuleBuild,
  goModuleEnv,
  isExecutable,
  pinnedVersion,
  requiredModuleDir,
} from "../go.ts";

export interface FluxBinaries {
  /** The kustomize-controller release, e.g. "1.10.1". */
  version: string;
  binary: string;
  /** A folder with the Kustomization and GitRepository CRDs. */
  crds: string;
}

type Log = (line: string) => void;

const buildModule = join(import.meta.dirname, "build");
const controllerModule = "github.com/fluxcd/kustomize-controller";
const sourceApiModule = "github.com/fluxcd/source-controller/api";
const binaryName = "kustomize-controller";

/** The release build/go.mod pins: the single place it is written. */
export function fluxVersion(): string {
  return pinnedVersion(buildModule, controllerModule);
}

/** The folder holding the built binary and CRDs of the pinned release and build module. */
export function cacheDir(): string {
  const root = process.env.HCO_FLUX_CACHE || cacheFolder("flux");
  return buildCacheDir(root, fluxVersion(), buildModule, ["go.mod", "go.sum", "tools.go"]);
}

/** Returns the binary and CRDs, building them on a machine's first run (minutes, once). */
export async function prepareFlux(log: Log): Promise<FluxBinaries> {
  const version = fluxVersion();
  const dir = cacheDir();
  const binary = join(dir, binaryName);
  const crds = join(dir, "crds");
  // The last CRD copied: a folder from before a kind was added lacks it.
  const complete = () => existsSync(join(crds, "source.toolkit.fluxcd.io_externalartifacts.yaml"));
  if (!(isExecutable(binary) && complete())) {
    const go = findGo();
    if (!go) throw new Error(noGoMessage(dir));
    await buildLocked(dir, log, async () => {
      if (!isExecutable(binary))
        await goModuleBuild({
          go,
          moduleDir: buildModule,
          pkg: controllerModule,
          dest: binary,
          what: `Flux kustomize-controller ${version}`,
          expected: "about 6 minutes",
          log,
        });
      if (!complete()) copyCrds(go, crds);
    });
  }
  return { version, binary, crds };
}

/**
 * The Kustomization CRD from the controller's module; the GitRepository CRD from source-controller's
 * module at the release of the source API the controller requires (downloaded here: the build
 * needs only its API module).
 */
function copyCrds(go: string, dest: string): void {
  const partial = `${dest}.${process.pid}.partial`;
  mkdirSync(partial, { recursive: true });
  const controller = requiredModuleDir(go, buildModule, controllerModule);
  const sourceApi = requiredModuleDir(go, buildModule, sourceApiModule);
  const sourceVersion = sourceApi.slice(sourceApi.lastIndexOf("@") + 1);
  const download = spawnSync(
    go,
    ["mod", "download", "-json", `github.com/fluxcd/source-controller@${sourceVersion}`],
    { cwd: buildModule, env: goModuleEnv(), encoding: "utf8" },
  );
  const source = (JSON.parse(download.stdout || "{}") as { Dir?: string }).Dir;
  if (download.status !== 0 || !source)
    throw new Error(`go mod download of source-controller ${sourceVersion} failed: ${download.stderr}`);
  // The controller watches every source kind it can apply from; only GitRepository is used.
  const sources = ["gitrepositories", "ocirepositories", "buckets", "externalartifacts"];
  const files = [
    join(controller, "config", "crd", "bases", "kustomize.toolkit.fluxcd.io_kustomizations.yaml"),
    ...sources.map((s) => join(source, "config", "crd", "bases", `source.toolkit.fluxcd.io_${s}.yaml`)),
  ];
  for (const file of files) {
    const target = join(partial, file.slice(file.lastIndexOf("/") + 1));
    copyFileSync(file, target);
    chmodSync(target, 0o644); // the module cache is read-only
  }
  rmSync(dest, { recursive: true, force: true });
  // Renamed whole: whoever finds `crds` finds every file in it.
  renameSync(partial, dest);
}

function noGoMessage(dir: string): string {
  return [
    "The real-Flux test runs Flux's kustomize-controller built from its Go modules, and Go is not",
    `installed. Install Go (https://go.dev/dl/); the first run builds it into ${dir} (minutes, once;`,
    "Go fetches the toolchain the controller needs through the module proxy).",
  ].join("\n");
}
