// The operator's RBAC, derived from the list of kinds so that it holds exactly what the kinds need:
// the ClusterRole's rules with the reason for each, the aggregated view/edit roles, the per-namespace
// Roles (deploy/components/namespaced, the chart's watchNamespaces), as deploy/rbac.yaml and as the
// Helm chart's template. `npm run generate` writes them (generate.ts).
import { GROUP } from "./api/common.ts";
import {
  ALL_DEFINITIONS,
  CONNECTION_DEFINITIONS,
  MANAGED_KINDS,
  RUN_KINDS,
} from "./controllers/kind-list.ts";
import {
  FULLNAME,
  FULLNAME_IN_RANGE,
  HEADER,
  LABELS,
  LABELS_IN_RANGE,
  TEMPLATE_HEADER,
} from "./generated-text.ts";

export interface Rule {
  /** Why the operator needs it: the code path, in a sentence or two. */
  why: string[];
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
  /**
   * Needed only in the namespaces the operator watches (and its own): with --namespace, a Role per
   * namespace grants it instead of the ClusterRole (deploy/components/namespaced, the chart's
   * watchNamespaces).
   */
  perNamespace?: boolean;
}

function renderRule(r: Rule): string {
  const list = (xs: string[]) => `[${xs.join(", ")}]`;
  const lines = r.why.map((w) => `  # ${w}`);
  lines.push(`  - apiGroups: ${list(r.apiGroups.map((g) => (g === "" ? '""' : g)))}`);
  if (r.resources.length > 2) lines.push("    resources:", ...r.resources.map((x) => `      - ${x}`));
  else lines.push(`    resources: ${list(r.resources)}`);
  if (r.resourceNames) lines.push(`    resourceNames: ${list(r.resourceNames)}`);
  lines.push(`    verbs: ${list(r.verbs)}`);
  return lines.join("\n");
}

/** The ClusterRole's rules: what the registered kinds need, and nothing more. */
export function operatorRules(): Rule[] {
  const managed = MANAGED_KINDS.map((k) => k.def.plural);
  const runs = RUN_KINDS.map((k) => k.def.plural);
  const connections = CONNECTION_DEFINITIONS.map((d) => d.plural);
  const owners = MANAGED_KINDS.filter((k) => k.ownsSecrets).map((k) => `${k.def.plural}/finalizers`);
  const followsAccounts = MANAGED_KINDS.some((k) => k.watches?.serviceAccounts);
  // The Namespace informer runs for either (see controllers/index.ts).
  const followsNamespaces = MANAGED_KINDS.some((k) => k.watches?.namespaces || k.watches?.serviceAccounts);
  const rules: Rule[] = [
    {
      why: [
        "The managed kinds, in every namespace: informers list and watch them; the finalizer is added",
        "and removed with a merge patch. The operator never creates, replaces or deletes them.",
      ],
      apiGroups: [GROUP],
      resources: managed,
      verbs: ["get", "list", "watch", "patch"],
    },
    ...(runs.length
      ? [
          {
            why: [
              "The run kinds, in every namespace: informers list and watch them; the finalizer is added",
              "(while an execution may run) and removed with a merge patch. delete: only a finished run",
              "whose spec.ttlSecondsAfterFinished has passed. The operator never creates or replaces them.",
            ],
            apiGroups: [GROUP],
            resources: runs,
            verbs: ["get", "list", "watch", "patch", "delete"],
          },
        ]
      : []),
    {
      why: [
        "Connections are read; their finalizer is added and removed with a merge patch, so that a",
        "connection stays until the resources that use it are gone. Their spec is never written.",
      ],
      apiGroups: [GROUP],
      resources: connections,
      verbs: ["get", "list", "watch", "patch"],
    },
    {
      why: ["Status is written through the status subresource, as a merge patch."],
      apiGroups: [GROUP],
      resources: [...managed, ...runs, ...connections].map((p) => `${p}/status`),
      verbs: ["patch"],
    },
  ];
  if (owners.length)
    rules.push({
      why: [
        "Secrets written for these kinds name their resource as owner with blockOwnerDeletion; where",
        "the OwnerReferencesPermissionEnforcement admission plugin is on (e.g. OpenShift), that needs this.",
      ],
      apiGroups: [GROUP],
      resources: owners,
      verbs: ["update"],
    });
  rules.push(
    {
      why: [
        "Secrets, in every namespace (with --namespace: in each watched one and the operator's own):",
        "- get: credentials referenced by connections and resources, read on demand; Secrets the",
        "  operator writes, read before they are written;",
        "- list, watch: the informer of Secrets labelled harborconfig.io/watch=true, and the lookup of a",
        "  robot's copies by the label harborconfig.io/copy-of (Kubernetes RBAC cannot restrict a list",
        "  to a label: this grants reading every Secret; see docs/security.md);",
        "- create, update, delete: Secrets the operator writes (robot Secrets and their copies);",
        "- patch: the finalizer harborconfig.io/connection-credentials on a connection's credentials",
        "  Secret, added and removed with a merge patch, so that it goes after its connection.",
      ],
      apiGroups: [""],
      resources: ["secrets"],
      verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
      perNamespace: true,
    },
    {
      why: followsAccounts
        ? [
            "ServiceAccounts: get/update to add a pull secret to the imagePullSecrets of named ones",
            "(read-modify-write); list/watch, cluster-wide (with --namespace and these rules in Roles:",
            "per watched namespace) and trimmed to names, so that one created later gets the pull",
            "secret within seconds (Kubernetes cannot select them by name).",
          ]
        : ["ServiceAccounts: get/update to add a pull secret to their imagePullSecrets."],
      apiGroups: [""],
      resources: ["serviceaccounts"],
      verbs: followsAccounts ? ["get", "list", "watch", "update"] : ["get", "update"],
      perNamespace: true,
    },
  );
  if (followsNamespaces)
    rules.push({
      why: ["Kinds copy Secrets into namespaces chosen by label: the operator watches Namespaces."],
      apiGroups: [""],
      resources: ["namespaces"],
      verbs: ["list", "watch"],
    });
  rules.push({
    why: ["Events on the custom resources (`kubectl describe`); repeats bump the count of one Event."],
    apiGroups: [""],
    resources: ["events"],
    verbs: ["create", "patch"],
  });
  return rules;
}

/** The label that aggregates a ClusterRole into the cluster's `view`, `edit` or `admin` role. */
export const AGGREGATE_TO = (role: "view" | "edit" | "admin") =>
  `rbac.authorization.k8s.io/aggregate-to-${role}`;

/**
 * What the cluster's own roles add for our kinds: `view` reads every kind; `edit` and `admin` also
 * write the namespaced kinds' specs. Never their status (the operator's) nor the cluster-scoped
 * ClusterHarborConnection, which the platform team owns.
 */
export function aggregatedRules(): { view: Rule; edit: Rule } {
  const all = ALL_DEFINITIONS.map((d) => d.plural);
  const namespaced = ALL_DEFINITIONS.filter((d) => d.scope === "Namespaced").map((d) => d.plural);
  return {
    view: {
      why: ["Read every kind: `kubectl get harbor -A` for anyone the cluster's `view` role lets read."],
      apiGroups: [GROUP],
      resources: all,
      verbs: ["get", "list", "watch"],
    },
    edit: {
      why: ["Change the namespaced kinds: what tenants apply with the cluster's `edit` or `admin` role."],
      apiGroups: [GROUP],
      resources: namespaced,
      verbs: ["create", "update", "patch", "delete", "deletecollection"],
    },
  };
}

/** Where the RBAC goes: the names and metadata differ between deploy/ and the chart. */
interface RbacTarget {
  header: string;
  /** The ClusterRole's, the bindings' and the ServiceAccount's name; the Role adds a suffix. */
  name: string;
  /** The ServiceAccount's namespace. */
  namespace: string;
  /** Why the Lease has the name it has. */
  leaseNote: string;
  /** Metadata lines after `name:` (namespace, labels), indented for `metadata:`. */
  metadata: (namespaced: boolean) => string[];
  /**
   * The chart: the ClusterRole leaves out the per-namespace rules when watchNamespaces is set, and
   * a Role per watched namespace and the release's carries them.
   */
  perNamespaceRoles: boolean;
}

const KUSTOMIZE_RBAC: RbacTarget = {
  header: HEADER,
  name: "harbor-config-operator",
  namespace: "harbor-config-operator",
  leaseNote: "(default harbor-config-operator; change both together)",
  // kustomize sets the namespace and the labels (deploy/kustomization.yaml).
  metadata: () => [],
  // deploy/components/namespaced does it with a patch.
  perNamespaceRoles: false,
};

const CHART_RBAC: RbacTarget = {
  header: TEMPLATE_HEADER,
  name: FULLNAME,
  namespace: "{{ .Release.Namespace }}",
  leaseNote: "(the release's full name; the chart passes it unless it is the default)",
  metadata: (namespaced) => [
    ...(namespaced ? ["  namespace: {{ .Release.Namespace }}"] : []),
    "  labels:",
    `    ${LABELS}`,
  ],
  perNamespaceRoles: true,
};

/** The ClusterRole from the registry, its binding, the leader-election Role, and the aggregated roles. */
function rbacFor(t: RbacTarget): string {
  const meta = (name: string, namespaced: boolean) =>
    [`  name: ${name}`, ...t.metadata(namespaced)].join("\n");
  const aggregated = (name: string, to: Array<"view" | "edit" | "admin">) => {
    const lines = [`  name: ${name}`, ...t.metadata(false)];
    if (!lines.includes("  labels:")) lines.push("  labels:");
    lines.push(...to.map((role) => `    ${AGGREGATE_TO(role)}: "true"`));
    return lines.join("\n");
  };
  const rules = aggregatedRules();
  return `${t.header}# What the operator may do, and nothing more. Every rule names the code path that needs it; the
# deploy test runs the operator with exactly these permissions and fails on any 403.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
${meta(t.name, false)}
rules:
${t.perNamespaceRoles ? chartClusterRules() : operatorRules().map(renderRule).join("\n")}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
${meta(t.name, false)}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ${t.name}
subjects:
  - kind: ServiceAccount
    name: ${t.name}
    namespace: ${t.namespace}
---
# Leader election, in the operator's own namespace only: one Lease, named by --leader-election-id
# ${t.leaseNote}. Creating cannot be limited to a name.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
${meta(`${t.name}-leader-election`, true)}
rules:
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    verbs: [create]
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    resourceNames: [${t.name}]
    verbs: [get, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
${meta(`${t.name}-leader-election`, true)}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${t.name}-leader-election
subjects:
  - kind: ServiceAccount
    name: ${t.name}
    namespace: ${t.namespace}
---
# Not the operator's: what the cluster's own view, edit and admin roles gain for these kinds
# (Kubernetes aggregates ClusterRoles by these labels), so that a RoleBinding to \`edit\` lets a
# team apply its resources. Status stays the operator's.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
${aggregated(`${t.name}-view`, ["view", "edit", "admin"])}
rules:
${renderRule(rules.view)}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
${aggregated(`${t.name}-edit`, ["edit", "admin"])}
rules:
${renderRule(rules.edit)}
${t.perNamespaceRoles ? chartRoles() : ""}`;
}

/** The chart's ClusterRole rules: the per-namespace ones only without watchNamespaces. */
function chartClusterRules(): string {
  const lines: string[] = [];
  let open = false;
  for (const r of operatorRules()) {
    if (Boolean(r.perNamespace) !== open) {
      lines.push(open ? "  {{- end }}" : "  {{- if not .Values.watchNamespaces }}");
      open = !open;
    }
    lines.push(renderRule(r));
  }
  if (open) lines.push("  {{- end }}");
  return lines.join("\n");
}

/** What a Role per namespace says of itself. */
const ROLE_NOTE = [
  "# The Secret and ServiceAccount rules of the ClusterRole, in one namespace: with --namespace the",
  "# operator needs them only in the watched namespaces and its own, or clusterResourceNamespace (where",
  "# a ClusterHarborConnection's credentials Secret is).",
];

/** A Role with the per-namespace rules and its binding to the operator's ServiceAccount. */
function perNamespaceRole(o: {
  name: string;
  namespace: string;
  labels: string[];
  serviceAccount: string;
  serviceAccountNamespace: string;
}): string {
  const metadata = [`  name: ${o.name}`, `  namespace: ${o.namespace}`, ...o.labels].join("\n");
  return `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
${metadata}
rules:
${operatorRules()
  .filter((r) => r.perNamespace)
  .map(renderRule)
  .join("\n")}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
${metadata}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${o.name}
subjects:
  - kind: ServiceAccount
    name: ${o.serviceAccount}
    namespace: ${o.serviceAccountNamespace}
`;
}

/** The chart's Roles: one per watched namespace and one in the release's, when watchNamespaces is set. */
function chartRoles(): string {
  return `{{- if .Values.watchNamespaces }}
{{- $namespaces := append .Values.watchNamespaces .Release.Namespace }}
{{- with .Values.clusterResourceNamespace }}{{- if ne . "*" }}{{- $namespaces = append $namespaces . }}{{- end }}{{- end }}
{{- range $namespace := uniq $namespaces }}
---
${ROLE_NOTE.join("\n")}
${perNamespaceRole({
  name: FULLNAME_IN_RANGE,
  namespace: "{{ $namespace }}",
  labels: ["  labels:", `    ${LABELS_IN_RANGE}`],
  serviceAccount: FULLNAME_IN_RANGE,
  serviceAccountNamespace: "{{ $.Release.Namespace }}",
})}{{- end }}
{{- end }}
`;
}

/** The example namespace of deploy/components/namespaced. */
export const NAMESPACED_EXAMPLE = "team-a";

/** deploy/components/namespaced/rbac.yaml: the Roles for the example namespace and the operator's. */
export function renderNamespacedRbac(): string {
  const role = (namespace: string) =>
    perNamespaceRole({
      name: KUSTOMIZE_RBAC.name,
      namespace,
      labels: [],
      serviceAccount: KUSTOMIZE_RBAC.name,
      serviceAccountNamespace: KUSTOMIZE_RBAC.namespace,
    });
  return `${HEADER}# Secrets and ServiceAccounts, granted in each watched namespace instead of in every one (the
# ClusterRole loses them: cluster-role-patch.yaml). One Role and RoleBinding per namespace that
# --namespace lists (copy the pair of ${NAMESPACED_EXAMPLE} and change its namespace), and one in the operator's own.
${ROLE_NOTE.join("\n")}
${role(NAMESPACED_EXAMPLE)}---
# The operator's own namespace: a ClusterHarborConnection's credentials Secret is there.
${role(KUSTOMIZE_RBAC.namespace)}`;
}

/**
 * deploy/components/namespaced/cluster-role-patch.yaml: a JSON patch that removes the per-namespace
 * rules from deploy/'s ClusterRole, each removal guarded by a test of what it removes (a rule
 * that moved makes the build fail instead of removing another).
 */
export function renderNamespacedPatch(): string {
  const ops: string[] = [];
  const rules = operatorRules();
  // From the last: a removal shifts the rules after it.
  for (let i = rules.length - 1; i >= 0; i--) {
    const r = rules[i];
    if (!r?.perNamespace) continue;
    ops.push(
      "- op: test",
      `  path: /rules/${i}/resources`,
      `  value: [${r.resources.join(", ")}]`,
      "- op: remove",
      `  path: /rules/${i}`,
    );
  }
  return `${HEADER}# The ClusterRole without the Secret and ServiceAccount rules: rbac.yaml grants them per namespace.
${ops.join("\n")}
`;
}

/** deploy/rbac.yaml. */
export function renderRbac(): string {
  return rbacFor(KUSTOMIZE_RBAC);
}

/** The chart's templates/rbac.yaml: the same objects, named after the release. */
export function renderChartRbac(): string {
  return rbacFor(CHART_RBAC);
}
