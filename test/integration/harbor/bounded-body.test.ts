// Bounded input: no answer makes the client hold more than its limit. A loopback server plays a
// Harbor (or a proxy in front of it) that answers with too much: a Content-Length above the limit,
// a body that never ends, error pages, pages that never stop.
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, test } from "vitest";
import { describeFailure } from "../../../src/controllers/connection/mapping.ts";
import { harborErrors } from "../../../src/controllers/shared/errors.ts";
import { HarborClient, type HarborClientOptions } from "../../../src/harbor/client.ts";
import { EndpointRegistry } from "../../../src/harbor/endpoints.ts";
import type { HarborError } from "../../../src/harbor/errors.ts";
import {
  DEFAULT_RESPONSE_LIMIT,
  LOG_RESPONSE_LIMIT,
  MAX_JSON_OBJECTS,
} from "../../../src/harbor/transport.ts";
import { harborErrorOf } from "../../env/harbor.ts";
import { listenOnLoopback, streamBody } from "../../env/http.ts";

const MiB = 1024 * 1024;
const LABEL = JSON.stringify({ id: 1, name: "l", scope: "g" });

interface Loopback {
  url: string;
  /** Requests received. */
  requests: number;
  /** Body bytes written to responses that ended early or late: what the client made us send. */
  sent: number;
  /** Resolves when a response's connection closes before its body was finished. */
  aborted: Promise<void>;
}

const open: Array<() => Promise<void>> = [];
const clients: HarborClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(open.splice(0).map((close) => close()));
});

async function loopback(
  handler: (req: IncomingMessage, res: ServerResponse, s: Loopback) => void,
): Promise<Loopback> {
  let onAbort = () => {};
  const state: Loopback = {
    url: "",
    requests: 0,
    sent: 0,
    aborted: new Promise<void>((r) => {
      onAbort = r;
    }),
  };
  const server = await listenOnLoopback((req, res) => {
    state.requests++;
    res.on("close", () => {
      if (!res.writableFinished) onAbort();
    });
    handler(req, res, state);
  });
  state.url = server.url;
  open.push(server.close);
  return state;
}

function client(url: string, o: Partial<HarborClientOptions> = {}): HarborClient {
  const c = new HarborClient({
    url,
    username: "admin",
    password: "not-a-real-password",
    endpoints: new EndpointRegistry(),
    maxRetries: 0,
    ...o,
  });
  clients.push(c);
  return c;
}

/** Writes `bytes` of `fill` (or forever when Infinity), honouring backpressure, until the client leaves. */
function stream(res: ServerResponse, s: Loopback, bytes: number, fill = " "): void {
  streamBody(res, Buffer.alloc(64 * 1024, fill), bytes, {
    onWrite: (n) => {
      s.sent += n;
    },
  });
}

/** A JSON body of exactly `bytes` bytes: `value` padded with spaces. */
function padded(value: string, bytes: number): string {
  return value + " ".repeat(bytes - Buffer.byteLength(value));
}

describe("a 2xx body over the limit", () => {
  test("is refused from its Content-Length alone, without waiting for the body", async () => {
    const s = await loopback((_req, res) => {
      // Headers only: a client that waits for the body to judge it would hang here.
      res.writeHead(200, { "content-type": "application/json", "content-length": String(64 * MiB) });
      res.flushHeaders();
    });
    const err = (await harborErrorOf(client(s.url).system.getSystemInfo())) as HarborError;
    expect(err).toMatchObject({
      kind: "responseTooLarge",
      operation: "getSystemInfo",
      limitBytes: DEFAULT_RESPONSE_LIMIT,
      declaredBytes: 64 * MiB,
      retryable: false,
    });
    expect(err.message).toContain("getSystemInfo");
    expect(err.message).toContain("64 MiB");
    expect(err.message).toContain("4 MiB");
    await s.aborted; // the connection was closed, not left to deliver 64 MiB
  });

  test("is abandoned as soon as the streamed bytes pass the limit, and the connection closes", async () => {
    const s = await loopback((_req, res, st) => {
      res.writeHead(200, { "content-type": "application/json" }); // chunked, no length
      stream(res, st, Number.POSITIVE_INFINITY);
    });
    const c = client(s.url, { maxResponseBytes: 1 * MiB });
    const err = (await harborErrorOf(c.labels.get(1))) as HarborError;
    expect(err).toMatchObject({ kind: "responseTooLarge", operation: "GetLabelByID", limitBytes: MiB });
    expect(err.declaredBytes).toBeUndefined();
    expect(err.message).toContain("1 MiB");
    await s.aborted;
    // What the server got out before the close: the limit plus what socket buffers held.
    expect(s.sent).toBeLessThan(16 * MiB);
  });

  test("is not retried, even for an idempotent call", async () => {
    const s = await loopback((_req, res, st) => {
      res.writeHead(200, { "content-type": "application/json" });
      stream(res, st, 2 * MiB);
    });
    const c = client(s.url, { maxResponseBytes: MiB, maxRetries: 3 });
    await expect(c.labels.get(1)).rejects.toMatchObject({ kind: "responseTooLarge" });
    expect(s.requests).toBe(1);
  });

  test("becomes the reason ResponseTooLarge on a resource and on a connection", async () => {
    const s = await loopback((_req, res) => {
      res.writeHead(200, { "content-length": String(64 * MiB) });
      res.flushHeaders();
    });
    const err = (await harborErrorOf(client(s.url).system.getSystemInfo())) as HarborError;
    const onResource = harborErrors.classify(err);
    expect(onResource).toMatchObject({ reason: "ResponseTooLarge", terminal: false });
    expect(onResource?.message).toBe(
      "the answer to getSystemInfo from Harbor is larger than the 4 MiB the operator reads (it announced 64 MiB); check that the connection's URL points at Harbor. Retrying",
    );
    const host = new URL(s.url).host;
    expect(describeFailure(err, { url: s.url })).toEqual({
      reason: "ResponseTooLarge",
      message: `the answer to getSystemInfo from Harbor at ${host} is larger than the 4 MiB the operator reads (it announced 64 MiB); check that spec.url points at Harbor`,
    });
    expect(onResource?.message).not.toContain(err.requestId); // stable across retries
  });
});

describe("a body within the limit", () => {
  test("exactly at the limit is read, with and without Content-Length; one byte more is not", async () => {
    const limit = 256 * 1024;
    for (const withLength of [true, false]) {
      for (const size of [limit, limit + 1]) {
        const body = padded(LABEL, size);
        const s = await loopback((_req, res) => {
          res.writeHead(200, {
            "content-type": "application/json",
            ...(withLength ? { "content-length": String(size) } : {}),
          });
          // In pieces, so the count runs over several chunks.
          const half = Math.floor(size / 2);
          res.write(body.slice(0, half));
          setTimeout(() => res.end(body.slice(half)), 10);
        });
        const got = harborErrorOf(client(s.url, { maxResponseBytes: limit }).labels.get(1));
        if (size === limit) expect(await got).toBeUndefined();
        else expect(await got).toMatchObject({ kind: "responseTooLarge", limitBytes: limit });
      }
    }
  });

  test("a multi-byte character split across chunks is decoded whole", async () => {
    const body = Buffer.from(JSON.stringify({ id: 1, name: "größe-ünïcödé-✓", scope: "g" }));
    const s = await loopback((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const cut = body.indexOf(Buffer.from("✓")) + 1; // inside the three bytes of ✓
      res.write(body.subarray(0, cut));
      setTimeout(() => res.end(body.subarray(cut)), 10);
    });
    await expect(client(s.url).labels.get(1)).resolves.toMatchObject({ name: "größe-ünïcödé-✓" });
  });

  test("a HEAD whose Content-Length describes a large GET is fine (no body comes)", async () => {
    const s = await loopback((_req, res) => {
      res.writeHead(200, { "content-length": String(64 * MiB) });
      res.end();
    });
    await expect(client(s.url, { maxResponseBytes: 1024 }).projects.exists("p")).resolves.toBe(true);
  });
});

describe("what parsing makes of a body", () => {
  /** A server answering every call with `body` and its Content-Length. */
  const answering = (body: string) =>
    loopback((_req, res) => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
      });
      res.end(body);
    });
  const emptyObjects = (n: number) => `[${Array.from({ length: n }, () => "{}").join(",")}]`;

  test("a body under the byte limit but full of tiny objects is refused before it is parsed", async () => {
    const body = emptyObjects(1_000_000); // ~3 MiB; parsed and validated it would take ~130 MiB
    expect(Buffer.byteLength(body)).toBeLessThan(DEFAULT_RESPONSE_LIMIT);
    const s = await answering(body);
    const err = (await harborErrorOf(client(s.url).labels.list({ scope: "g" }))) as HarborError;
    expect(err).toMatchObject({
      kind: "responseTooLarge",
      operation: "ListLabels",
      limitObjects: MAX_JSON_OBJECTS,
      status: 200,
    });
    expect(err.message).toContain(`more than ${MAX_JSON_OBJECTS} JSON objects and arrays`);
    expect(harborErrors.classify(err)?.message).toBe(
      `the answer to ListLabels from Harbor holds more than the ${MAX_JSON_OBJECTS} JSON objects and arrays the operator parses; check that the connection's URL points at Harbor. Retrying`,
    );
  });

  test("up to the limit of objects and arrays is parsed (the outer array counts)", async () => {
    const at = await answering(emptyObjects(MAX_JSON_OBJECTS - 1));
    await expect(client(at.url).labels.list({ scope: "g" })).resolves.toHaveLength(MAX_JSON_OBJECTS - 1);
    const over = await answering(emptyObjects(MAX_JSON_OBJECTS));
    await expect(client(over.url).labels.list({ scope: "g" })).rejects.toMatchObject({
      kind: "responseTooLarge",
      limitObjects: MAX_JSON_OBJECTS,
    });
  });

  test("brackets inside strings, escaped quotes included, are text and do not count", async () => {
    const name = `say \\"${"{[".repeat(3 * MAX_JSON_OBJECTS)}\\" twice`; // \" in JSON: a quote inside the string
    const s = await answering(`{"id":1,"name":"${name}","scope":"g"}`);
    const label = await client(s.url).labels.get(1);
    expect(label.name?.length).toBe(6 * MAX_JSON_OBJECTS + 12);
  });
});

describe("per-operation limits", () => {
  test("job logs may be larger than the default; other calls may not", async () => {
    expect(LOG_RESPONSE_LIMIT).toBeGreaterThan(DEFAULT_RESPONSE_LIMIT);
    const size = DEFAULT_RESPONSE_LIMIT + MiB;
    const s = await loopback((req, res, st) => {
      const isLog = /\/log$/.test(req.url ?? "");
      res.writeHead(200, { "content-type": isLog ? "text/plain" : "application/json" });
      stream(res, st, size, isLog ? "x" : " ");
    });
    const c = client(s.url);
    const log = await c.gc.getLog(7);
    expect(log.length).toBe(size);
    expect(await harborErrorOf(c.replication.getTaskLog(1, 2))).toBeUndefined();
    await expect(c.gc.get(7)).rejects.toMatchObject({
      kind: "responseTooLarge",
      operation: "getGC",
      limitBytes: DEFAULT_RESPONSE_LIMIT,
    });
  });

  test("the client's default can be set, and a log's own limit still holds", async () => {
    const s = await loopback((_req, res, st) => {
      res.writeHead(200, { "content-type": "text/plain" });
      stream(res, st, 64 * 1024, "x");
    });
    const c = client(s.url, { maxResponseBytes: 1024 });
    await expect(c.gc.get(7)).rejects.toMatchObject({ kind: "responseTooLarge", limitBytes: 1024 });
    await expect(c.gc.getLog(7)).resolves.toHaveLength(64 * 1024);
  });
});

describe("error answers", () => {
  test("a huge error body is read no further; the error keeps what its status says", async () => {
    const s = await loopback((req, res, st) => {
      if (req.url?.includes("/users/current")) {
        res.writeHead(401, { "content-length": String(64 * MiB) });
        res.flushHeaders();
        return;
      }
      res.writeHead(503, { "content-type": "text/html" }); // a proxy's endless error page
      stream(res, st, Number.POSITIVE_INFINITY, "<");
    });
    const c = client(s.url);
    const unavailable = (await harborErrorOf(c.system.getSystemInfo())) as HarborError;
    expect(unavailable).toMatchObject({ kind: "server", status: 503, retryable: true });
    expect(unavailable.harborMessage).toBeUndefined();
    await s.aborted;
    expect(s.sent).toBeLessThan(16 * MiB);
    await expect(c.system.getCurrentUser()).rejects.toMatchObject({ kind: "unauthorized", status: 401 });
  });

  test("a small error envelope still carries Harbor's message", async () => {
    const s = await loopback((_req, res) => {
      res.writeHead(409, { "content-type": "application/json" });
      res.end(JSON.stringify({ errors: [{ code: "CONFLICT", message: "label l already exists" }] }));
    });
    await expect(client(s.url).labels.create({ name: "l", scope: "g" })).rejects.toMatchObject({
      kind: "conflict",
      harborMessage: "label l already exists",
    });
  });
});

describe("listings", () => {
  test("pages that never stop are cut off once they pass the listing limit together", async () => {
    const page = `[${Array.from({ length: 100 }, () => LABEL).join(",")}]`;
    const s = await loopback((_req, res) => {
      // Every page full, a total that never ends: a client without a bound would page forever.
      res.writeHead(200, { "content-type": "application/json", "x-total-count": "1000000000" });
      res.end(page);
    });
    const limit = 20 * Buffer.byteLength(page) + 1;
    const c = client(s.url, { maxListingBytes: limit });
    const err = (await harborErrorOf(c.labels.list({ scope: "g" }))) as HarborError;
    expect(err).toMatchObject({ kind: "responseTooLarge", operation: "ListLabels", limitBytes: limit });
    expect(err.message).toContain("page 21");
    expect(s.requests).toBe(21);
  });

  test("a listing under the limit is read whole", async () => {
    const s = await loopback((req, res) => {
      const p = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page"));
      res.writeHead(200, { "content-type": "application/json", "x-total-count": "250" });
      res.end(`[${Array.from({ length: p < 3 ? 100 : 50 }, () => LABEL).join(",")}]`);
    });
    await expect(client(s.url).labels.list({ scope: "g" })).resolves.toHaveLength(250);
  });
});
