// Loopback ports and readiness probes for the control plane's components.
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { createServer, type Server } from "node:net";

/** A distinct free port on 127.0.0.1 for each name, all held open until every one is chosen. */
export async function freePorts<Name extends string>(names: readonly Name[]): Promise<Record<Name, number>> {
  const servers: Server[] = [];
  try {
    const ports = {} as Record<Name, number>;
    for (const name of names) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", resolve);
      });
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no TCP address");
      ports[name] = address.port;
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

export interface ProbeTls {
  /** PEM of the CA to trust; without it the server's certificate is not checked (self-signed). */
  ca?: Buffer;
}

/** GETs a URL and reports whether it answered 200; any error (refused, timeout) is "not yet". */
export function probe(url: string, tls?: ProbeTls): Promise<boolean> {
  const get = url.startsWith("https:") ? httpsGet : httpGet;
  const options = url.startsWith("https:") ? { ca: tls?.ca, rejectUnauthorized: tls?.ca !== undefined } : {};
  return new Promise((resolve) => {
    const req = get(url, { ...options, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once("timeout", () => req.destroy());
    req.once("error", () => resolve(false));
  });
}
