// Garbage collection (/system/gc): schedule, history, logs, stop.
import type { HarborTransport } from "./transport.ts";

export class GcApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
