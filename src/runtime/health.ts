// The operator's HTTP endpoints: /metrics for Prometheus, /healthz for the liveness probe and
// /readyz for the readiness probe. Metrics and probes may listen on different addresses (two
// servers) or on the same one (one server serving all three). Plain node:http: there is nothing
// here a framework would make simpler.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Metrics } from "./metrics.ts";

/** Where to listen: `host` absent means every interface; port 0 picks a free port. */
export interface BindAddress {
  host?: string;
  port: number;
}

/**
 * A probe check: true when passing; false or a short reason when not. A check that throws fails
 * with the error's message; one that does not answer within the check timeout fails too.
 */
export type Check = () => boolean | string | Promise<boolean | string>;

export interface HealthServerOptions {
  metrics: Metrics;
  /** Address of /metrics; undefined: not served. */
  metricsAddress: BindAddress | undefined;
  /** Address of /healthz and /readyz; undefined: not served. */
  probeAddress: BindAddress | undefined;
  /** Readiness, e.g. every informer has synced. Default: always ready. */
  ready?: Check;
  /** Liveness beyond "the process answers". Default: none. */
  healthy?: Check;
  /** Deadline of one check. Default 5 s (probes usually time out after 1–10 s). */
  checkTimeoutMs?: number;
  logger?: Logger;
}

export interface HealthServer {
  /** Base URL of /metrics (a loopback URL when listening on every interface); undefined: disabled. */
  readonly metricsUrl: string | undefined;
  /** Base URL of /healthz and /readyz; undefined: disabled. */
  readonly probeUrl: string | undefined;
  /** Stops listening and closes connections (in-flight requests get a moment to finish). */
  close(): Promise<void>;
}

type Route = (res: http.ServerResponse) => Promise<void>;

const CLOSE_GRACE_MS = 1000;
const MAX_REASON_LENGTH = 200;

export async function startHealthServer(o: HealthServerOptions): Promise<HealthServer> {
  const checkTimeoutMs = o.checkTimeoutMs ?? 5000;
  const metricsRoutes: Record<string, Route> = {
    "/metrics": async (res) => {
      try {
        const text = await o.metrics.text();
        send(res, 200, text, o.metrics.contentType);
      } catch (e) {
        o.logger?.warn({ err: errorText(e) }, "could not collect metrics");
        send(res, 500, "could not collect metrics\n");
      }
    },
  };
  const probeRoutes: Record<string, Route> = {
    "/healthz": async (res) => answerProbe(res, o.healthy, "unhealthy", checkTimeoutMs),
    "/readyz": async (res) => answerProbe(res, o.ready, "not ready", checkTimeoutMs),
  };

  const servers: http.Server[] = [];
  const close = () => Promise.all(servers.map(closeServer)).then(() => undefined);
  try {
    let metricsUrl: string | undefined;
    let probeUrl: string | undefined;
    if (o.metricsAddress && o.probeAddress && sameAddress(o.metricsAddress, o.probeAddress)) {
      const server = await listen(
        { ...metricsRoutes, ...probeRoutes },
        o.metricsAddress,
        "metrics and probes",
        servers,
      );
      metricsUrl = probeUrl = urlOf(server);
    } else {
      if (o.metricsAddress)
        metricsUrl = urlOf(await listen(metricsRoutes, o.metricsAddress, "metrics", servers));
      if (o.probeAddress) probeUrl = urlOf(await listen(probeRoutes, o.probeAddress, "probes", servers));
    }
    return { metricsUrl, probeUrl, close };
  } catch (e) {
    await close();
    throw e;
  }
}

async function answerProbe(
  res: http.ServerResponse,
  check: Check | undefined,
  failure: string,
  timeoutMs: number,
) {
  const reason = check ? await runCheck(check, timeoutMs) : undefined;
  if (reason === undefined) send(res, 200, "ok\n");
  else send(res, 503, `${failure}: ${reason}\n`);
}

/** undefined when the check passes, else a short reason. */
async function runCheck(check: Check, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`check did not answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    const result = await Promise.race([Promise.resolve().then(check), timeout]);
    if (result === true) return undefined;
    if (result === false || result === "") return "check failed";
    return result.slice(0, MAX_REASON_LENGTH);
  } catch (e) {
    return errorText(e).slice(0, MAX_REASON_LENGTH);
  } finally {
    clearTimeout(timer);
  }
}

function listen(routes: Record<string, Route>, address: BindAddress, what: string, servers: http.Server[]) {
  const server = http.createServer({ requestTimeout: 30_000 }, (req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const route = routes[path];
    if (!route) return send(res, 404, "not found\n");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      return send(res, 405, "method not allowed\n");
    }
    route(res).catch(() => {
      if (!res.headersSent) send(res, 500, "internal error\n");
      else res.destroy();
    });
  });
  servers.push(server);
  return new Promise<http.Server>((resolve, reject) => {
    server.once("error", (e) =>
      reject(new Error(`cannot serve ${what} on ${display(address)}: ${errorText(e)}`)),
    );
    server.listen({ port: address.port, ...(address.host ? { host: address.host } : {}) }, () =>
      resolve(server),
    );
  });
}

function send(
  res: http.ServerResponse,
  status: number,
  body: string,
  contentType = "text/plain; charset=utf-8",
) {
  res.writeHead(status, { "content-type": contentType, "cache-control": "no-store" });
  res.end(res.req.method === "HEAD" ? undefined : body);
}

function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function sameAddress(a: BindAddress, b: BindAddress): boolean {
  return (a.host ?? "") === (b.host ?? "") && a.port === b.port;
}

function urlOf(server: http.Server): string {
  const a = server.address() as AddressInfo;
  const host = a.address === "::" || a.address === "0.0.0.0" ? "127.0.0.1" : a.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${a.port}`;
}

function display(a: BindAddress): string {
  const host = a.host ?? "";
  return `${host.includes(":") ? `[${host}]` : host}:${a.port}`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
