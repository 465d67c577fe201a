// Kubernetes API failures, classified once so callers branch on meaning, not on status numbers.

export type KubeErrorKind =
  | "notFound" // 404
  | "conflict" // 409: stale resourceVersion, or AlreadyExists (see `reason`)
  | "gone" // 410: the requested resourceVersion is too old
  | "invalid" // 400, 422: the apiserver rejected the object
  | "unauthorized" // 401
  | "forbidden" // 403: RBAC
  | "server" // 5xx, 429
  | "network"; // no response

export class KubeError extends Error {
  override readonly name = "KubeError";
  readonly kind: KubeErrorKind;
  readonly status: number | undefined;
  /** Status.reason, e.g. AlreadyExists, Conflict, Expired, Invalid. */
  readonly reason: string | undefined;

  constructor(kind: KubeErrorKind, message: string, status?: number, reason?: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.kind = kind;
    this.status = status;
    this.reason = reason;
  }

  get retryable(): boolean {
    return this.kind === "server" || this.kind === "network" || this.kind === "conflict";
  }
}

export function isKubeError(e: unknown, kind?: KubeErrorKind): e is KubeError {
  return e instanceof KubeError && (kind === undefined || e.kind === kind);
}

export function kindForKubeStatus(status: number): KubeErrorKind {
  if (status === 404) return "notFound";
  if (status === 409) return "conflict";
  if (status === 410) return "gone";
  if (status === 400 || status === 422) return "invalid";
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  return "server";
}

/** Builds a KubeError from a failed response's Status body. */
export function kubeErrorFromStatus(status: number, body: string, what: string): KubeError {
  let message = body.trim();
  let reason: string | undefined;
  try {
    const s = JSON.parse(body) as { message?: string; reason?: string };
    message = s.message ?? message;
    reason = s.reason;
  } catch {
    // not a Status object
  }
  return new KubeError(kindForKubeStatus(status), `${what}: ${status} ${message}`.trim(), status, reason);
}
