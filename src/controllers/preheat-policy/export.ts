// HarborPreheatPolicy's exporter (see shared/export.ts): each project's policies in one list per
// project (Harbor lists policies only by project), the instance named by its exported resource, and
// the system info once (which release: where Harbor keeps the scope).
import type { HarborPreheatPolicySpec } from "../../api/preheat-policy.ts";
import type { PreheatPolicy } from "../../harbor/preheat.ts";
import { type HarborObjectView, type KindExporter, numericId } from "../shared/export.ts";
import type { HarborRelease } from "../shared/harbor-release.ts";
import { diff, specFromPolicy } from "./mapping.ts";

export const preheatPolicyExporter: KindExporter<HarborPreheatPolicySpec> = {
  async read(ctx) {
    const projects = (await ctx.projects()).filter((p) => ctx.includes(p.name ?? ""));
    if (projects.length === 0) return [];
    const release = await ctx.release();
    let done = 0;
    const lists = await ctx.each(projects, async (p) => {
      const policies = await ctx.harbor.preheat.listPolicies(p.name ?? "", {}, { signal: ctx.signal });
      ctx.progress("preheat policies", ++done, projects.length);
      return policies.map((policy) => view(policy, { id: p.project_id, name: p.name ?? "" }, release));
    });
    return lists.flat();
  },
  keyOf(spec, harborName, refs) {
    const project = refs.resolve("HarborProject", spec.projectRef.name);
    return project ? `${project.harborName}/${harborName}` : undefined;
  },
};

function view(
  p: PreheatPolicy,
  project: { id: number; name: string },
  release: HarborRelease,
): HarborObjectView<HarborPreheatPolicySpec> {
  const name = p.name ?? "";
  return {
    identity: {
      id: p.id ?? 0,
      key: `${project.name}/${name}`,
      harborName: name,
      suggestedName: `${project.name}.${name}`,
      projects: [project.name],
    },
    spec: (names) =>
      specFromPolicy(
        p,
        names.nameOf("HarborProject", project.id),
        p.provider_id === undefined ? undefined : names.nameOf("HarborPreheatInstance", p.provider_id),
        release,
      ),
    diff: (spec, harborName, refs) =>
      diff(
        spec,
        harborName,
        numericId(refs.resolve("HarborPreheatInstance", spec.instanceRef.name)?.id),
        release,
        p,
      ),
  };
}
