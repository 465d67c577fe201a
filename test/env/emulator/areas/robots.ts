// Robot accounts (v2 /robots and v1 /projects/{p}/robots), their names, secrets and permissions.
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export interface RobotAccess {
  resource: string;
  action: string;
  effect?: string;
}

export interface RobotPermission {
  kind: string;
  namespace: string;
  access: RobotAccess[];
}

export interface RobotRecord {
  id: number;
  /** As stored: "<name>" for system robots, "<project>+<name>" for project robots. */
  name: string;
  /** As exposed and used for basic auth: the robot prefix plus the stored name. */
  fullName: string;
  level: "system" | "project";
  project_id: number;
  permissions: RobotPermission[];
}

export class RobotStore {
  readonly #world: World;

  constructor(world: World) {
    this.#world = world;
  }

  get world(): World {
    return this.#world;
  }

  /** The robot for basic-auth credentials, or undefined (wrong secret, disabled, expired). */
  authenticate(_fullName: string, _secret: string): RobotRecord | undefined {
    return undefined;
  }

  /** Removes a project's robots (project deletion). */
  deleteByProject(_projectId: number): void {}
}

export const area = defineArea({
  routes: [],
  control: (_world: World) => ({}),
});
