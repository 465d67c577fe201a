// The MutatingAdmissionPolicy that sets the operator's finalizer on every managed resource as it is
// stored, annotated `harborconfig.io/finalizer-set-at: admission`. The operator then writes no
// finalizer before a resource's first create in Harbor: one Kubernetes write per resource less, on
// an apiserver that every write costs CPU (docs/performance.md). It needs the v1 API
// (admissionregistration.k8s.io/v1, Kubernetes 1.36 and later), so it is optional: a kustomize
// component (deploy/components/finalizer-at-admission) and, in the Helm chart, installed when the
// cluster serves the API. Without it the operator adds the finalizer itself, as before.
//
// Why the annotation: a finalizer the operator wrote before a create, with no Harbor id recorded,
// marks a create that may have happened (taken over after a crash, never refused as someone
// else's). One that came with the object marks nothing, and the operator must tell them apart.
import { FINALIZER, FINALIZER_SET_AT_ANNOTATION, GROUP } from "./api/common.ts";
import { MANAGED_KINDS } from "./controllers/kind-list.ts";
import { FULLNAME, HEADER, LABELS, TEMPLATE_HEADER } from "./generated-text.ts";

interface Target {
  header: string;
  name: string;
  /** Metadata lines after the name (labels), indented by two. */
  labels: string[];
  /** The binding's `matchResources` lines, if any; none: every namespace. */
  matchResources: string[];
}

function policyFor(t: Target): string {
  const plurals = MANAGED_KINDS.map((k) => `          - ${k.def.plural}`).join("\n");
  const meta = [`  name: ${t.name}`, ...t.labels].join("\n");
  const selector = t.matchResources.length ? `\n${t.matchResources.join("\n")}` : "";
  return `${t.header}# Sets the operator's finalizer on every managed resource that lacks it and is not being deleted,
# when it is created or updated, with the annotation ${FINALIZER_SET_AT_ANNOTATION}: admission.
# The operator then writes no finalizer of its own before a resource's first create in Harbor.
# Kubernetes 1.36 or later (admissionregistration.k8s.io/v1). failurePolicy Ignore: should the
# policy fail, the resource is stored without the finalizer and the operator adds it itself.
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
${meta}
spec:
  failurePolicy: Ignore
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
      - apiGroups: [${GROUP}]
        apiVersions: ["*"]
        operations: [CREATE, UPDATE]
        resources:
${plurals}
  matchConditions:
    - name: lacks-the-finalizer
      expression: >-
        !has(object.metadata.deletionTimestamp) &&
        !(has(object.metadata.finalizers) && "${FINALIZER}" in object.metadata.finalizers)
  # A JSON patch, not an apply configuration: that one needs the kind's schema, which the apiserver
  # may not have yet for a CRD just established, and the create fails meanwhile.
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: >-
          [
          has(object.metadata.finalizers)
          ? JSONPatch{op: "add", path: "/metadata/finalizers/-", value: "${FINALIZER}"}
          : JSONPatch{op: "add", path: "/metadata/finalizers", value: ["${FINALIZER}"]},
          has(object.metadata.annotations)
          ? JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("${FINALIZER_SET_AT_ANNOTATION}"), value: "admission"}
          : JSONPatch{op: "add", path: "/metadata/annotations", value: {"${FINALIZER_SET_AT_ANNOTATION}": "admission"}}
          ]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
${meta}
spec:
  policyName: ${t.name}${selector}
`;
}

/** deploy/components/finalizer-at-admission/policy.yaml: every namespace. */
export function renderFinalizerPolicy(): string {
  return policyFor({
    header: HEADER,
    name: "harbor-config-operator-finalizer",
    labels: [],
    matchResources: [],
  });
}

/**
 * The chart's templates/finalizer-policy.yaml: named after the release, rendered when
 * `finalizerAtAdmission` is on, no `labelSelector` shards the resources (one no shard selects would
 * keep a finalizer nobody removes) and the cluster serves the API; bound to `watchNamespaces` when
 * the release watches only those.
 */
export function renderChartFinalizerPolicy(): string {
  const body = policyFor({
    header: "",
    name: `${FULLNAME}-finalizer`,
    labels: ["  labels:", `    ${LABELS}`],
    matchResources: [
      "{{- with .Values.watchNamespaces }}",
      "  matchResources:",
      "    namespaceSelector:",
      "      matchExpressions:",
      "        - key: kubernetes.io/metadata.name",
      "          operator: In",
      "          values:",
      "            {{- toYaml . | nindent 12 }}",
      "{{- end }}",
    ],
  });
  return `${TEMPLATE_HEADER}{{- if and .Values.finalizerAtAdmission (not .Values.labelSelector) (.Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy") }}
${body}{{- end }}
`;
}
