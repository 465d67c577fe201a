// User groups (/usergroups).
import type { HarborTransport } from "./transport.ts";

export class UserGroupsApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
