// Garbage collection: the schedule, runs that progress on the world clock, logs.
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export class GcStore {
  readonly #world: World;

  constructor(world: World) {
    this.#world = world;
  }

  get world(): World {
    return this.#world;
  }
}

export const area = defineArea({
  routes: [],
  control: (_world: World) => ({}),
});
