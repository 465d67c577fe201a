// Every failure of a Harbor call surfaces as one HarborError. Callers decide by `kind` (or the
// `retryable` shortcut), never by parsing messages. Messages carry the operation, the HTTP status,
// Harbor's own error code and text, and the request id; never a credential or a request body.

export type HarborErrorKind =
  | "network" // connection refused/reset, DNS, TLS: retryable
  | "timeout" // the per-call deadline passed: retryable
  | "rateLimited" // 429: retryable, honour retryAfterMs
  | "server" // 5xx: retryable
  | "conflict" // 409
  | "precondition" // 412
  | "notFound" // 404
  | "invalid" // 400 and 422: the request itself is wrong; retrying it cannot help
  | "unauthorized" // 401: bad credentials
  | "forbidden" // 403: the credentials lack a permission
  | "invalidResponse" // 2xx whose body does not fit the expected model
  | "responseTooLarge" // 2xx body (or a listing's pages together) over the call's size limit, or with
  //                      more JSON objects and arrays than are parsed from one answer
  | "aborted" // the caller's AbortSignal fired
  | "unexpected"; // any other status

const RETRYABLE: ReadonlySet<HarborErrorKind> = new Set(["network", "timeout", "rateLimited", "server"]);

export interface HarborErrorDetails {
  operation: string;
  kind: HarborErrorKind;
  status?: number;
  /** Harbor's error code, e.g. CONFLICT, UNPROCESSABLE_ENTITY. */
  code?: string;
  /** Harbor's error message, as sent. */
  harborMessage?: string;
  requestId: string;
  retryAfterMs?: number;
  /** responseTooLarge: the limit that was passed, and the size the answer announced, if it did. */
  limitBytes?: number;
  declaredBytes?: number;
  /** responseTooLarge: the most JSON objects and arrays parsed from one answer, when that was passed. */
  limitObjects?: number;
  cause?: unknown;
}

export class HarborError extends Error {
  override readonly name = "HarborError";
  readonly operation: string;
  readonly kind: HarborErrorKind;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly harborMessage: string | undefined;
  readonly requestId: string;
  readonly retryAfterMs: number | undefined;
  readonly limitBytes: number | undefined;
  readonly declaredBytes: number | undefined;
  readonly limitObjects: number | undefined;

  constructor(d: HarborErrorDetails, message: string = describe(d)) {
    super(message, d.cause === undefined ? undefined : { cause: d.cause });
    this.operation = d.operation;
    this.kind = d.kind;
    this.status = d.status;
    this.code = d.code;
    this.harborMessage = d.harborMessage;
    this.requestId = d.requestId;
    this.retryAfterMs = d.retryAfterMs;
    this.limitBytes = d.limitBytes;
    this.declaredBytes = d.declaredBytes;
    this.limitObjects = d.limitObjects;
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }

  /** JSON form for structured logs: the same fields, no cause chain. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      operation: this.operation,
      kind: this.kind,
      status: this.status,
      code: this.code,
      requestId: this.requestId,
      limitBytes: this.limitBytes,
      limitObjects: this.limitObjects,
    };
  }
}

export function isHarborError(e: unknown, kind?: HarborErrorKind): e is HarborError {
  return e instanceof HarborError && (kind === undefined || e.kind === kind);
}

export function kindForStatus(status: number): HarborErrorKind {
  if (status === 400 || status === 422) return "invalid";
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "notFound";
  if (status === 409) return "conflict";
  if (status === 412) return "precondition";
  if (status === 429) return "rateLimited";
  if (status >= 500) return "server";
  return "unexpected";
}

function describe(d: HarborErrorDetails): string {
  const what =
    d.status === undefined
      ? d.kind
      : `HTTP ${d.status}${d.code ? ` ${d.code}` : ""}${d.harborMessage ? `: ${d.harborMessage}` : ""}`;
  return `Harbor ${d.operation} failed: ${what} (request id ${d.requestId})`;
}

/** A byte count as people read it: 512 B, 64 KiB, 4 MiB, 1.5 GiB. */
export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, "");
  return `${shown} ${units[unit]}`;
}

/**
 * Reads Harbor's error envelope `{"errors":[{"code","message"}]}`. Some handlers answer with an
 * empty body (e.g. user-group create without a name); then only the status is known.
 */
export function parseErrorEnvelope(body: string): { code?: string; message?: string } {
  if (body.trim() === "") return {};
  try {
    const parsed = JSON.parse(body) as { errors?: Array<{ code?: unknown; message?: unknown }> };
    const first = parsed.errors?.[0];
    if (!first) return {};
    return {
      ...(typeof first.code === "string" ? { code: first.code } : {}),
      ...(typeof first.message === "string" ? { message: first.message } : {}),
    };
  } catch {
    return {};
  }
}
