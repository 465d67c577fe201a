// What the operator's own RBAC lets it do, asked of the apiserver (a SelfSubjectAccessReview, which
// every authenticated user may create). With `--namespace`, a deployment may grant Secrets and
// ServiceAccounts only in the watched namespaces (Roles, see deploy/components/namespaced and the
// chart's watchNamespaces): then the calls that would span the cluster go namespace by namespace.
import type { KubeClient } from "./client.ts";
import type { KubeObject, ResourceType } from "./types.ts";

const SelfSubjectAccessReviews: ResourceType = {
  group: "authorization.k8s.io",
  version: "v1",
  plural: "selfsubjectaccessreviews",
  kind: "SelfSubjectAccessReview",
  namespaced: false,
};

interface Review extends KubeObject {
  spec: { resourceAttributes: { verb: string; group: string; resource: string } };
  status?: { allowed?: boolean };
}

/** Whether the operator may `verb` objects of `type` in every namespace at once. */
export async function mayEverywhere(kube: KubeClient, verb: string, type: ResourceType): Promise<boolean> {
  const review = await kube.create<Review>(SelfSubjectAccessReviews, {
    metadata: { name: "" },
    spec: { resourceAttributes: { verb, group: type.group, resource: type.plural } },
  });
  return review.status?.allowed === true;
}
