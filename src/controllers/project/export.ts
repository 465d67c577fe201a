// HarborProject's exporter (see shared/export.ts): every project with its quota, in a few list
// calls: the projects (shared with the kinds that live in projects) and every project quota, page
// by page. Without system access the quota list is refused; then each project's summary shows its
// limit, one read per project.
import type { HarborProjectSpec } from "../../api/project.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { quotaProjectId } from "../../harbor/quotas.ts";
import type { ExportReadContext, HarborObjectView, KindExporter } from "../shared/export.ts";
import {
  diff,
  type ObservedQuota,
  type ProjectState,
  quotaFromList,
  quotaFromSummary,
  specFromProject,
} from "./mapping.ts";

export const projectExporter: KindExporter<HarborProjectSpec> = {
  async read(ctx) {
    const projects = await ctx.projects();
    const quotas = await readQuotas(
      ctx,
      projects.map((p) => p.project_id),
    );
    return projects.map((p) =>
      view({ ...p, ...(quotas.has(p.project_id) ? { quota: quotas.get(p.project_id) } : {}) }),
    );
  },
  keyOf: (_spec, harborName) => harborName,
};

function view(project: ProjectState & { project_id: number }): HarborObjectView<HarborProjectSpec> {
  const name = project.name ?? "";
  return {
    identity: { id: project.project_id, key: name, harborName: name, suggestedName: name, projects: [name] },
    spec: (names) =>
      specFromProject(
        project,
        project.registry_id ? names.nameOf("HarborRegistry", project.registry_id) : undefined,
      ),
    diff: (spec, _harborName, refs) =>
      diff(
        spec,
        project,
        spec.proxyCache ? refs.resolve("HarborRegistry", spec.proxyCache.registryRef.name)?.id : undefined,
      ),
  };
}

/** Every project's quota by project id: from /quotas, or else from each project's summary. */
async function readQuotas(ctx: ExportReadContext, ids: number[]): Promise<Map<number, ObservedQuota>> {
  const out = new Map<number, ObservedQuota>();
  try {
    for await (const page of ctx.harbor.quotas.pages(
      { reference: "project", sort: "creation_time" },
      { signal: ctx.signal },
    )) {
      for (const quota of page) {
        const id = quotaProjectId(quota);
        if (id !== undefined) out.set(id, quotaFromList(quota));
      }
      ctx.progress("project quotas", out.size, ids.length);
    }
    return out;
  } catch (e) {
    if (!isHarborError(e, "forbidden")) throw e;
  }
  let done = 0;
  await ctx.each(ids, async (id) => {
    try {
      const quota = quotaFromSummary(await ctx.harbor.projects.summary(id, { signal: ctx.signal }));
      if (quota) out.set(id, quota);
    } catch (e) {
      if (!isHarborError(e, "forbidden")) throw e;
    }
    ctx.progress("project summaries", ++done, ids.length);
  });
  return out;
}
