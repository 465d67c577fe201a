// Starts a real Flux kustomize-controller against a test control plane: one process on loopback
// with its log in a temporary folder, after its CRDs (Kustomization, and the GitRepository that
// test/env/flux/artifacts.ts stands in for source-controller with) and its namespace. Tests create
// Kustomization objects with kubectl and read their status.
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { installCrds } from "../controlplane/launcher.ts";
import { freePorts, probe } from "../controlplane/net.ts";
import { createWorkdir, removeLeftovers, waitReady } from "../controlplane/workdir.ts";
import { kubectl as kubectlAt } from "../kubectl.ts";
import { prepareFlux } from "./binaries.ts";

export interface FluxOptions {
  /** The cluster Flux runs in and applies to. */
  kubeconfigPath: string;
  /** The kubectl binary to install Flux's objects with. */
  kubectl?: string;
  log?: (line: string) => void;
}

export interface Flux {
  readonly namespace: string;
  readonly version: string;
  /** The end of the controller's log. */
  logTail(lines?: number): string;
  /** Stops the controller and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

export const FLUX_NAMESPACE = "flux-system";
const prefix = "hco-flux-";

export async function startFlux(opts: FluxOptions): Promise<Flux> {
  const log = opts.log ?? (() => {});
  removeLeftovers(log, prefix);
  const binaries = await prepareFlux(log);
  const admin = kubectlAt(opts.kubeconfigPath, opts.kubectl);
  const started = Date.now();
  await installCrds(admin, binaries.crds);
  await admin.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: FLUX_NAMESPACE } });

  const dir = createWorkdir(prefix);
  try {
    // Started through a link in the folder, so that a later run recognises (and stops) the process
    // of a run that died without cleaning up.
    const binary = join(dir.path, "kustomize-controller");
    symlinkSync(binaries.binary, binary);
    const ports = await freePorts(["health"]);
    const controller = dir.start(
      "kustomize-controller",
      binary,
      [
        // The cluster comes from KUBECONFIG (it has no --kubeconfig flag).
        "--enable-leader-election=false",
        // Its metrics are not read; its health endpoint tells when it runs.
        "--metrics-addr=0",
        `--health-addr=127.0.0.1:${ports.health}`,
        // Nothing is fetched from outside the machine: remote bases would be.
        "--no-remote-bases=true",
        // A Kustomization whose dependency is not Ready looks again this often (default 30 s).
        "--requeue-dependency=2s",
        "--log-encoding=console",
      ],
      { ...process.env, KUBECONFIG: opts.kubeconfigPath, RUNTIME_NAMESPACE: FLUX_NAMESPACE },
    );
    await waitReady(dir, controller, 90_000, () => probe(`http://127.0.0.1:${ports.health}/healthz`));
    log(
      `Flux kustomize-controller ${binaries.version} ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${dir.path})`,
    );
    return {
      namespace: FLUX_NAMESPACE,
      version: binaries.version,
      logTail: (lines) => dir.logTail("kustomize-controller", lines),
      stop: dir.close,
    };
  } catch (err) {
    await dir.close();
    throw err;
  }
}
