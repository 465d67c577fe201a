// The job service monitor (/jobservice): queues, worker pools, workers, stopping jobs.
import type { HarborTransport } from "./transport.ts";

export class JobServiceApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
