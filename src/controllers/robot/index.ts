// HarborRobot wiring. Besides the robot and project informers it needs the shared Namespace
// informer (copies go to namespaces chosen by labels, cluster-wide) and, from the composition, a
// reconcile of the robot whenever one of its Secrets (label harborconfig.io/watch, owner
// annotation) changes or goes, whenever a Namespace appears or its labels change, and whenever a
// ServiceAccount it names appears or loses its entry (see service-accounts.ts).
import { HarborRobotSpec, harborRobot } from "../../api/robot.ts";
import { type Informers, type KindContext, managedKind } from "../shared/kinds.ts";
import { RobotDelivery } from "./delivery.ts";
import { robotExternal } from "./external.ts";

export function robotKind(
  ctx: KindContext,
  informers: Pick<Informers, "robots" | "projects" | "namespaces">,
) {
  const delivery = new RobotDelivery({
    kube: ctx.kube,
    secrets: ctx.secrets,
    namespaces: informers.namespaces,
  });
  return managedKind(ctx, {
    def: harborRobot,
    specSchema: HarborRobotSpec,
    informer: informers.robots,
    external: robotExternal({
      projects: informers.projects,
      delivery,
      events: ctx.events,
      metrics: ctx.metrics,
    }),
  });
}
