// Remote registries (/registries) and the registry provider types (/replication/adapters…).
import type { HarborTransport } from "./transport.ts";

export class RegistriesApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
