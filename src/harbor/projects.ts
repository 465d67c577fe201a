// Projects (/projects): create, lookup, update, delete, deletability, summary, audit logs.
import type { HarborTransport } from "./transport.ts";

export class ProjectsApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
