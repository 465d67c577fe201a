// Finds the helm command for the Helm tests, building it when missing.
//
// Helm is compiled from its Go module (helm.sh/helm/v3, pinned in build/go.mod) once per machine
// into a cache outside the repository, keyed by the Helm release and a hash of the build module,
// the way the control plane's binaries are (../controlplane/binaries.ts): a lock file makes two runs
// build once, and an interrupted build leaves no broken binary behind. Only cmd/helm is built.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { cacheFolder } from "../cache.ts";
import { withFileLock } from "../controlplane/file-lock.ts";
import { elapsed, findGo, isExecutable } from "../go.ts";

type Log = (line: string) => void;

const buildModule = join(import.meta.dirname, "build");
const helmModule = "helm.sh/helm/v3";

function required(modulePath: string): string {
  const goMod = readFileSync(join(buildModule, "go.mod"), "utf8");
  const escaped = modulePath.replaceAll(".", "\\.").replaceAll("/", "\\/");
  const match = goMod.match(new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+v(\\S+)`, "m"));
  if (!match?.[1]) throw new Error(`${buildModule}/go.mod does not require ${modulePath}`);
  return match[1];
}

/** The Helm release that build/go.mod pins: the single place it is written. */
export function helmVersion(): string {
  return required(helmModule);
}

/** The folder holding the built helm of the pinned release and build module. */
export function cacheDir(): string {
  const root = process.env.HCO_HELM_CACHE || cacheFolder("helm");
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum"]) hash.update(readFileSync(join(buildModule, file)));
  return join(root, `${helmVersion()}-${hash.digest("hex").slice(0, 12)}`);
}

/** Returns the path of helm, building it on a machine's first run (minutes, once). */
export async function prepareHelm(log: Log): Promise<string> {
  const dir = cacheDir();
  const binary = join(dir, "helm");
  if (isExecutable(binary)) return binary;
  const go = findGo();
  if (!go) throw new Error(noGoMessage(dir));
  mkdirSync(dir, { recursive: true });
  const onWait = (pid: number) =>
    log(`waiting for another test run (pid ${pid}) that is building into ${dir}`);
  await withFileLock(`${dir}.lock`, onWait, async () => {
    // Holding the lock, nobody else is building here: half-written files are from an interrupted run.
    for (const entry of readdirSync(dir)) if (entry.endsWith(".partial")) rmSync(join(dir, entry));
    // Another run may have built it while this one waited for the lock.
    if (!isExecutable(binary)) await goBuild(go, binary, log);
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
  const [, minor] = required("k8s.io/client-go").split(".");
  const flags = ["-s", "-w", `-X ${helmModule}/internal/version.version=v${version}`];
  for (const pkg of ["pkg/chartutil", "pkg/lint/rules"]) {
    flags.push(
      `-X ${helmModule}/${pkg}.k8sVersionMajor=1`,
      `-X ${helmModule}/${pkg}.k8sVersionMinor=${minor}`,
    );
  }
  return flags.join(" ");
}

async function goBuild(go: string, dest: string, log: Log): Promise<void> {
  // Named after this process: a build orphaned by an earlier run's death may still be writing its own.
  const partial = `${dest}.${process.pid}.partial`;
  const args = [
    "build",
    // As for the control plane: bounded parallelism keeps a first run's peak memory predictable.
    `-p=${Math.min(availableParallelism(), 4)}`,
    "-trimpath",
    `-ldflags=${ldflags()}`,
    "-o",
    partial,
    `${helmModule}/cmd/helm`,
  ];
  const env = {
    ...process.env,
    // Static, never rewriting the committed go.mod/go.sum, no workspace of the machine's.
    CGO_ENABLED: "0",
    GOFLAGS: "-mod=readonly -buildvcs=false",
    GOWORK: "off",
  };
  const started = Date.now();
  log(`building helm ${helmVersion()} with ${go} (first run on this machine only; about 2½ minutes)…`);
  const heartbeat = setInterval(() => log(`  … still building helm (${elapsed(started)})`), 30_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(go, args, { cwd: buildModule, env, stdio: ["ignore", "inherit", "inherit"] });
      child.once("error", reject);
      child.once("exit", resolve);
    });
    if (code !== 0) throw new Error(`go build of helm failed (exit ${code}); its output is above`);
  } finally {
    clearInterval(heartbeat);
  }
  renameSync(partial, dest);
  log(`built helm in ${elapsed(started)}`);
}

function noGoMessage(dir: string): string {
  return [
    "The Helm tests run helm built from its Go module, and Go is not installed. Install Go",
    `(https://go.dev/dl/); the first run builds it into ${dir} (minutes, once).`,
  ].join("\n");
}
