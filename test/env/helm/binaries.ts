// Finds the helm command for the Helm tests, building it when missing.
//
// Helm is compiled from its Go module (helm.sh/helm/v3, pinned in build/go.mod) once per machine
// into a cache outside the repository, keyed by the Helm release and a hash of the build module,
// the way the control plane's binaries are (../controlplane/binaries.ts): a lock file makes two runs
// build once, and an interrupted build leaves no broken binary behind. Only cmd/helm is built.
import { join } from "node:path";
import { cacheFolder } from "../cache.ts";
import { buildCacheDir, buildLocked, findGo, goModuleBuild, isExecutable, pinnedVersion } from "../go.ts";

type Log = (line: string) => void;

const buildModule = join(import.meta.dirname, "build");
const helmModule = "helm.sh/helm/v3";

/** The Helm release that build/go.mod pins: the single place it is written. */
export function helmVersion(): string {
  return pinnedVersion(buildModule, helmModule);
}

/** The folder holding the built helm of the pinned release and build module. */
export function cacheDir(): string {
  const root = process.env.HCO_HELM_CACHE || cacheFolder("helm");
  return buildCacheDir(root, helmVersion(), buildModule, ["go.mod", "go.sum"]);
}

/** Returns the path of helm, building it on a machine's first run (minutes, once). */
export async function prepareHelm(log: Log): Promise<string> {
  const dir = cacheDir();
  const binary = join(dir, "helm");
  if (isExecutable(binary)) return binary;
  const go = findGo();
  if (!go) throw new Error(noGoMessage(dir));
  await buildLocked(dir, log, async () => {
    if (!isExecutable(binary))
      await goModuleBuild({
        go,
        moduleDir: buildModule,
        pkg: `${helmModule}/cmd/helm`,
        dest: binary,
        ldflags: ldflags(),
        what: `helm ${helmVersion()}`,
        expected: "about 2½ minutes",
        log,
      });
  });
  return binary;
}

/**
 * What Helm's Makefile passes: its version, and the Kubernetes release its client libraries are
 * (1.<minor of k8s.io/client-go>), which `helm template` and `helm lint` assume when no cluster is
 * asked (without it they assume 1.20).
 */
function ldflags(): string {
  const version = helmVersion();
  const [, minor] = pinnedVersion(buildModule, "k8s.io/client-go").split(".");
  const flags = [`-X ${helmModule}/internal/version.version=v${version}`];
  for (const pkg of ["pkg/chartutil", "pkg/lint/rules"]) {
    flags.push(
      `-X ${helmModule}/${pkg}.k8sVersionMajor=1`,
      `-X ${helmModule}/${pkg}.k8sVersionMinor=${minor}`,
    );
  }
  return flags.join(" ");
}

function noGoMessage(dir: string): string {
  return [
    "The Helm tests run helm built from its Go module, and Go is not installed. Install Go",
    `(https://go.dev/dl/); the first run builds it into ${dir} (minutes, once).`,
  ].join("\n");
}
