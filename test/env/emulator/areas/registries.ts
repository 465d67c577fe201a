// Remote registries (replication endpoints), their health and the provider types Harbor knows.
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export interface RegistryRecord {
  id: number;
  name: string;
  type: string;
  url: string;
}

export class RegistryStore {
  readonly #world: World;
  readonly #registries = new Map<number, RegistryRecord>();

  constructor(world: World) {
    this.#world = world;
  }

  get world(): World {
    return this.#world;
  }

  get(id: number): RegistryRecord | undefined {
    return this.#registries.get(id);
  }
}

export const area = defineArea({
  routes: [],
  control: (_world: World) => ({}),
});
