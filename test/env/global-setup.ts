// Global setup of the `cluster` test project: the services its test files share, started once
// before the first file and stopped after the last. There is one control plane (and one emulator)
// per worker slot of the project: two files that run at the same time never share an apiserver, so
// nothing one file does to the cluster (a ClusterHarborConnection, a CRD, an operator watching
// every namespace) can reach a file running beside it, while files that run one after the other in
// a slot share it as before. Each service pushes its stop onto `teardown`; a failure halfway stops
// what had started. Test files reach their slot's services through `sharedControlPlane()` and
// `sharedHarbor()` (cluster.ts) and get a namespace of their own.
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startControlPlane } from "./controlplane/launcher.ts";
import { startEmulator } from "./emulator/index.ts";
import { testHarborVersion } from "./harbor-version.ts";
import { clusterApi } from "./kube-api.ts";

/** A control plane the test files of one worker slot share: `sharedControlPlane()` (cluster.ts). */
export interface SharedControlPlane {
  server: string;
  kubeconfigPath: string;
  caCertPath: string;
  /** The kubectl binary to run (the machine's own, or one built with the control plane). */
  kubectl: string;
  auditLogPath: string;
}

/** The emulator the test files of one worker slot share: `sharedHarbor()`. Its state outlives a file: use unique names. */
export interface SharedHarbor {
  url: string;
  username: string;
  password: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** One per worker slot (VITEST_POOL_ID 1 is the first). */
    controlPlanes: SharedControlPlane[];
    harbors: SharedHarbor[];
  }
}

const crdDir = join(import.meta.dirname, "..", "..", "crds");

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const teardown: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of teardown.reverse()) await stop();
  };
  const log = (line: string) => process.stderr.write(`[cluster] ${line}\n`);
  try {
    // No more control planes than files of this project the run has: one for a single file.
    const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
    const { testFiles } = await project.globTestFiles(filters);
    const slots = Math.max(1, Math.min(project.config.maxWorkers, testFiles.length));
    const started = await Promise.allSettled(
      Array.from({ length: slots }, async (_, i) => {
        // The project's CRDs (crds/, when there are any) are installed as a user installs them.
        const controlPlane = await startControlPlane({
          crds: crdDir,
          auditLog: true,
          log: (line) => log(slots > 1 ? `${i + 1}: ${line}` : line),
        });
        teardown.push(controlPlane.stop);
        // In the background: the files' first kubectl apply over an existing object needs them.
        void clusterApi(controlPlane.kubeconfigPath).warmOpenApi();
        const harbor = await startEmulator({ harborVersion: testHarborVersion() });
        teardown.push(harbor.close);
        return {
          controlPlane: {
            server: controlPlane.server,
            kubeconfigPath: controlPlane.kubeconfigPath,
            caCertPath: controlPlane.caCertPath,
            kubectl: controlPlane.binaries.kubectl,
            auditLogPath: controlPlane.auditLogPath,
          },
          harbor: { url: harbor.url, username: harbor.adminUsername, password: harbor.adminPassword },
        };
      }),
    );
    const failed = started.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    const slotsUp = started.map(
      (r) => (r as PromiseFulfilledResult<{ controlPlane: SharedControlPlane; harbor: SharedHarbor }>).value,
    );
    project.provide(
      "controlPlanes",
      slotsUp.map((s) => s.controlPlane),
    );
    project.provide(
      "harbors",
      slotsUp.map((s) => s.harbor),
    );
  } catch (err) {
    await stopAll();
    throw err;
  }
  return stopAll;
}
