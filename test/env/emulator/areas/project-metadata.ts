// One project metadata key (/projects/{project_name_or_id}/metadatas/{meta_name}): read and delete.
// Harbor's delete takes any key, retention_id included (the only way to clear a retention_id that
// names a deleted policy); adding and updating take only the boolean keys and severity.
import { projectAccess } from "../auth.ts";
import { notFound } from "../errors.ts";
import { ok, type RouteSpec } from "../router.ts";
import { defineArea } from "./area.ts";

const routes: RouteSpec[] = [
  {
    op: "getProjectMetadata",
    method: "GET",
    path: "/projects/{project_name_or_id}/metadatas/{meta_name}",
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "metadata", "read");
      const key = ctx.params.meta_name as string;
      const value = project.metadata[key];
      if (value === undefined) throw notFound(`metadata ${key} of project ${project.project_id} not found`);
      return ok({ [key]: value });
    },
  },
  {
    op: "deleteProjectMetadata",
    method: "DELETE",
    path: "/projects/{project_name_or_id}/metadatas/{meta_name}",
    handle(ctx) {
      const project = projectAccess(ctx, ctx.params.project_name_or_id as string, "metadata", "delete");
      delete project.metadata[ctx.params.meta_name as string];
      return ok();
    },
  },
];

export const area = defineArea({ routes, control: () => ({}) });
