// Project webhooks (/projects/{p}/webhook/…): policies, event types, last trigger, jobs.
import type { HarborTransport } from "./transport.ts";

export class WebhooksApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
