// Where a project-scoped kind's Harbor object lives: its HarborProject's Harbor id, resolved through
// the reference (which waits until the project is Ready) and allowed by the connection's tenancy.
// While the resource is being deleted after its project went, the project id status recorded
// still serves, so that the Harbor object can go too.

import { type ManagedObject, NotReady } from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { resolveReference } from "./references.ts";
import { requireProjects } from "./tenancy.ts";

export interface ProjectScope {
  projectId: number;
}

export function projectScope(
  projects: Informer<ManagedObject>,
  resource: ManagedObject,
  spec: { projectRef: { name: string }; connectionRef: { kind: string; name: string } },
  conn: HarborConnectionHandle,
): ProjectScope {
  try {
    const project = resolveReference(projects, resource, spec.projectRef, spec.connectionRef, conn.harbor);
    requireProjects(conn, [project.harborName]);
    return { projectId: project.harborId };
  } catch (e) {
    const recorded = (resource.status as { projectId?: unknown } | undefined)?.projectId;
    if (!resource.metadata.deletionTimestamp || !(e instanceof NotReady) || typeof recorded !== "number")
      throw e;
    return { projectId: recorded };
  }
}
