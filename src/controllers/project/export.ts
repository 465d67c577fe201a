// HarborProject's exporter (see shared/export.ts): every project with its quota, in a few list
// calls: the projects (shared with the kinds that live in projects) and every project quota, page
// by page. Without system access the quota list is refused; then each project's summary shows its
// limit, one read per project. A project's scanner costs one read per project, and is read only
// where it can differ from Harbor's default: in a Harbor with more than one scanner registration.
import type { HarborProjectSpec } from "../../api/project.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { quotaProjectId } from "../../harbor/quotas.ts";
import {
  type ExportReadContext,
  type HarborObjectView,
  type KindExporter,
  numericId,
} from "../shared/export.ts";
import type { HarborRelease } from "../shared/harbor-release.ts";
import {
  diff,
  forRelease,
  type ObservedProjectScanner,
  type ObservedQuota,
  type ProjectState,
  quotaFromList,
  quotaFromSummary,
  scannerDrift,
  scannerSpecFrom,
  specFromProject,
} from "./mapping.ts";

export const projectExporter: KindExporter<HarborProjectSpec> = {
  async read(ctx) {
    const [projects, release] = await Promise.all([ctx.projects(), ctx.release()]);
    const quotas = await readQuotas(
      ctx,
      projects.map((p) => p.project_id),
    );
    const scanners = await readScanners(ctx, projects);
    return projects.map((p) =>
      view(
        {
          ...p,
          ...(quotas.has(p.project_id) ? { quota: quotas.get(p.project_id) } : {}),
          ...(scanners.has(p.project_id) ? { scanner: scanners.get(p.project_id) } : {}),
        },
        release,
      ),
    );
  },
  keyOf: (_spec, harborName) => harborName,
};

function view(
  project: ProjectState & { project_id: number; scanner?: ObservedProjectScanner | null },
  release: HarborRelease,
): HarborObjectView<HarborProjectSpec> {
  const name = project.name ?? "";
  return {
    identity: { id: project.project_id, key: name, harborName: name, suggestedName: name, projects: [name] },
    spec: (names) => {
      const out = specFromProject(
        project,
        project.registry_id ? names.nameOf("HarborRegistry", project.registry_id) : undefined,
      );
      const s = project.scanner;
      const scanner = scannerSpecFrom(s, s ? names.nameOf("HarborScannerRegistration", s.uuid) : undefined);
      if (scanner.spec) out.spec.scanner = scanner.spec;
      if (scanner.note) out.notes.push(scanner.note);
      return out;
    },
    // As the operator's diff: the project's fields as this release holds them, then its scanner.
    diff: (spec, _harborName, refs) => [
      ...diff(
        forRelease(spec, release.version),
        project,
        spec.proxyCache
          ? numericId(refs.resolve("HarborRegistry", spec.proxyCache.registryRef.name)?.id)
          : undefined,
      ),
      ...scannerDrift(
        spec,
        project.scanner,
        spec.scanner?.registrationRef
          ? String(refs.resolve("HarborScannerRegistration", spec.scanner.registrationRef.name)?.id ?? "")
          : undefined,
      ),
    ],
  };
}

/**
 * The scanner of each wanted project, where it can be another than Harbor's default: with more
 * than one registration. Without system access (the list is refused) it is left unread.
 */
async function readScanners(
  ctx: ExportReadContext,
  projects: readonly { project_id: number; name?: string | undefined }[],
): Promise<Map<number, ObservedProjectScanner | null>> {
  const out = new Map<number, ObservedProjectScanner | null>();
  try {
    const registrations = await ctx.harbor.scanners.list({}, { signal: ctx.signal });
    if (registrations.length < 2) return out;
  } catch (e) {
    if (isHarborError(e, "forbidden")) return out;
    throw e;
  }
  const wanted = projects.filter((p) => ctx.includes(p.name ?? ""));
  let done = 0;
  await ctx.each(wanted, async (p) => {
    const r = await ctx.harbor.scanners.getOfProject(p.project_id, { signal: ctx.signal });
    out.set(p.project_id, r?.uuid ? { uuid: r.uuid, name: r.name, isDefault: r.is_default === true } : null);
    ctx.progress("project scanners", ++done, wanted.length);
  });
  return out;
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
