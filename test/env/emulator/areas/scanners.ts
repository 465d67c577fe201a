// Scanner registrations, the default scanner and per-project scanners.
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export class ScannerStore {
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
