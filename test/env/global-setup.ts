// Global setup of the `cluster` test project: the services that every test file of the run shares,
// started once before the first file and stopped after the last. Each service pushes its stop onto
// `teardown`; a failure halfway stops what had started. Test files reach the services through
// `inject()` (see cluster.ts) and get a namespace of their own.
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startControlPlane } from "./controlplane/launcher.ts";
import { startEmulator } from "./emulator/index.ts";

/** How test files reach the shared control plane: `inject("controlPlane")`. */
export interface SharedControlPlane {
  server: string;
  kubeconfigPath: string;
  caCertPath: string;
  /** The kubectl binary to run (the machine's own, or one built with the control plane). */
  kubectl: string;
  auditLogPath: string;
}

/** The shared Harbor emulator: `inject("harbor")`. Its state is shared too: use unique names. */
export interface SharedHarbor {
  url: string;
  username: string;
  password: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    controlPlane: SharedControlPlane;
    harbor: SharedHarbor;
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
    // The project's CRDs (crds/, when there are any) are installed as a user installs them.
    const controlPlane = await startControlPlane({ crds: crdDir, auditLog: true, log });
    teardown.push(controlPlane.stop);
    project.provide("controlPlane", {
      server: controlPlane.server,
      kubeconfigPath: controlPlane.kubeconfigPath,
      caCertPath: controlPlane.caCertPath,
      kubectl: controlPlane.binaries.kubectl,
      auditLogPath: controlPlane.auditLogPath,
    });

    const harbor = await startEmulator();
    teardown.push(harbor.close);
    project.provide("harbor", {
      url: harbor.url,
      username: harbor.adminUsername,
      password: harbor.adminPassword,
    });
  } catch (err) {
    await stopAll();
    throw err;
  }
  return stopAll;
}
