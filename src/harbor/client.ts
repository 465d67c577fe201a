// HarborClient: one typed method per Harbor operation, grouped by API area. It owns nothing but a
// transport; the transport shares connection pool, rate limiter and concurrency cap per base URL.
import { LabelsApi } from "./labels.ts";
import { HarborTransport, type TransportOptions } from "./transport.ts";

export type HarborClientOptions = TransportOptions;

export class HarborClient {
  readonly transport: HarborTransport;
  readonly labels: LabelsApi;

  constructor(options: HarborClientOptions) {
    this.transport = new HarborTransport(options);
    this.labels = new LabelsApi(this.transport);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
