// The Harbor emulator's HTTP server: Harbor's API under /api/v2.0, the control API under
// /_emulator. Each request goes through the same steps as in Harbor: faults (when injected), the
// CSRF check (only for cookie-carrying requests), identification (a failed login is answered late),
// routing (404/405), go-swagger binding (422), the handler, and the error envelope with 5xx masking.
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { areas } from "./areas/index.ts";
import { basicCredentials, identify } from "./auth.ts";
import { buildControl, CONTROL_PREFIX, type Control, callControl } from "./control.ts";
import { ApiError, BareError, envelope, errorBody } from "./errors.ts";
import { Counters, Faults } from "./faults.ts";
import { bind, type Ctx, type Method, type Reply, Router, type RouteSpec, servedBy } from "./router.ts";
import { type WebhookPrivateAddresses, World } from "./world.ts";

export const API_PREFIX = "/api/v2.0";
export const DEFAULT_ADMIN_PASSWORD = "Harbor12345";

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  adminPassword?: string;
  /** Latency added to every API request, in ms. */
  latencyMs?: number;
  seed?: number;
  /** How often executions and runs progress on their own; 0 disables the timer. Default 100 ms. */
  tickMs?: number;
  /**
   * The Harbor release modelled: "2.15.2" (the default), "2.14.4", "2.13.5", "2.12.4" or "2.10.3"
   * (see version.ts and VERSIONS.md).
   */
  harborVersion?: string;
  /**
   * The deployment's REPLICATION_ADAPTER_WHITELIST, which 2.14+ applies to the adapter lists (not
   * to registry creation): the registry types listed. Default: what Harbor's default install sets
   * (every type but dtr, gitlab and quay); null stands for the variable unset (nothing listed).
   * Releases before 2.14 list every type whatever it says.
   */
  replicationAdapterWhitelist?: readonly string[] | null;
  /**
   * Whether webhook delivery to private addresses is refused, as the patch releases 2.13.6,
   * 2.14.5 and 2.15.3 do unless the project's metadata says `webhook_allow_private_ip: "true"`
   * ("refuse"; the metadata key exists then), or allowed as in the modelled patches ("allow", the
   * default). "refuse" needs 2.13 or later.
   */
  webhookPrivateAddresses?: WebhookPrivateAddresses;
  /**
   * How long a failed password login locks the principal and delays its answer. Harbor's 1500 ms
   * by default. 0 (no lock, no delay) is for tests where a wrong password is only a way to a 401;
   * the freeze itself is proven with Harbor's time (observed, versions, transport, connection-probe).
   */
  loginFreezeMs?: number;
  /** Deliver webhooks to any address; by default only to loopback ones. */
  allowExternalWebhooks?: boolean;
}

export interface Emulator {
  /** Base URL, e.g. http://127.0.0.1:41234 (Harbor's API is under /api/v2.0). */
  url: string;
  port: number;
  adminUsername: string;
  adminPassword: string;
  /** The Harbor release modelled, e.g. "2.12.4". */
  harborVersion: string;
  world: World;
  control: Control;
  counters: Counters;
  close(): Promise<void>;
}

export async function startEmulator(o: EmulatorOptions = {}): Promise<Emulator> {
  const adminPassword = o.adminPassword ?? DEFAULT_ADMIN_PASSWORD;
  const world = new World({
    adminPassword,
    ...(o.seed === undefined ? {} : { seed: o.seed }),
    ...(o.harborVersion === undefined ? {} : { harborVersion: o.harborVersion }),
    ...(o.loginFreezeMs === undefined ? {} : { loginFreezeMs: o.loginFreezeMs }),
    ...(o.replicationAdapterWhitelist === undefined
      ? {}
      : { replicationAdapterWhitelist: o.replicationAdapterWhitelist }),
    ...(o.webhookPrivateAddresses === undefined
      ? {}
      : { webhookPrivateAddresses: o.webhookPrivateAddresses }),
  });
  world.webhooks.allowExternal = o.allowExternalWebhooks ?? false;
  const faults = new Faults(world.random, o.latencyMs ?? 0);
  const counters = new Counters();
  const control = buildControl(world, faults, counters);
  const api = new Router();
  const root = new Router();
  // Only the operations of the release modelled: any other path is Harbor's route not found.
  const served = (routes: RouteSpec[]) => routes.filter((r) => servedBy(r, world.version));
  for (const a of Object.values(areas)) {
    api.add(...served(a.routes));
    root.add(...served(a.rootRoutes ?? []));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      process.stderr.write(`emulator: unhandled error: ${(e as Error).stack ?? String(e)}\n`);
      if (!res.headersSent) res.writeHead(500).end(envelope("UNKNOWN", "internal server error"));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = headerText(req.headers["x-request-id"]) ?? randomUUID();
    const url = new URL(req.url ?? "/", "http://emulator");
    const method = (req.method ?? "GET").toUpperCase();
    const body = await readBody(req);

    if (url.pathname.startsWith(`${CONTROL_PREFIX}/`)) {
      await serveControl(url, method, body, res);
      return;
    }
    const inApi = url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`);
    const routePath = inApi ? url.pathname.slice(API_PREFIX.length) || "/" : url.pathname;
    const match = (inApi ? api : root).match(method, routePath);
    const op = match.kind === "found" ? match.route.op : "unknown";
    const fault = faults.decide(op, method, basicCredentials(req.headers)?.name);
    if (fault.latencyMs > 0) await delay(fault.latencyMs);

    const send = (status: number, reply: { body?: string; headers?: Record<string, string> }) => {
      counters.add(op, method, status);
      respond(res, status, requestId, reply, fault.slowBodyMs);
    };
    const drop = () => {
      counters.add(op, method, 0);
      req.socket.destroy();
    };

    const oversized = (bytes: number) => {
      counters.add(op, method, 200);
      streamBody(res, requestId, bytes);
    };

    if (fault.failure && !fault.failure.afterHandler) {
      if (fault.failure.drop) return drop();
      if (fault.failure.bodyBytes !== undefined) return oversized(fault.failure.bodyBytes);
      return send(...failureReply(fault.failure));
    }

    let status: number;
    let reply: { body?: string; headers?: Record<string, string> };
    try {
      // Harbor's CSRF middleware skips API paths unless the request carries a session cookie; a
      // cookie-carrying change without the token (never handed out here) is refused.
      if (/(?:^|;\s*)sid=/.test(req.headers.cookie ?? "") && !["GET", "HEAD", "OPTIONS"].includes(method)) {
        throw new ApiError(403, "FORBIDDEN", "CSRF token not found in request");
      }
      // The security middleware runs before routing: a failed login is slow on every path.
      const { caller, delayMs } = identify(world, req.headers);
      if (delayMs > 0) await delayAtLeast(delayMs);
      if (match.kind === "none") throw new ApiError(404, "NOT_FOUND", `path ${url.pathname} was not found`);
      if (match.kind === "method") {
        throw new ApiError(
          405,
          "METHOD_NOT_ALLOWED",
          `method ${method} is not allowed, but [${match.allowed.join(",")}] are`,
        );
      }
      const bound = bind(match.route, {
        params: match.params,
        query: url.searchParams,
        headers: req.headers,
        body,
        anonymous: caller.kind === "anonymous",
        version: world.version,
      });
      const ctx: Ctx = {
        world,
        caller,
        op,
        method: method as Method,
        url,
        requestId,
        rawQuery: url.searchParams,
        headers: req.headers,
        ...bound,
      };
      const r: Reply = await match.route.handle(ctx);
      status = r.status;
      reply = render(r);
    } catch (e) {
      if (e instanceof ApiError) {
        const eb = errorBody(e);
        status = eb.status;
        reply = { body: eb.body, headers: { "content-type": "application/json; charset=utf-8" } };
      } else if (e instanceof BareError) {
        status = e.status;
        reply = {};
      } else {
        process.stderr.write(`emulator: ${op} failed: ${(e as Error).stack ?? String(e)}\n`);
        status = 500;
        reply = {
          body: envelope("UNKNOWN", "internal server error"),
          headers: { "content-type": "application/json; charset=utf-8" },
        };
      }
    }
    if (fault.failure?.afterHandler) {
      if (fault.failure.drop) return drop();
      if (fault.failure.bodyBytes !== undefined) return oversized(fault.failure.bodyBytes);
      return send(...failureReply(fault.failure));
    }
    send(status, reply);
  }

  async function serveControl(url: URL, method: string, body: Buffer, res: ServerResponse): Promise<void> {
    const [area, name] = url.pathname.slice(CONTROL_PREFIX.length + 1).split("/");
    res.setHeader("content-type", "application/json");
    if (method !== "POST" || !area || !name) {
      res.writeHead(404).end(JSON.stringify({ error: "use POST /_emulator/<area>/<method>" }));
      return;
    }
    try {
      const args = body.length ? (JSON.parse(body.toString("utf8")) as unknown[]) : [];
      const result = await callControl(control, area, name, Array.isArray(args) ? args : [args]);
      res.writeHead(200).end(JSON.stringify({ result: result ?? null }));
    } catch (e) {
      res.writeHead(400).end(JSON.stringify({ error: (e as Error).message }));
    }
  }

  const ticker = (o.tickMs ?? 100) > 0 ? setInterval(() => world.clock.tick(), o.tickMs ?? 100) : undefined;
  ticker?.unref();

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 0, o.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.host && o.host !== "0.0.0.0" ? o.host : "127.0.0.1";
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    adminUsername: "admin",
    adminPassword,
    harborVersion: world.version.name,
    world,
    control,
    counters,
    close: () => closeServer(server, ticker),
  };
}

function failureReply(f: {
  status?: number;
  message?: string;
  retryAfterSeconds?: number;
}): [number, { body: string; headers: Record<string, string> }] {
  const status = f.status ?? 500;
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
  if (status === 429) {
    headers["retry-after"] = String(f.retryAfterSeconds ?? 1);
    return [status, { body: envelope("TOO_MANY_REQUEST", "too many requests"), headers }];
  }
  const message = f.message ?? "injected fault";
  return [status, { body: errorBody(new ApiError(status, "UNKNOWN", message)).body, headers }];
}

function render(r: Reply): { body?: string; headers?: Record<string, string> } {
  const headers = { ...r.headers };
  if (r.text !== undefined) return { body: r.text, headers };
  if (r.json !== undefined) {
    headers["content-type"] ??= "application/json";
    return { body: JSON.stringify(r.json), headers };
  }
  return { headers };
}

function respond(
  res: ServerResponse,
  status: number,
  requestId: string,
  reply: { body?: string; headers?: Record<string, string> },
  slowBodyMs: number,
): void {
  res.setHeader("x-request-id", requestId);
  // Harbor hands out a session cookie on API calls; a client that sends it back trips CSRF.
  res.setHeader("set-cookie", `sid=${randomBytes(16).toString("hex")}; Path=/; HttpOnly`);
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  res.writeHead(status);
  if (slowBodyMs > 0) {
    res.flushHeaders();
    setTimeout(() => res.end(reply.body), slowBodyMs);
  } else res.end(reply.body);
}

/**
 * 200 with `bytes` of JSON whitespace in chunks, as fast as the client reads, without Content-Length;
 * it stops when the client goes away, so an abandoned body costs nothing.
 */
function streamBody(res: ServerResponse, requestId: string, bytes: number): void {
  res.setHeader("x-request-id", requestId);
  res.setHeader("content-type", "application/json");
  res.writeHead(200);
  const chunk = Buffer.alloc(64 * 1024, " ");
  let left = bytes;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, chunk.length);
      left -= n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function headerText(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Sleeps until `ms` have passed by performance.now(), as Go's time.Sleep does: a timer may fire up
 * to a millisecond early by that clock, and a failed login must not be answered before its lock
 * (measured by performance.now()) has ended.
 */
async function delayAtLeast(ms: number): Promise<void> {
  const end = performance.now() + ms;
  for (let left = ms; left > 0; left = end - performance.now()) await delay(Math.ceil(left));
}

function closeServer(server: Server, ticker: NodeJS.Timeout | undefined): Promise<void> {
  if (ticker) clearInterval(ticker);
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
