// A simulated LDAP directory behind ping, user/group search and user import.
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export class LdapStore {
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
