// HarborProject wiring.
import { HarborProjectSpec, harborProject } from "../../api/project.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { ManagedObject } from "../../runtime/managed.ts";
import { type KindContext, managedKind } from "../shared/kinds.ts";
import { projectExternal } from "./external.ts";

export function projectKind(
  ctx: KindContext,
  informers: { projects: Informer<ManagedObject>; registries: Informer<ManagedObject> },
) {
  return managedKind(ctx, {
    def: harborProject,
    specSchema: HarborProjectSpec,
    informer: informers.projects,
    external: projectExternal({ registries: informers.registries }),
  });
}
