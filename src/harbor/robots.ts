// Robot accounts: v2 (/robots, system and project level) and v1 (/projects/{p}/robots).
import type { HarborTransport } from "./transport.ts";

export class RobotsApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}

export class RobotsV1Api {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
