// Scanner registrations (/scanners), the default scanner, and per-project scanners.
import type { HarborTransport } from "./transport.ts";

export class ScannersApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
