// The Kubernetes object shapes this project reads and writes. Only the fields it uses are typed;
// everything else passes through untouched.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  /** Server-side apply bookkeeping; informers drop it (it is large and never read here). */
  managedFields?: unknown[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** Identifies a REST resource: /apis/<group>/<version>[/namespaces/<ns>]/<plural>. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export function apiVersionOf(t: ResourceType): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

export const Secrets: ResourceType = {
  group: "",
  version: "v1",
  plural: "secrets",
  kind: "Secret",
  namespaced: true,
};
export const ServiceAccounts: ResourceType = {
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
};
export const Namespaces: ResourceType = {
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
};
export const Events: ResourceType = {
  group: "",
  version: "v1",
  plural: "events",
  kind: "Event",
  namespaced: true,
};
export const Leases: ResourceType = {
  group: "coordination.k8s.io",
  version: "v1",
  plural: "leases",
  kind: "Lease",
  namespaced: true,
};

export interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  immutable?: boolean;
}

export interface NamespaceObject extends KubeObject {
  status?: { phase?: string };
}

export interface ServiceAccountObject extends KubeObject {
  imagePullSecrets?: Array<{ name: string }>;
}

export interface LeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

export function objectKey(o: { metadata: { namespace?: string; name: string } }): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}
