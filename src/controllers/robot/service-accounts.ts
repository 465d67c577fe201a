// What the ServiceAccount watch keeps and whom it wakes. A robot lists its Secret in the
// imagePullSecrets of the ServiceAccounts its spec names (spec.secret.copies.serviceAccounts) in
// every namespace its selector matches; a ServiceAccount created later (a Helm chart that creates
// it together with its Deployment) must get the entry before its pods are admitted, so the
// operator watches ServiceAccounts and queues the robots that name one when it appears or loses
// the entry.
//
// Why one cluster-wide watch, trimmed, and not a selection: a field selector takes one name per
// watch (metadata.name=default), so selecting by name would need one watch per name any robot
// names, started and stopped as specs change; users do not label ServiceAccounts for us; and
// RBAC is the same either way (list/watch on serviceaccounts in every namespace: RBAC cannot limit
// a list to names chosen later in a spec). Copies go to any namespace, whatever --namespace says,
// so the watch is cluster-wide like the Namespace watch. What it caches is cut to the name, the
// namespace, the resourceVersion and the names in imagePullSecrets: labels, annotations (often a
// whole last-applied manifest), secrets and the rest are dropped as each object arrives, so a
// cluster of 10,000 ServiceAccounts costs a few MiB.

import type { LabelSelector } from "../../api/robot.ts";
import type { KubeObject, ServiceAccountObject } from "../../kube/types.ts";
import type { ManagedObject } from "../../runtime/managed.ts";
import { selectorMatches } from "./mapping.ts";

/** The ServiceAccount as the watch caches it: identity, version and pull secret names only. */
export function trimServiceAccount(obj: KubeObject): ServiceAccountObject {
  const { apiVersion, kind, metadata } = obj;
  const entries = (obj as ServiceAccountObject).imagePullSecrets;
  return {
    ...(apiVersion === undefined ? {} : { apiVersion }),
    ...(kind === undefined ? {} : { kind }),
    metadata: {
      name: metadata.name,
      ...(metadata.namespace === undefined ? {} : { namespace: metadata.namespace }),
      ...(metadata.resourceVersion === undefined ? {} : { resourceVersion: metadata.resourceVersion }),
    },
    ...(entries ? { imagePullSecrets: entries.map((e) => ({ name: e.name })) } : {}),
  };
}

/** Pull secret names the update removed (someone re-applied the ServiceAccount without ours). */
export function removedPullSecrets(before: ServiceAccountObject, after: ServiceAccountObject): string[] {
  const now = new Set((after.imagePullSecrets ?? []).map((e) => e.name));
  return (before.imagePullSecrets ?? []).map((e) => e.name).filter((n) => !now.has(n));
}

interface RobotCopies {
  secret?: {
    name?: string;
    copies?: { namespaceSelector?: LabelSelector; serviceAccounts?: string[] };
  };
}

/**
 * Whether the robot links this ServiceAccount: its spec names it and selects its namespace (whose
 * labels are undefined while the Namespace watch has not seen it: the Namespace's own event
 * queues the robots then). With `secrets`, only if the robot's Secret is one of them.
 */
export function linksServiceAccount(
  robot: ManagedObject,
  sa: ServiceAccountObject,
  namespaceLabels: Readonly<Record<string, string>> | undefined,
  secrets?: readonly string[],
): boolean {
  const secret = (robot.spec as RobotCopies | undefined)?.secret;
  const copies = secret?.copies;
  if (!copies?.serviceAccounts?.includes(sa.metadata.name) || namespaceLabels === undefined) return false;
  if (secrets && !secrets.includes(secret?.name ?? robot.metadata.name)) return false;
  return selectorMatches(copies.namespaceSelector ?? {}, namespaceLabels);
}
