// The one way this project talks HTTP to Harbor. Every call:
// - authenticates with basic auth and never stores or sends cookies (Harbor's CSRF check fires on
//   any request that carries its `sid` cookie);
// - carries a fresh X-Request-Id that also appears in its log line and in any error;
// - waits for the endpoint's rate limiter and concurrency cap, shared by every client of one Harbor
//   base URL, and runs under a per-call deadline combined with the caller's AbortSignal;
// - is retried with exponential backoff and full jitter only where a retry cannot do harm:
//   idempotent methods on network errors, timeouts, 429 and 5xx; any method on 429 and on a refused
//   connection, both of which mean Harbor never processed the request. Retry-After is honoured.
//   A 401 for a user (not a robot) is retried once, after Harbor's login freeze: a wrong password
//   sent by anyone for the same user makes Harbor refuse even the right one for 1.5 s;
// - never sends an id Harbor cannot hold (its ids are int4): such a call fails before it leaves;
// - sends nothing once its client is closed (a replaced client must not keep using a stale password);
// - reads at most a bounded number of bytes of the answer: a Content-Length above the call's limit
//   is refused unread, and a body that streams past it is abandoned at that point (the connection
//   closes), so no server can make the operator hold more than the limit. The same holds for the
//   pages of one listing together, and for what parsing makes of a body: one full of tiny objects
//   (`[{},{},…]`) would grow forty-fold on the heap, so the objects and arrays are counted first.
// The mechanisms it uses are files of their own: the pool, rate limiter and cap per Harbor
// (endpoints.ts), the bounded reading (bounded-body.ts), the URL with its id check
// (request-url.ts) and the scrubbing of secrets from what is reported (scrub.ts).
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { z } from "zod";
import { logScope } from "../log.ts";
import { headerValue, jsonObjects, readLimited } from "./bounded-body.ts";
import { baseUrl, defaultEndpoints, type Endpoint, type EndpointRegistry } from "./endpoints.ts";
import {
  formatBytes,
  HarborError,
  type HarborErrorKind,
  kindForStatus,
  parseErrorEnvelope,
} from "./errors.ts";
import { sleep } from "./limits.ts";
import { idOutOfRange, MAX_HARBOR_ID, queryString } from "./request-url.ts";
import { scrub, sensitiveValues } from "./scrub.ts";

export interface HarborConnectionSettings {
  /** Harbor's external URL, e.g. https://harbor.example.com (a path prefix is kept). */
  url: string;
  username: string;
  password: string;
  /** PEM bundle of CAs to trust besides Node's default ones (see trustedCertificates). */
  caBundle?: string;
  /** Trust caBundle alone, not Node's default CAs besides it. */
  caBundleOnly?: boolean;
  /** Skip TLS verification. Explicit, off by default, for test installations only. */
  insecureSkipTLSVerify?: boolean;
  /** Shared by every client of the same base URL. Default 20 requests/s, burst 40. */
  requestsPerSecond?: number;
  burst?: number;
  /** Requests in flight per base URL. Default 8. */
  maxConcurrency?: number;
  /** Deadline per attempt. Default 30 s. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** Largest answer body read, for calls without a limit of their own. Default 4 MiB. */
  maxResponseBytes?: number;
  /** Largest total of the pages of one listing. Default 32 MiB. */
  maxListingBytes?: number;
}

export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
export type QueryValue = string | number | boolean | readonly (string | number)[];

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface HarborRequest extends CallOptions {
  /** Harbor's operationId; names the call in logs, metrics and errors. */
  operation: string;
  method: HttpMethod;
  /** Path below /api/v2.0, already encoded (see `path`). */
  path: string;
  query?: Record<string, QueryValue | undefined>;
  headers?: Record<string, string>;
  body?: unknown;
  /** Overrides the method's default (GET/HEAD/PUT/DELETE are idempotent; POST/PATCH are not). */
  idempotent?: boolean;
  /** Non-2xx statuses whose body is an answer, not an error (LDAP import's 404 failure list). */
  acceptStatus?: readonly number[];
  /** This operation's body limit, where Harbor legitimately answers with more (job logs). */
  maxResponseBytes?: number;
  /** Send no credentials (for what Harbor answers anyone, e.g. systeminfo). */
  anonymous?: boolean;
}

export interface HarborResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  requestId: string;
}

/** Reported once per attempt, for metrics. `status` is absent when no response arrived. */
export interface HarborCallEvent {
  operation: string;
  method: HttpMethod;
  status?: number;
  kind?: HarborErrorKind;
  durationMs: number;
  attempt: number;
}

export interface TransportOptions extends HarborConnectionSettings {
  logger?: Logger;
  onCall?: (event: HarborCallEvent) => void;
  /** Where the shared per-URL pools live; defaults to the process-wide registry. */
  endpoints?: EndpointRegistry;
  /** Jitter source, replaceable in tests. */
  random?: () => number;
}

const API_PREFIX = "/api/v2.0";
const BACKOFF_BASE_MS = 200;
const BACKOFF_CAP_MS = 10_000;
/** A Retry-After longer than this is not waited out in-line; the error goes to the caller's requeue. */
const MAX_INLINE_RETRY_AFTER_MS = 30_000;

const MiB = 1024 * 1024;
/**
 * Body limits (see src/harbor/README.md, "Body limits"). Harbor's largest regular answers are
 * pages of at most 100 objects, well under 1 MiB; job logs are text that grows with the job.
 */
export const DEFAULT_RESPONSE_LIMIT = 4 * MiB;
export const LOG_RESPONSE_LIMIT = 16 * MiB;
export const DEFAULT_LISTING_LIMIT = 32 * MiB;
/**
 * An error answer only matters for Harbor's small envelope; a longer one (a proxy's HTML page) is
 * read no further and the error keeps what its status says.
 */
const ERROR_BODY_LIMIT = 16 * 1024;
/**
 * JSON objects and arrays parsed from one answer. Harbor's largest regular answers hold a few
 * thousand (a page of 100 replication policies); 4 MiB of `{},` would hold 1.4 million, about
 * 180 MiB once parsed and validated.
 */
export const MAX_JSON_OBJECTS = 50_000;

/**
 * How long Harbor refuses a user after a failed password login (its frozenTime), and how long the
 * client waits before it tries a 401 once more.
 */
export const LOGIN_FREEZE_MS = 1500;
const UNAUTHORIZED_RETRY_DELAY_MS = LOGIN_FREEZE_MS + 100;
/** Harbor's default robot name prefix: robots are checked without the login freeze. */
const ROBOT_PREFIX = "robot$";

export class HarborTransport {
  readonly #endpoint: Endpoint;
  readonly #release: () => Promise<void>;
  readonly #apiBase: string;
  readonly #authorization: string;
  readonly #sensitive: string[];
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #maxResponseBytes: number;
  readonly #maxListingBytes: number;
  readonly #logger: Logger | undefined;
  readonly #onCall: ((e: HarborCallEvent) => void) | undefined;
  readonly #random: () => number;
  /** A robot's 401 is never Harbor's login freeze. */
  readonly #robot: boolean;
  #closed = false;

  constructor(o: TransportOptions) {
    const base = baseUrl(o.url);
    const { endpoint, release } = (o.endpoints ?? defaultEndpoints).acquire(o);
    this.#endpoint = endpoint;
    this.#release = release;
    this.#apiBase = `${new URL(base).pathname.replace(/\/+$/, "")}${API_PREFIX}`;
    this.#authorization = `Basic ${Buffer.from(`${o.username}:${o.password}`).toString("base64")}`;
    this.#sensitive = [o.password, this.#authorization].filter((s) => s.length >= 4);
    this.#timeoutMs = o.timeoutMs ?? 30_000;
    this.#maxRetries = o.maxRetries ?? 3;
    this.#maxResponseBytes = o.maxResponseBytes ?? DEFAULT_RESPONSE_LIMIT;
    this.#maxListingBytes = o.maxListingBytes ?? DEFAULT_LISTING_LIMIT;
    this.#logger = o.logger;
    this.#onCall = o.onCall;
    this.#random = o.random ?? Math.random;
    this.#robot = o.username.startsWith(ROBOT_PREFIX);
  }

  /**
   * Releases this client's share of the endpoint; the pool closes with its last client. From now
   * on the client sends nothing (requests already on the wire finish).
   */
  close(): Promise<void> {
    this.#closed = true;
    return this.#release();
  }

  /** Sends the request, retrying as allowed; resolves for 2xx, throws HarborError otherwise. */
  async send(req: HarborRequest): Promise<HarborResponse> {
    const idempotent = req.idempotent ?? (req.method !== "POST" && req.method !== "PATCH");
    const secrets = [...this.#sensitive, ...sensitiveValues(req.body)];
    const outOfRange = idOutOfRange(req);
    if (outOfRange !== undefined)
      throw this.#refused(req, `id ${outOfRange} is beyond Harbor's ids (at most ${MAX_HARBOR_ID})`);
    let unauthorizedRetried = false;
    for (let attempt = 1; ; attempt++) {
      if (this.#closed) throw this.#closedError(req);
      const requestId = randomUUID();
      let error: HarborError;
      try {
        const res = await this.#attempt(req, requestId, attempt, secrets);
        if ((res.status >= 200 && res.status < 300) || req.acceptStatus?.includes(res.status)) return res;
        error = this.#statusError(req, res, secrets);
      } catch (e) {
        if (!(e instanceof HarborError)) throw e;
        error = e;
      }
      // Harbor refuses the right password for 1.5 s after anyone sent a wrong one for the same user;
      // it checks credentials before anything else, so any method may go again, once.
      const frozen =
        error.kind === "unauthorized" &&
        !this.#robot &&
        !unauthorizedRetried &&
        attempt <= this.#maxRetries &&
        !req.signal?.aborted;
      const retryAllowed =
        frozen ||
        (error.retryable &&
          (idempotent || error.kind === "rateLimited" || refusedConnection(error)) &&
          attempt <= this.#maxRetries &&
          (error.retryAfterMs ?? 0) <= MAX_INLINE_RETRY_AFTER_MS &&
          !req.signal?.aborted);
      if (!retryAllowed) throw error;
      if (frozen) unauthorizedRetried = true;
      const delay = frozen
        ? UNAUTHORIZED_RETRY_DELAY_MS
        : Math.max(error.retryAfterMs ?? 0, this.#backoff(attempt));
      this.#logger?.warn(
        {
          reconcileId: logScope.getStore()?.reconcileId,
          operation: req.operation,
          requestId,
          attempt,
          kind: error.kind,
          status: error.status,
          delayMs: Math.round(delay),
        },
        "Harbor call failed; retrying",
      );
      try {
        await sleep(delay, req.signal);
      } catch (e) {
        throw this.#transportError(req, e, requestId, secrets, "aborted");
      }
    }
  }

  /** GET/PUT/... whose 2xx body is JSON of the given model. */
  async json<T extends z.ZodType>(req: HarborRequest, schema: T): Promise<z.output<T>> {
    const res = await this.send(req);
    return this.#parse(req, res, schema, res.body);
  }

  /** Like `json`, but an empty 2xx body (Harbor's "nothing here") yields undefined. */
  async jsonOrEmpty<T extends z.ZodType>(req: HarborRequest, schema: T): Promise<z.output<T> | undefined> {
    const res = await this.send(req);
    if (res.body.trim() === "") return undefined;
    return this.#parse(req, res, schema, res.body);
  }

  /** text/plain bodies (task and GC logs). */
  async text(req: HarborRequest): Promise<string> {
    return (await this.send(req)).body;
  }

  /** Calls whose success carries no body. */
  async noContent(req: HarborRequest): Promise<void> {
    await this.send(req);
  }

  /** 201 Created: the new resource's id, read from the last segment of the Location path. */
  async created(req: HarborRequest): Promise<string> {
    const res = await this.send(req);
    return this.#locationId(req, res);
  }

  /** 201 Created with a JSON body (robot creation): the body plus the Location id. */
  async createdJson<T extends z.ZodType>(
    req: HarborRequest,
    schema: T,
  ): Promise<{ id: string; body: z.output<T>; requestId: string }> {
    const res = await this.send(req);
    return {
      id: this.#locationId(req, res),
      body: this.#parse(req, res, schema, res.body),
      requestId: res.requestId,
    };
  }

  /**
   * Every item of a paged list, 100 per page, or only the first `limit` items (in the request's
   * sort order). The client counts pages itself and uses Link and X-Total-Count only to know when to
   * stop: Harbor writes Link with the query un-escaped, so following it verbatim would mangle `q`.
   */
  async listAll<T extends z.ZodType>(
    req: HarborRequest,
    item: T,
    limit?: number,
  ): Promise<Array<z.output<T>>> {
    const out: Array<z.output<T>> = [];
    const pageSize = limit === undefined ? 100 : Math.max(1, Math.min(100, limit));
    for await (const page of this.pages(req, item, pageSize)) {
      out.push(...page);
      if (limit !== undefined && out.length >= limit) return out.slice(0, limit);
    }
    return out;
  }

  async *pages<T extends z.ZodType>(
    req: HarborRequest,
    item: T,
    pageSize = 100,
  ): AsyncGenerator<Array<z.output<T>>> {
    const list = (item as z.ZodType).array();
    // Each page is bounded by itself; the pages together are bounded too, or a server that never
    // stops paging would fill the heap one bounded page at a time.
    let bytes = 0;
    for (let page = 1; ; page++) {
      const res = await this.send({ ...req, query: { ...req.query, page, page_size: pageSize } });
      bytes += Buffer.byteLength(res.body);
      if (bytes > this.#maxListingBytes) throw this.#listingTooLarge(req, res, page);
      const items = this.#parse(req, res, list, res.body) as Array<z.output<T>>;
      yield items;
      const total = Number(headerValue(res.headers["x-total-count"]));
      const hasNext = /rel="next"/.test(headerValue(res.headers.link) ?? "");
      const more = Number.isFinite(total) ? page * pageSize < total : hasNext;
      if (!more || items.length === 0) return;
    }
  }

  async #attempt(
    req: HarborRequest,
    requestId: string,
    attempt: number,
    secrets: string[],
  ): Promise<HarborResponse> {
    // A timer cleared when the attempt ends (AbortSignal.timeout would keep the attempt's objects
    // alive until it fires, which adds up under load).
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException("the call's deadline passed", "TimeoutError")),
      req.timeoutMs ?? this.#timeoutMs,
    );
    const timeout = deadline.signal;
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const started = performance.now();
    let status: number | undefined;
    let kind: HarborErrorKind | undefined;
    let release = () => {};
    try {
      await this.#endpoint.bucket.take(signal);
      release = await this.#endpoint.slots.acquire(signal);
      const headers: Record<string, string> = {
        ...(req.anonymous ? {} : { authorization: this.#authorization }),
        accept: "application/json, text/plain",
        "x-request-id": requestId,
        "user-agent": "harbor-config-operator",
        ...req.headers,
      };
      let body: string | undefined;
      if (req.body !== undefined) {
        body = JSON.stringify(req.body);
        headers["content-type"] = "application/json";
      }
      const res = await this.#endpoint.pool.request({
        path: this.#apiBase + req.path + queryString(req.query),
        method: req.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal,
      });
      status = res.statusCode;
      const failed = status >= 400 && !req.acceptStatus?.includes(status);
      const limit = failed ? ERROR_BODY_LIMIT : (req.maxResponseBytes ?? this.#maxResponseBytes);
      const read = await readLimited(res, limit, req.method !== "HEAD");
      if (status >= 400) kind = kindForStatus(status);
      if (read.over && !failed) {
        kind = "responseTooLarge";
        throw this.#tooLarge(req, requestId, status, limit, read.declared);
      }
      // An error answer over its limit is judged by its status alone.
      return { status, headers: res.headers, body: read.over ? "" : read.text, requestId };
    } catch (e) {
      if (e instanceof HarborError) throw e;
      kind = req.signal?.aborted ? "aborted" : timeout.aborted ? "timeout" : "network";
      throw this.#transportError(req, e, requestId, secrets, kind);
    } finally {
      clearTimeout(timer);
      release();
      const durationMs = performance.now() - started;
      this.#onCall?.({ operation: req.operation, method: req.method, status, kind, durationMs, attempt });
      this.#logger?.debug(
        {
          reconcileId: logScope.getStore()?.reconcileId,
          operation: req.operation,
          method: req.method,
          path: req.path,
          status,
          requestId,
          attempt,
          durationMs: Math.round(durationMs),
        },
        "Harbor call",
      );
    }
  }

  #statusError(req: HarborRequest, res: HarborResponse, secrets: string[]): HarborError {
    const envelope = parseErrorEnvelope(res.body);
    const retryAfterMs = parseRetryAfter(headerValue(res.headers["retry-after"]));
    return new HarborError({
      operation: req.operation,
      kind: kindForStatus(res.status),
      status: res.status,
      requestId: res.requestId,
      ...(envelope.code ? { code: envelope.code } : {}),
      ...(envelope.message ? { harborMessage: scrub(envelope.message, secrets) } : {}),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }

  /** A call refused before it leaves: Harbor could only fail it. */
  #refused(req: HarborRequest, why: string): HarborError {
    const requestId = randomUUID();
    return new HarborError(
      { operation: req.operation, kind: "invalid", requestId },
      `Harbor ${req.operation} not sent: ${why} (request id ${requestId})`,
    );
  }

  #closedError(req: HarborRequest): HarborError {
    const requestId = randomUUID();
    return new HarborError(
      { operation: req.operation, kind: "aborted", requestId },
      `Harbor ${req.operation} not sent: the client was closed (request id ${requestId})`,
    );
  }

  #transportError(
    req: HarborRequest,
    e: unknown,
    requestId: string,
    secrets: string[],
    kind: HarborErrorKind,
  ): HarborError {
    const code = (e as { code?: unknown })?.code;
    const detail = e instanceof Error ? scrub(e.message, secrets) : String(e);
    return new HarborError(
      { operation: req.operation, kind, requestId, ...(typeof code === "string" ? { code } : {}) },
      `Harbor ${req.operation} failed: ${kind}${detail ? ` (${detail})` : ""} (request id ${requestId})`,
    );
  }

  #tooLarge(
    req: HarborRequest,
    requestId: string,
    status: number,
    limit: number,
    declared: number | undefined,
  ): HarborError {
    const what =
      declared === undefined
        ? `a body longer than its limit of ${formatBytes(limit)}; stopped reading there`
        : `a body of ${formatBytes(declared)} (Content-Length), more than its limit of ${formatBytes(limit)}; not read`;
    return new HarborError(
      {
        operation: req.operation,
        kind: "responseTooLarge",
        status,
        requestId,
        limitBytes: limit,
        ...(declared === undefined ? {} : { declaredBytes: declared }),
      },
      `Harbor ${req.operation} answered with ${what} (request id ${requestId})`,
    );
  }

  #listingTooLarge(req: HarborRequest, res: HarborResponse, page: number): HarborError {
    const limit = this.#maxListingBytes;
    return new HarborError(
      {
        operation: req.operation,
        kind: "responseTooLarge",
        status: res.status,
        requestId: res.requestId,
        limitBytes: limit,
      },
      `Harbor ${req.operation}: the pages of one listing passed the limit of ${formatBytes(limit)} together at page ${page}; stopped reading there (request id ${res.requestId})`,
    );
  }

  #parse<T extends z.ZodType>(req: HarborRequest, res: HarborResponse, schema: T, body: string): z.output<T> {
    // A body too short to hold more than the limit (each takes at least two characters) is not counted.
    if (body.length > 2 * MAX_JSON_OBJECTS && jsonObjects(body, MAX_JSON_OBJECTS) > MAX_JSON_OBJECTS) {
      throw new HarborError(
        {
          operation: req.operation,
          kind: "responseTooLarge",
          status: res.status,
          requestId: res.requestId,
          limitObjects: MAX_JSON_OBJECTS,
        },
        `Harbor ${req.operation} answered with more than ${MAX_JSON_OBJECTS} JSON objects and arrays; not parsed (request id ${res.requestId})`,
      );
    }
    let data: unknown;
    try {
      data = body.trim() === "" ? undefined : JSON.parse(body);
    } catch {
      throw this.#invalidResponse(req, res, "body is not JSON");
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      // Only paths and issue codes: the values may be secrets (e.g. a robot's new secret).
      const where = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.code}`)
        .join("; ");
      throw this.#invalidResponse(req, res, where);
    }
    return parsed.data;
  }

  #invalidResponse(req: HarborRequest, res: HarborResponse, detail: string): HarborError {
    return new HarborError(
      { operation: req.operation, kind: "invalidResponse", status: res.status, requestId: res.requestId },
      `Harbor ${req.operation} returned a response that does not fit its model: ${detail} (request id ${res.requestId})`,
    );
  }

  #locationId(req: HarborRequest, res: HarborResponse): string {
    const location = headerValue(res.headers.location) ?? "";
    const id = decodeURIComponent(location.replace(/\/+$/, "").split("/").pop() ?? "");
    if (id === "") throw this.#invalidResponse(req, res, "201 without a Location header");
    return id;
  }

  #backoff(attempt: number): number {
    const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
    return ceiling / 2 + (this.#random() * ceiling) / 2;
  }
}

function refusedConnection(e: HarborError): boolean {
  return e.kind === "network" && e.code === "ECONNREFUSED";
}

/** Retry-After is either delay-seconds or an HTTP date. */
function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
