// The shape of one API area of the emulator: its routes (under /api/v2.0, plus any outside it) and
// its part of the control API, through which tests drive the simulated world.
import type { RouteSpec } from "../router.ts";
import type { World } from "../world.ts";

export interface Area<C extends object> {
  routes: RouteSpec[];
  /** Routes outside /api/v2.0 (paths from the server root). */
  rootRoutes?: RouteSpec[];
  control(world: World): C;
}

export function defineArea<C extends object>(area: Area<C>): Area<C> {
  return area;
}
