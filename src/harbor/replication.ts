// Replication policies, executions, tasks and task logs (/replication/…).
import type { HarborTransport } from "./transport.ts";

export class ReplicationApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  protected get transport(): HarborTransport {
    return this.#t;
  }
}
