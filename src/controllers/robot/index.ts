// HarborRobot wiring. Besides the robot and project informers it needs the shared Namespace
// informer (copies go to namespaces chosen by labels, cluster-wide) and, from the composition, a
// reconcile of the robot whenever one of its Secrets (label harborconfig.io/watch, owner
// annotation) changes or goes, and whenever a Namespace appears or its labels change.
import { HarborRobotSpec, harborRobot } from "../../api/robot.ts";
import { ManagedKind } from "../../runtime/kind.ts";
import { harborErrors } from "../shared/errors.ts";
import { type Informers, type KindContext, resourceType } from "../shared/kinds.ts";
import { RobotDelivery } from "./delivery.ts";
import { robotExternal } from "./external.ts";

export const robotType = resourceType(harborRobot);

export function robotKind(
  ctx: KindContext,
  informers: Pick<Informers, "robots" | "projects" | "namespaces">,
) {
  const delivery = new RobotDelivery({
    kube: ctx.kube,
    secrets: ctx.secrets,
    namespaces: informers.namespaces,
  });
  return new ManagedKind(ctx.kube, {
    type: robotType,
    specSchema: HarborRobotSpec,
    informer: informers.robots,
    external: robotExternal({
      projects: informers.projects,
      delivery,
      events: ctx.events,
      metrics: ctx.metrics,
    }),
    connections: ctx.connections,
    errors: harborErrors,
    kube: ctx.kube,
    events: ctx.events,
    logger: ctx.logger.child({ kind: "HarborRobot" }),
    metrics: ctx.metrics,
    workers: ctx.workers,
    driftIntervalMs: ctx.driftIntervalMs,
    ...(ctx.reconcileTimeoutMs ? { reconcileTimeoutMs: ctx.reconcileTimeoutMs } : {}),
  });
}
