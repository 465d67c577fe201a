// HarborLabel's exporter (see shared/export.ts): the global labels in one list, and each project's
// labels in one list per project (Harbor lists project labels only by project).
import type { HarborLabelSpec } from "../../api/label.ts";
import type { Label } from "../../harbor/labels.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { diff, specFromLabel } from "./mapping.ts";

export const labelExporter: KindExporter<HarborLabelSpec> = {
  async read(ctx) {
    const global = await ctx.harbor.labels.list({ scope: "g" }, { signal: ctx.signal });
    const projects = (await ctx.projects()).filter((p) => ctx.includes(p.name ?? ""));
    let done = 0;
    const lists = await ctx.each(projects, async (p) => {
      const labels = await ctx.harbor.labels.list(
        { scope: "p", projectId: p.project_id },
        { signal: ctx.signal },
      );
      ctx.progress("project labels", ++done, projects.length);
      return labels.map((l) => view(l, { id: p.project_id, name: p.name ?? "" }));
    });
    return [...global.map((l) => view(l, undefined)), ...lists.flat()];
  },
  keyOf(spec, harborName, refs) {
    if (!spec.projectRef) return `/${harborName}`;
    const project = refs.resolve("HarborProject", spec.projectRef.name);
    return project ? `${project.harborName}/${harborName}` : undefined;
  },
};

function view(
  label: Label,
  project: { id: number; name: string } | undefined,
): HarborObjectView<HarborLabelSpec> {
  const name = label.name ?? "";
  return {
    identity: {
      id: label.id ?? 0,
      key: `${project?.name ?? ""}/${name}`,
      harborName: name,
      suggestedName: project ? `${project.name}.${name}` : name,
      projects: project ? [project.name] : [],
    },
    spec: (names) => specFromLabel(label, project ? names.nameOf("HarborProject", project.id) : undefined),
    diff: (spec) => diff(spec, label),
  };
}
