// Projects: the records every other area hangs off, name-or-id resolution, repositories (the
// simulated content that blocks deletion) and members with their roles.
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export interface RepositoryRecord {
  name: string;
  artifact_count: number;
  pull_count: number;
  creation_time: string;
  update_time: string;
}

export interface CveAllowlistRecord {
  id: number;
  project_id: number;
  items: Array<{ cve_id: string }>;
  expires_at?: number;
  creation_time: string;
  update_time: string;
}

export interface ProjectRecord {
  project_id: number;
  name: string;
  owner_id: number;
  owner_name: string;
  /** 0 unless the project is a proxy cache of that registry. */
  registry_id: number;
  creation_time: string;
  update_time: string;
  /** Every value is a string, as Harbor stores and returns them. */
  metadata: Record<string, string>;
  cve_allowlist: CveAllowlistRecord;
  /** Bytes; -1 is unlimited. */
  storage_limit: number;
  /** user id → role id */
  members: Map<number, number>;
  repositories: Map<string, RepositoryRecord>;
}

export const PROJECT_NAME = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;

export class ProjectStore {
  readonly #world: World;
  readonly #projects = new Map<number, ProjectRecord>();

  constructor(world: World) {
    this.#world = world;
    // A fresh Harbor has the public project "library" (id 1), owned by admin.
    this.insert({ name: "library", ownerId: 1, metadata: { public: "true" }, storageLimit: -1 });
  }

  get world(): World {
    return this.#world;
  }

  insert(p: {
    name: string;
    ownerId: number;
    metadata: Record<string, string>;
    storageLimit: number;
    registryId?: number;
  }): ProjectRecord {
    const id = this.#world.ids.next("project");
    const now = this.#world.nowText();
    const owner = this.#world.identities.byId(p.ownerId);
    const rec: ProjectRecord = {
      project_id: id,
      name: p.name,
      owner_id: p.ownerId,
      owner_name: owner?.username ?? "",
      registry_id: p.registryId ?? 0,
      creation_time: now,
      update_time: now,
      metadata: { ...p.metadata },
      cve_allowlist: {
        id: this.#world.ids.next("cve_allowlist"),
        project_id: id,
        items: [],
        creation_time: now,
        update_time: now,
      },
      storage_limit: p.storageLimit,
      members: new Map([[p.ownerId, 1]]),
      repositories: new Map(),
    };
    this.#projects.set(id, rec);
    return rec;
  }

  /**
   * `{project_name_or_id}`: a value that parses as an integer is an id unless the caller set
   * X-Is-Resource-Name: true.
   */
  resolve(ref: string, byName: boolean): ProjectRecord | undefined {
    if (!byName && /^-?\d+$/.test(ref)) return this.byId(Number(ref));
    return this.byName(ref);
  }

  byId(id: number): ProjectRecord | undefined {
    return this.#projects.get(id);
  }

  byName(name: string): ProjectRecord | undefined {
    for (const p of this.#projects.values()) if (p.name === name) return p;
    return undefined;
  }

  all(): ProjectRecord[] {
    return [...this.#projects.values()];
  }

  /** Deletes the project and what Harbor deletes with it: robots, webhook policies, project labels. */
  remove(project: ProjectRecord): void {
    this.#projects.delete(project.project_id);
    this.#world.robots.deleteByProject(project.project_id);
    this.#world.webhooks.deleteByProject(project.project_id);
    this.#world.labels.deleteByProject(project.project_id);
  }
}

export const area = defineArea({
  routes: [],
  control: (world: World) => ({
    /** Adds a repository (with artifacts) to a project, making it non-deletable. */
    addRepository(project: string, repository: string, artifacts = 1): void {
      const p = world.projects.byName(project);
      if (!p) throw new Error(`no project ${project}`);
      const now = world.nowText();
      p.repositories.set(repository, {
        name: `${project}/${repository}`,
        artifact_count: artifacts,
        pull_count: 0,
        creation_time: now,
        update_time: now,
      });
    },
    removeRepository(project: string, repository: string): void {
      world.projects.byName(project)?.repositories.delete(repository);
    },
  }),
});
