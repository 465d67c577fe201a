// Plain HTTP servers on loopback that tests start as the other side of the operator or the client:
// a webhook receiver, a server that answers too much or too slowly.
import { createServer, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** Stops listening and drops open connections; resolves once closed. */
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 at a free port. */
export async function listenOnLoopback(handler: RequestListener): Promise<LoopbackServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Writes `bytes` bytes of `chunk`, repeated (the last piece cut short; forever for Infinity), as the
 * client reads: honouring backpressure, so the server never holds more than one chunk, and stopping
 * when the client hangs up. Ends the response with `tail` once all was written.
 */
export function streamBody(
  res: ServerResponse,
  chunk: Buffer,
  bytes: number,
  o: { tail?: Buffer; onWrite?: (n: number) => void; onEnd?: () => void } = {},
): void {
  let left = bytes;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, chunk.length);
      left -= n;
      o.onWrite?.(n);
      if (!res.write(chunk.subarray(0, n))) return void res.once("drain", pump);
    }
    if (res.destroyed) return;
    res.end(o.tail);
    o.onEnd?.();
  };
  pump();
}
