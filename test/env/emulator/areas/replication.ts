// Replication policies, executions that progress on the world clock, their tasks and task logs.
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export class ReplicationStore {
  readonly #world: World;

  constructor(world: World) {
    this.#world = world;
  }

  get world(): World {
    return this.#world;
  }

  /** True when a replication policy uses the registry on either side. */
  referencesRegistry(_registryId: number): boolean {
    return false;
  }
}

export const area = defineArea({
  routes: [],
  control: (_world: World) => ({}),
});
