// HarborImmutableTagRule's exporter (see shared/export.ts): each project's rules in one list per
// project (Harbor lists them only by project). A rule is keyed by its project and selectors, which
// Harbor keeps once per project.
import type { HarborImmutableTagRuleSpec } from "../../api/immutable-tag-rule.ts";
import type { ImmutableRule } from "../../harbor/immutable-tag-rule.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { diff, ruleKey, selectorsOf, specFromRule } from "./mapping.ts";

export const immutableTagRuleExporter: KindExporter<HarborImmutableTagRuleSpec> = {
  async read(ctx) {
    const projects = (await ctx.projects()).filter((p) => ctx.includes(p.name ?? ""));
    let done = 0;
    const lists = await ctx.each(projects, async (p) => {
      const rules = await ctx.harbor.immutable.list(p.project_id, { signal: ctx.signal });
      ctx.progress("immutable tag rules", ++done, projects.length);
      return rules.map((r) => view(r, { id: p.project_id, name: p.name ?? "" }));
    });
    return lists.flat();
  },
  keyOf(spec, _harborName, refs) {
    const project = refs.resolve("HarborProject", spec.projectRef.name);
    return project ? ruleKey(project.harborName, spec) : undefined;
  },
};

function view(
  rule: ImmutableRule,
  project: { id: number; name: string },
): HarborObjectView<HarborImmutableTagRuleSpec> {
  const key = ruleKey(project.name, selectorsOf(rule));
  return {
    identity: {
      id: rule.id ?? 0,
      key,
      harborName: key,
      suggestedName: `${project.name}.immutable-${rule.id ?? 0}`,
      projects: [project.name],
    },
    spec: (names) => specFromRule(rule, names.nameOf("HarborProject", project.id)),
    diff: (spec) => diff(spec, rule),
  };
}
