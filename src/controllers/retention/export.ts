// HarborRetentionPolicy's exporter (see shared/export.ts): each project's policy, found through the
// project's metadata retention_id (one read per project that has one). A policy without rules and
// schedule is none; one the project names but Harbor no longer has is skipped.
import type { HarborRetentionPolicySpec } from "../../api/retention.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { RetentionPolicy } from "../../harbor/retention.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { diff, isEmpty, specFromPolicy } from "./mapping.ts";

export const retentionExporter: KindExporter<HarborRetentionPolicySpec> = {
  async read(ctx) {
    const projects = (await ctx.projects()).filter(
      (p) => ctx.includes(p.name ?? "") && Number(p.metadata?.retention_id ?? "") > 0,
    );
    let done = 0;
    const views = await ctx.each(projects, async (p) => {
      const id = Number(p.metadata?.retention_id);
      let policy: RetentionPolicy;
      try {
        policy = await ctx.harbor.retention.get(id, { signal: ctx.signal });
      } catch (e) {
        // Harbor answers 500 for a policy it no longer has (deleted, its retention_id left behind).
        if (!isHarborError(e, "server")) throw e;
        return undefined;
      } finally {
        ctx.progress("retention policies", ++done, projects.length);
      }
      return isEmpty(policy) ? undefined : view(policy, id, { id: p.project_id, name: p.name ?? "" });
    });
    return views.filter((v): v is HarborObjectView<HarborRetentionPolicySpec> => v !== undefined);
  },
  keyOf(spec, _harborName, refs) {
    return refs.resolve("HarborProject", spec.projectRef.name)?.harborName;
  },
};

function view(
  policy: RetentionPolicy,
  id: number,
  project: { id: number; name: string },
): HarborObjectView<HarborRetentionPolicySpec> {
  return {
    identity: {
      id,
      key: project.name,
      harborName: project.name,
      suggestedName: `${project.name}.retention`,
      projects: [project.name],
    },
    spec: (names) => specFromPolicy(policy, names.nameOf("HarborProject", project.id)),
    diff: (spec) => diff(spec, { id, projectId: project.id, policy }),
  };
}
