// Tenancy of a shared ClusterHarborConnection: what a namespace that uses it may do in the Harbor
// behind it. A HarborConnection belongs to its namespace (that namespace holds its credentials), so
// it has no tenancy: its resources may do whatever its credentials allow. Pure functions only.
import { namespaceAllowed } from "./mapping.ts";

/** spec.tenancy of a ClusterHarborConnection, with its defaults. */
export interface TenancySpec {
  /** Harbor project names the namespace may manage; `{namespace}` stands for its name, `*` for any text. */
  projects: readonly string[];
  /** May resources adopt Harbor objects that exist already (creationPolicy Adopt / CreateOrAdopt)? */
  allowAdoption: boolean;
  /** May the namespace have system-level robots (which reach beyond projects)? */
  allowSystemRobots: boolean;
  /** May the namespace manage Harbor-wide settings (GC schedule, audit-log purge, job queues)? */
  allowSystemSettings: boolean;
}

/** What one namespace may do through one ClusterHarborConnection. */
export interface Tenancy {
  /** "ClusterHarborConnection <name>", for messages. */
  readonly connection: string;
  readonly namespace: string;
  readonly allowAdoption: boolean;
  readonly allowSystemRobots: boolean;
  readonly allowSystemSettings: boolean;
  /** The project patterns with the namespace filled in. */
  readonly projects: readonly string[];
  mayManageProject(name: string): boolean;
  /** True when every project name is allowed (needed for "all projects" permissions and filters). */
  readonly mayManageAllProjects: boolean;
}

export function tenancyFor(spec: TenancySpec, connectionName: string, namespace: string): Tenancy {
  const projects = spec.projects.map((p) => p.replaceAll("{namespace}", namespace));
  return {
    connection: `ClusterHarborConnection ${connectionName}`,
    namespace,
    allowAdoption: spec.allowAdoption,
    allowSystemRobots: spec.allowSystemRobots,
    allowSystemSettings: spec.allowSystemSettings,
    projects,
    mayManageProject: (name) => namespaceAllowed(projects, name),
    mayManageAllProjects: projects.includes("*"),
  };
}

/**
 * Why the tenancy refuses these Harbor projects (a name, or "all" for a use that can reach any
 * project), or undefined when it allows them.
 */
export function projectsRefused(tenancy: Tenancy, projects: readonly string[] | "all"): string | undefined {
  const allowed = `namespace ${tenancy.namespace} may only manage projects matching ${tenancy.projects.join(", ") || "(none)"} through ${tenancy.connection} (spec.tenancy.projects)`;
  if (projects === "all")
    return tenancy.mayManageAllProjects ? undefined : `this reaches every project, but ${allowed}`;
  const refused = projects.filter((p) => !tenancy.mayManageProject(p));
  if (refused.length === 0) return undefined;
  return `project${refused.length > 1 ? "s" : ""} ${refused.map((p) => `"${p}"`).join(", ")}: ${allowed}`;
}
