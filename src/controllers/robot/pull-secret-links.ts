// What the ServiceAccount watch keeps and whom it wakes. A robot lists its Secret in the
// imagePullSecrets of the ServiceAccounts its spec names (spec.secret.copies.serviceAccounts) in
// every namespace its selector matches; a ServiceAccount created later (a Helm chart that creates
// it together with its Deployment) must get the entry before its pods are admitted, so the
// operator watches ServiceAccounts and queues the robots that name one when it appears or loses
// the entry. (Why one cluster-wide, trimmed watch: see shared/service-account-watch.ts.)
import type { LabelSelector } from "../../api/robot.ts";
import type { ServiceAccountObject } from "../../kube/types.ts";
import type { ManagedObject } from "../../runtime/external-client.ts";
import { selectorMatches } from "./mapping.ts";

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
