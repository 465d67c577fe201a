// The ServiceAccount watch (for kinds that follow ServiceAccounts, see KindWatches): one
// cluster-wide watch, trimmed as objects arrive. Why not a selection: a field selector takes one
// name per watch, so selecting by name would need one watch per name any resource names, started
// and stopped as specs change; users do not label ServiceAccounts for us; and RBAC is the same
// either way (RBAC cannot limit a list to names chosen later in a spec). What it caches is cut to
// the name, the namespace, the resourceVersion and the names in imagePullSecrets, so a cluster of
// 10,000 ServiceAccounts costs a few MiB.
import type { KubeObject, ServiceAccountObject } from "../../kube/types.ts";

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
