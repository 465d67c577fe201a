// LDAP (/ldap): ping, user and group search, user import.
import type { HarborTransport } from "./transport.ts";

export class LdapApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
