// Finds the control plane's binaries, building what is missing.
//
// KUBEBUILDER_ASSETS (envtest's convention: a folder with kube-apiserver and etcd) wins when it is
// set. Otherwise the binaries are compiled from the Go modules pinned next to this file, once per
// machine, into a cache outside the repository keyed by their versions. kubectl is the machine's
// own when it is recent enough, else built from the same Kubernetes release.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { cacheFolder } from "../cache.ts";
import { elapsed, findGo, isExecutable } from "../go.ts";
import { withFileLock } from "./file-lock.ts";

type Binary = "etcd" | "kube-apiserver" | "kube-controller-manager" | "kubectl";

export interface ControlPlaneBinaries {
  etcd: string;
  kubeApiserver: string;
  /** Undefined only when KUBEBUILDER_ASSETS lacks it and there is no Go to build it. */
  kubeControllerManager: string | undefined;
  kubectl: string;
}

interface Versions {
  kubernetes: string;
  etcd: string;
}

type Log = (line: string) => void;

/** kubectl releases older than this lack flags the tests use (e.g. `--subresource`). */
const minKubectlMinor = 27;

const buildModules = {
  kubernetes: join(import.meta.dirname, "kubernetes"),
  etcd: join(import.meta.dirname, "etcd"),
};

const goPackages: Record<Binary, { module: keyof typeof buildModules; pkg: string }> = {
  etcd: { module: "etcd", pkg: "." },
  "kube-apiserver": { module: "kubernetes", pkg: "k8s.io/kubernetes/cmd/kube-apiserver" },
  "kube-controller-manager": { module: "kubernetes", pkg: "k8s.io/kubernetes/cmd/kube-controller-manager" },
  kubectl: { module: "kubernetes", pkg: "k8s.io/kubernetes/cmd/kubectl" },
};

/** The versions pinned by the build modules' go.mod files: the single place they are written. */
function pinnedVersions(): Versions {
  return {
    kubernetes: requiredVersion("kubernetes", "k8s.io/kubernetes"),
    etcd: requiredVersion("etcd", "go.etcd.io/etcd/server/v3"),
  };
}

/** The folder holding the built binaries of the pinned versions. */
export function cacheDir(versions: Versions = pinnedVersions()): string {
  const root = process.env.HCO_CONTROLPLANE_CACHE || cacheFolder("controlplane");
  return join(root, `${versions.kubernetes}-etcd${versions.etcd}`);
}

/** Returns every binary the control plane needs, building the missing ones (minutes, once). */
export async function prepareBinaries(log: Log): Promise<ControlPlaneBinaries> {
  const versions = pinnedVersions();
  const dir = cacheDir(versions);
  const found = new Map<Binary, string>();
  const assets = process.env.KUBEBUILDER_ASSETS;
  if (assets) {
    for (const name of ["etcd", "kube-apiserver"] as const) {
      const path = join(assets, name);
      if (!isExecutable(path)) throw new Error(missingAssetMessage(assets, name));
      found.set(name, path);
    }
    for (const name of ["kube-controller-manager", "kubectl"] as const) {
      const path = join(assets, name);
      if (isExecutable(path) && (name !== "kubectl" || kubectlIsRecent(path))) found.set(name, path);
    }
  }
  if (!found.has("kubectl") && kubectlIsRecent("kubectl")) found.set("kubectl", "kubectl");
  for (const name of Object.keys(goPackages) as Binary[]) {
    if (!found.has(name) && isExecutable(join(dir, name))) found.set(name, join(dir, name));
  }

  const missing = (Object.keys(goPackages) as Binary[]).filter((name) => !found.has(name));
  if (missing.length > 0) {
    const go = findGo();
    if (go) {
      for (const [name, path] of await build(go, missing, versions, dir, log)) found.set(name, path);
    } else if (missing.some((name) => name !== "kube-controller-manager")) {
      throw new Error(noGoMessage(missing, dir));
    } else {
      log(
        "kube-controller-manager is not in KUBEBUILDER_ASSETS and there is no Go to build it: " +
          "the control plane runs without garbage collection and namespace finalization.",
      );
    }
  }

  const get = (name: Binary) => {
    const path = found.get(name);
    if (path === undefined) throw new Error(`internal: ${name} was neither found nor built`);
    return path;
  };
  return {
    etcd: get("etcd"),
    kubeApiserver: get("kube-apiserver"),
    kubeControllerManager: found.get("kube-controller-manager"),
    kubectl: get("kubectl"),
  };
}

async function build(
  go: string,
  names: Binary[],
  versions: Versions,
  dir: string,
  log: Log,
): Promise<Map<Binary, string>> {
  mkdirSync(dir, { recursive: true });
  const onWait = (pid: number) =>
    log(`waiting for another test run (pid ${pid}) that is building into ${dir}`);
  return withFileLock(`${dir}.lock`, onWait, async () => {
    // Holding the lock, nobody else is building here: half-written files are from an interrupted run.
    for (const entry of readdirSync(dir)) if (entry.endsWith(".partial")) rmSync(join(dir, entry));
    const built = new Map<Binary, string>();
    for (const name of names) {
      const path = join(dir, name);
      // Another run may have built it while this one waited for the lock.
      if (!isExecutable(path)) await goBuild(go, name, versions, path, log);
      built.set(name, path);
    }
    return built;
  });
}

async function goBuild(go: string, name: Binary, versions: Versions, dest: string, log: Log): Promise<void> {
  const { module, pkg } = goPackages[name];
  const version = module === "etcd" ? versions.etcd : versions.kubernetes;
  // Named after this process: a build orphaned by an earlier run's death may still be writing its own.
  const partial = `${dest}.${process.pid}.partial`;
  const args = [
    "build",
    // Compiling Kubernetes packages takes up to a few GiB each: bounded parallelism keeps the peak
    // memory of a first run predictable on large machines, and -p 2 is the default on 2 cores anyway.
    `-p=${Math.min(availableParallelism(), 4)}`,
    "-trimpath",
    `-ldflags=${["-s", "-w", ...(module === "kubernetes" ? kubernetesVersionFlags(version) : [])].join(" ")}`,
    "-o",
    partial,
    pkg,
  ];
  const env = {
    ...process.env,
    // Static binaries without a C toolchain, as Kubernetes releases them. -mod=readonly: a build
    // must never rewrite the committed go.mod/go.sum. GOWORK=off: no workspace of the machine's.
    CGO_ENABLED: "0",
    GOFLAGS: "-mod=readonly -buildvcs=false",
    GOWORK: "off",
  };
  const started = Date.now();
  log(`building ${name} ${version} with ${go} (first run on this machine only; minutes)…`);
  const heartbeat = setInterval(() => log(`  … still building ${name} (${elapsed(started)})`), 30_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(go, args, {
        cwd: buildModules[module],
        env,
        stdio: ["ignore", "inherit", "inherit"],
      });
      child.once("error", reject);
      child.once("exit", resolve);
    });
    if (code !== 0) throw new Error(`go build of ${name} failed (exit ${code}); its output is above`);
  } finally {
    clearInterval(heartbeat);
  }
  renameSync(partial, dest);
  log(`built ${name} in ${elapsed(started)}`);
}

/** What `kubectl version` and the apiserver's /version report; without it they say v0.0.0-master. */
function kubernetesVersionFlags(version: string): string[] {
  const [major, minor] = version.split(".");
  const pkg = "k8s.io/component-base/version";
  return [
    `-X ${pkg}.gitVersion=v${version}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ];
}

function requiredVersion(module: keyof typeof buildModules, modulePath: string): string {
  const goMod = readFileSync(join(buildModules[module], "go.mod"), "utf8");
  const escaped = modulePath.replaceAll(".", "\\.");
  const match = goMod.match(new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+v(\\S+)`, "m"));
  if (!match?.[1]) throw new Error(`${buildModules[module]}/go.mod does not require ${modulePath}`);
  return match[1];
}

function kubectlIsRecent(command: string): boolean {
  const r = spawnSync(command, ["version", "--client", "-o", "json"], { encoding: "utf8", timeout: 10_000 });
  if (r.status !== 0) return false;
  try {
    const { clientVersion } = JSON.parse(r.stdout) as { clientVersion?: { major?: string; minor?: string } };
    // Vendor builds report minors like "32+".
    return clientVersion?.major === "1" && Number.parseInt(clientVersion.minor ?? "", 10) >= minKubectlMinor;
  } catch {
    return false;
  }
}

function missingAssetMessage(assets: string, name: string): string {
  return (
    `KUBEBUILDER_ASSETS is ${assets}, which has no executable ${name}. Point it at a folder with ` +
    "kube-apiserver and etcd (for example the one `setup-envtest use -p path` prints), or unset it " +
    "so that the test environment builds them with Go."
  );
}

function noGoMessage(missing: Binary[], dir: string): string {
  if (!missing.includes("etcd") && !missing.includes("kube-apiserver")) {
    return (
      `kubectl 1.${minKubectlMinor} or newer is needed and none was found on PATH, nor Go to build it. ` +
      "Install kubectl (https://kubernetes.io/docs/tasks/tools/) or Go (https://go.dev/dl/)."
    );
  }
  return [
    `The tests run a real kube-apiserver and etcd, and none are at hand: ${missing.join(", ")} missing.`,
    "Supply them in one of two ways:",
    `  - install Go (https://go.dev/dl/); the first test run builds them into ${dir} (minutes, once);`,
    "  - or set KUBEBUILDER_ASSETS to a folder with kube-apiserver and etcd, for example from",
    "    `go run sigs.k8s.io/controller-runtime/tools/setup-envtest@latest use -p path`.",
  ].join("\n");
}
