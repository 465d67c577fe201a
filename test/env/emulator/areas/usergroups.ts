// User groups (LDAP, HTTP, OIDC).
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export class UserGroupStore {
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
