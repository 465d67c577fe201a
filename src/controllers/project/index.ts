// HarborProject wiring.
import { HarborProjectSpec, harborProject } from "../../api/project.ts";
import type { Informer } from "../../runtime/informer.ts";
import { ManagedKind } from "../../runtime/kind.ts";
import type { ManagedObject } from "../../runtime/managed.ts";
import { harborErrors } from "../shared/errors.ts";
import { type KindContext, resourceType } from "../shared/kinds.ts";
import { projectExternal } from "./external.ts";

export const projectType = resourceType(harborProject);

export function projectKind(
  ctx: KindContext,
  informers: { projects: Informer<ManagedObject>; registries: Informer<ManagedObject> },
) {
  return new ManagedKind(ctx.kube, {
    type: projectType,
    specSchema: HarborProjectSpec,
    informer: informers.projects,
    external: projectExternal({ registries: informers.registries }),
    connections: ctx.connections,
    errors: harborErrors,
    kube: ctx.kube,
    events: ctx.events,
    logger: ctx.logger.child({ kind: "HarborProject" }),
    metrics: ctx.metrics,
    workers: ctx.workers,
    driftIntervalMs: ctx.driftIntervalMs,
    ...(ctx.reconcileTimeoutMs ? { reconcileTimeoutMs: ctx.reconcileTimeoutMs } : {}),
  });
}
