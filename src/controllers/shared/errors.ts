// How failures become conditions, the same for every kind. Harbor's own message reaches the
// condition (it never carries a credential: the transport scrubs them); what a retry cannot fix
// (Harbor rejecting the request as invalid) stalls the resource until its spec changes. An answer
// larger than the client reads is not Harbor's normal behaviour: it is retried with the usual
// backoff (a proxy in between may be at fault), never read whole.
import { formatBytes, HarborError } from "../../harbor/errors.ts";
import { KubeError } from "../../kube/errors.ts";
import { SecretConflictError } from "../../kube/secrets.ts";
import type { ErrorClassifier } from "../../runtime/external-client.ts";

/**
 * A spec field Harbor did not take, and why (the cause): its condition is the cause's, with the
 * field named first and, where it helps, what would let it through.
 */
export class NotApplied extends Error {
  override readonly name = "NotApplied";
  readonly field: string;
  readonly hint: string | undefined;
  constructor(field: string, cause: unknown, hint?: string) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`${field} is not applied: ${why}${hint ? `; ${hint}` : ""}`, { cause });
    this.field = field;
    this.hint = hint;
  }
}

export const harborErrors: ErrorClassifier = {
  classify(e) {
    if (e instanceof NotApplied) {
      const c = harborErrors.classify(e.cause);
      if (!c) return undefined;
      return { ...c, message: `${e.field} is not applied: ${c.message}${e.hint ? `; ${e.hint}` : ""}` };
    }
    if (e instanceof HarborError) {
      const said = e.harborMessage ? `: ${e.harborMessage}` : "";
      switch (e.kind) {
        case "invalid":
          return {
            reason: "HarborRejected",
            message: `Harbor rejected the request (${e.operation})${said}`,
            terminal: true,
          };
        case "unauthorized":
          return {
            reason: "HarborUnauthorized",
            message: `Harbor did not accept the connection's credentials (${e.operation})`,
            terminal: false,
          };
        case "forbidden":
          return {
            reason: "HarborForbidden",
            message: `the connection's user may not do this in Harbor (${e.operation})${said}`,
            terminal: false,
          };
        case "conflict":
        case "precondition":
        case "notFound":
          return {
            reason: "HarborConflict",
            message: `Harbor refused ${e.operation}${said}`,
            terminal: false,
          };
        case "responseTooLarge":
          return {
            reason: "ResponseTooLarge",
            message: `${tooLargeText(e)}; check that the connection's URL points at Harbor. Retrying`,
            terminal: false,
          };
        default:
          return {
            reason: "HarborUnavailable",
            message: `Harbor is unavailable (${e.operation}: ${e.kind}${e.status ? ` ${e.status}` : ""}); retrying`,
            terminal: false,
            ...(e.retryAfterMs === undefined ? {} : { retryAfterMs: e.retryAfterMs }),
          };
      }
    }
    if (e instanceof SecretConflictError)
      return { reason: "SecretConflict", message: e.message, terminal: false };
    if (e instanceof KubeError) {
      return {
        reason: e.kind === "forbidden" ? "KubernetesForbidden" : "KubernetesError",
        message: e.message,
        terminal: false,
      };
    }
    return undefined;
  },
};

/** What was too large, for a condition message: no request id, so repeats do not rewrite status. */
export function tooLargeText(e: HarborError, host?: string): string {
  const from = host === undefined ? "Harbor" : `Harbor at ${host}`;
  if (e.limitObjects !== undefined) {
    return `the answer to ${e.operation} from ${from} holds more than the ${e.limitObjects} JSON objects and arrays the operator parses`;
  }
  const limit = e.limitBytes === undefined ? "what" : `the ${formatBytes(e.limitBytes)}`;
  const size = e.declaredBytes === undefined ? "" : ` (it announced ${formatBytes(e.declaredBytes)})`;
  return `the answer to ${e.operation} from ${from} is larger than ${limit} the operator reads${size}`;
}
