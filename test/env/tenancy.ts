// A per-Harbor kind's resource through a ClusterHarborConnection whose tenancy decides whether it may
// manage system settings: the e2e case each such kind (configuration, job service, scan-all,
// preheat instance, ...) checks the same way.
import { expect } from "vitest";
import type { OperatorFixture } from "./operator.ts";
import {
  clusterConnection,
  condition,
  credentials,
  type Manifest,
  type Resource,
  readyForSpec,
  stalled,
} from "./resources.ts";

/** How a ClusterHarborConnection is named by a resource's spec.connectionRef. */
export interface ClusterConnectionRef {
  kind: "ClusterHarborConnection";
  name: string;
}

export interface SystemSettingsTenancyCase {
  /** The resource kind as kubectl names it (e.g. "harborscanall"). */
  kind: string;
  /** The tenant's resource, through the shared connection. */
  resource: (connectionRef: ClusterConnectionRef) => Manifest<object>;
  /** Checks Harbor is untouched while the resource is refused (NotAllowed). */
  whileRefused: () => Promise<void>;
  /** Checks Harbor holds what the resource says, once the tenancy allows system settings. */
  whenReady?: () => Promise<void>;
  /** Checks Harbor after the resource was deleted. */
  afterDelete: () => Promise<void>;
}

/**
 * A ClusterHarborConnection `<namespace>-shared` (with its credentials Secret) whose tenancy first
 * has allowSystemSettings false: the resource is refused NotAllowed, naming the field. Then true:
 * the resource becomes Ready; then it is deleted. The connection is deleted at the end either way.
 */
export async function onlyWithSystemSettings(
  op: OperatorFixture,
  c: SystemSettingsTenancyCase,
): Promise<void> {
  const shared = `${op.namespace}-shared`;
  const spec = (allowSystemSettings: boolean) => ({
    url: op.emulator.url,
    credentialsSecretRef: { name: "shared-credentials", namespace: op.namespace },
    allowedNamespaces: [op.namespace],
    tenancy: {
      projects: ["{namespace}"],
      allowAdoption: false,
      allowSystemRobots: false,
      allowSystemSettings,
    },
  });
  await op.kubectl.apply(
    credentials("shared-credentials", {
      username: op.emulator.adminUsername,
      password: op.emulator.adminPassword,
    }),
  );
  await op.kubectl.apply(clusterConnection(shared, spec(false)));
  try {
    const resource = c.resource({ kind: "ClusterHarborConnection", name: shared });
    const name = resource.metadata.name;
    await op.kubectl.apply(resource);
    const refused = await op.waitFor<Resource>(c.kind, name, stalled);
    expect(condition(refused, "Ready")?.reason).toBe("NotAllowed");
    expect(condition(refused, "Ready")?.message).toContain("spec.tenancy.allowSystemSettings");
    await c.whileRefused();

    await op.kubectl.apply(clusterConnection(shared, spec(true)));
    await op.waitFor<Resource>(c.kind, name, readyForSpec);
    await c.whenReady?.();
    await op.kubectl.delete(c.kind, name, { wait: true });
    await c.afterDelete();
  } finally {
    await op.kubectl.tryRun(["delete", "clusterharborconnection", shared, "--wait=false"]);
  }
}
