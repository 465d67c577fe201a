// HarborRobot's exporter (see shared/export.ts): the system robots in one list, and each project's
// robots in one list per project (Harbor lists project robots only by project). A robot's secret
// cannot be read: by default the export writes `secret.deliver: false`, so that adopting a robot
// leaves its secret with whoever holds it; with delivery the operator issues a new one.
import type { HarborRobotSpec } from "../../api/robot.ts";
import type { PersistedRobot } from "../../harbor/robots.ts";
import { type HarborObjectView, type KindExporter, numericId } from "../shared/export.ts";
import { diff, type RobotProject, specFromRobot, specNameOf } from "./mapping.ts";

export const robotExporter: KindExporter<HarborRobotSpec> = {
  async read(ctx) {
    const deliver = ctx.deliverSecrets;
    const out: HarborObjectView<HarborRobotSpec>[] = [];
    for (const r of await ctx.harbor.robots.list({}, { signal: ctx.signal }))
      out.push(view(r, undefined, deliver));
    const projects = (await ctx.projects()).filter((p) => ctx.includes(p.name ?? ""));
    let done = 0;
    const lists = await ctx.each(projects, async (p) => {
      const robots = await ctx.harbor.robots.list({ projectId: p.project_id }, { signal: ctx.signal });
      ctx.progress("project robots", ++done, projects.length);
      return robots.map((r) => view(r, { id: p.project_id, name: p.name ?? "" }, deliver));
    });
    return [...out, ...lists.flat()];
  },
  keyOf(spec, harborName, refs) {
    if (spec.level === "system") return `/${harborName}`;
    const project = spec.projectRef && refs.resolve("HarborProject", spec.projectRef.name);
    return project ? `${project.harborName}/${harborName}` : undefined;
  },
};

function view(
  robot: PersistedRobot,
  project: RobotProject | undefined,
  deliver: boolean,
): HarborObjectView<HarborRobotSpec> {
  const name = specNameOf(robot.name ?? "", project) ?? robot.name ?? "";
  return {
    identity: {
      id: robot.id,
      key: `${project?.name ?? ""}/${name}`,
      harborName: name,
      suggestedName: project ? `${project.name}.${name}` : name,
      projects: project ? [project.name] : reached(robot),
    },
    spec: (names) =>
      specFromRobot(robot, project, project ? names.nameOf("HarborProject", project.id) : undefined, deliver),
    diff: (spec, _harborName, refs, now) => {
      const ref = spec.projectRef && refs.resolve("HarborProject", spec.projectRef.name);
      const id = numericId(ref?.id);
      const p = ref && id !== undefined ? { id, name: ref.harborName } : project;
      return diff(spec, robot, spec.level === "project" ? p : undefined, now);
    },
  };
}

/** The projects a system robot's permissions reach: their names, or "all" for "*". */
function reached(robot: PersistedRobot): string[] | "all" {
  const names = new Set<string>();
  for (const p of robot.permissions ?? []) {
    if (p.kind !== "project") continue;
    if (p.namespace === "*") return "all";
    if (p.namespace) names.add(p.namespace);
  }
  return [...names].sort();
}
