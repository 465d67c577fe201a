// Pure rules of the connection kinds: which namespaces may use a cluster connection, the registry
// host, what the credentials Secret must hold, how a failed check reads as a Ready reason with a
// clear message (never a secret, never a request id, so a repeated failure does not rewrite the
// status), and the status a check leads to.
import { LOOPBACK_HTTP_URL } from "../../api/common.ts";
import type { ConnectionStatus } from "../../api/connection.ts";
import { HarborError } from "../../harbor/errors.ts";
import {
  lineText,
  NEWEST_KNOWN,
  OLDEST_SUPPORTED,
  releaseText,
  SUPPORTED_LINES,
  supportOf,
} from "../../harbor/release.ts";
import type { Condition } from "../../kube/types.ts";
import {
  findCondition,
  jsonEqual,
  removeCondition,
  setCondition,
  withReconciling,
} from "../../runtime/conditions.ts";
import { tooLargeText } from "../shared/errors.ts";

export type ConnectionKind = "HarborConnection" | "ClusterHarborConnection";

/** Ready=False reasons. */
export type FailureReason =
  | "InvalidSpec"
  | "SecretNotFound"
  | "SecretInvalid"
  | "SecretUnreadable"
  | "Unreachable"
  | "TLSError"
  | "BadCredentials"
  | "Forbidden"
  | "ResponseTooLarge"
  | "HarborError"
  | "UnsupportedHarborVersion"
  | "InsecureHTTP"
  | "SecretNotAllowed";

export interface Failure {
  reason: FailureReason;
  message: string;
  /** Only a change of the connection can fix it: Stalled, no retry. */
  stalled?: boolean;
}

// -------------------------------------------------------------------------------------------
// tenancy and names

/** Whether `namespace` matches one of the names or "*" patterns ("team-*", "*"). */
export function namespaceAllowed(patterns: readonly string[], namespace: string): boolean {
  return patterns.some((p) => {
    if (!p.includes("*")) return p === namespace;
    const source = p
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    return new RegExp(`^${source}$`).test(namespace);
  });
}

/**
 * Which Harbor a URL reaches, as one comparable string: scheme and host in lower case, the
 * scheme's default port left out, no trailing slash. Harbor ids are bound to it (an id recorded
 * for one Harbor is never used against another), and claims are keyed by it (one owner per Harbor
 * object, whichever connection object reaches that Harbor).
 */
export function harborIdentity(url: string): string {
  const u = new URL(url);
  const path = u.pathname.replace(/\/+$/, "");
  return `${u.protocol}//${u.host}${path}`;
}

/** host[:port] of the URL, as image references write it (default ports left out). */
export function defaultRegistryHost(url: string): string {
  return new URL(url).host;
}

export function registryHostOf(spec: { url: string; registryHost?: string | undefined }): string {
  return spec.registryHost ?? defaultRegistryHost(spec.url);
}

/**
 * Why the credentials may not go to this URL: plain http:// to a host other than loopback, unless
 * the spec allows it. The CRD refuses such a spec; one stored before that rule gets here.
 */
export function insecureHttpRefusal(spec: { url: string; allowInsecureHTTP?: boolean }): Failure | undefined {
  if (!spec.url.startsWith("http://") || spec.allowInsecureHTTP || LOOPBACK_HTTP_URL.test(spec.url))
    return undefined;
  const u = new URL(spec.url);
  return {
    reason: "InsecureHTTP",
    message: `${spec.url} is plain http:// to ${u.hostname}: the credentials would cross the network unencrypted, so nothing is sent. Use https://, or set spec.allowInsecureHTTP: true where the network is trusted`,
    stalled: true,
  };
}

/**
 * A ClusterHarborConnection whose credentials Secret is outside the namespace the operator allows
 * (--cluster-resource-namespace; "*": any). Whoever may write a cluster connection could otherwise
 * send any opted-in Secret of any namespace to a URL of their choice. Only a change of the
 * connection (or of the operator's setting, which restarts it) fixes it: Stalled, nothing read.
 */
export function secretNamespaceRefusal(
  kind: ConnectionKind,
  secretNamespace: string,
  allowed: string,
): Failure | undefined {
  if (kind !== "ClusterHarborConnection" || allowed === "*" || secretNamespace === allowed) return undefined;
  return {
    reason: "SecretNotAllowed",
    message: `a ClusterHarborConnection reads its credentials Secret only from the operator's namespace ${allowed}, not ${secretNamespace}: move the Secret to ${allowed} and set spec.credentialsSecretRef.namespace: ${allowed} (or start the operator with --cluster-resource-namespace naming the namespace that holds it); nothing was read`,
    stalled: true,
  };
}

// -------------------------------------------------------------------------------------------
// credentials

export interface CredentialsRef {
  namespace: string;
  name: string;
  usernameKey: string;
  passwordKey: string;
}

export type Credentials = { username: string; password: string };

/** The username and password from the Secret's values, or why they cannot be used. */
export function credentialsFrom(
  values: Record<string, string> | undefined,
  ref: CredentialsRef,
): { ok: true; credentials: Credentials } | { ok: false; failure: Failure } {
  const where = `Secret ${ref.namespace}/${ref.name}`;
  if (values === undefined) {
    return { ok: false, failure: { reason: "SecretNotFound", message: `${where} does not exist` } };
  }
  const missing = [ref.usernameKey, ref.passwordKey].filter((k) => (values[k] ?? "") === "");
  if (missing.length) {
    const keys = missing.map((k) => `"${k}"`).join(" and ");
    return {
      ok: false,
      failure: {
        reason: "SecretInvalid",
        message: `${where} has no value under ${keys}; it needs the keys "${ref.usernameKey}" and "${ref.passwordKey}"`,
      },
    };
  }
  const username = values[ref.usernameKey] as string;
  if (username.includes(":")) {
    // Basic auth splits at the first colon: such a username can never log in.
    return {
      ok: false,
      failure: { reason: "SecretInvalid", message: `${where}: the username must not contain ":"` },
    };
  }
  return { ok: true, credentials: { username, password: values[ref.passwordKey] as string } };
}

// -------------------------------------------------------------------------------------------
// failures

/** Node's TLS and certificate error codes, read as a sentence; undefined for other codes. */
export function tlsProblem(code: string | undefined): string | undefined {
  if (!code) return undefined;
  switch (code) {
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "SELF_SIGNED_CERT_IN_CHAIN":
      return "the certificate is self-signed and not trusted; put the CA that issued it in spec.caBundle";
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "UNABLE_TO_GET_ISSUER_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
    case "CERT_UNTRUSTED":
    case "INVALID_CA":
      return "the certificate was issued by a CA that is not trusted; put that CA in spec.caBundle";
    case "CERT_HAS_EXPIRED":
      return "the certificate has expired";
    case "CERT_NOT_YET_VALID":
      return "the certificate is not valid yet";
    case "ERR_TLS_CERT_ALTNAME_INVALID":
    case "HOSTNAME_MISMATCH":
      return "the certificate is not issued for this host name";
    case "CERT_REVOKED":
      return "the certificate has been revoked";
    case "ERR_SSL_WRONG_VERSION_NUMBER":
    case "EPROTO":
      return "the server does not speak TLS on this port; check the scheme of spec.url";
  }
  if (/^ERR_(TLS|SSL)_/.test(code) || /CERT|CRL|SIGNATURE|ISSUER/.test(code)) {
    return `the TLS handshake failed (${code})`;
  }
  return undefined;
}

export interface FailureContext {
  url: string;
  credentials?: CredentialsRef & { username: string; password: string };
  /** The overall deadline of a check; an abort by it reads as "did not answer". */
  deadlineMs?: number;
}

/** A failed Harbor call as a Ready reason and a message a user can act on. */
export function describeFailure(e: unknown, ctx: FailureContext): Failure {
  const host = hostOf(ctx.url);
  if (!(e instanceof HarborError)) {
    return { reason: "HarborError", message: `checking Harbor at ${ctx.url} failed: ${errorText(e)}` };
  }
  switch (e.kind) {
    case "network": {
      const tls = tlsProblem(e.code);
      if (tls) return { reason: "TLSError", message: `TLS with ${host} failed: ${tls}` };
      return {
        reason: "Unreachable",
        message: `cannot reach Harbor at ${host}: ${networkProblem(e.code, host)}`,
      };
    }
    case "timeout":
    case "aborted":
      return {
        reason: "Unreachable",
        message: `Harbor at ${host} did not answer${ctx.deadlineMs ? ` within ${Math.round(ctx.deadlineMs / 1000)} s` : ""}`,
      };
    case "unauthorized": {
      const c = ctx.credentials;
      if (!c)
        return { reason: "BadCredentials", message: `Harbor at ${host} refused the credentials (HTTP 401)` };
      return {
        reason: "BadCredentials",
        message: `Harbor at ${host} does not accept the username and password from Secret ${c.namespace}/${c.name}${whitespaceHint(c)}`,
      };
    }
    case "forbidden":
      return {
        reason: "Forbidden",
        message: `Harbor at ${host} refused ${e.operation} (HTTP 403${harborText(e)})`,
      };
    case "notFound":
      if (e.operation === "getSystemInfo") {
        return {
          reason: "HarborError",
          message: `no Harbor API at ${apiUrl(ctx.url)} (HTTP 404); check spec.url`,
        };
      }
      return {
        reason: "HarborError",
        message: `Harbor at ${host} answered ${e.operation} with HTTP 404${harborText(e)}`,
      };
    case "responseTooLarge":
      return {
        reason: "ResponseTooLarge",
        message: `${tooLargeText(e, host)}; check that spec.url points at Harbor`,
      };
    case "invalidResponse":
      return {
        reason: "HarborError",
        message: `the answer to ${e.operation} from ${host} is not what Harbor sends; check that spec.url points at Harbor`,
      };
    default:
      return {
        reason: "HarborError",
        message: `Harbor at ${host} answered ${e.operation} with ${e.status === undefined ? e.kind : `HTTP ${e.status}`}${harborText(e)}`,
      };
  }
}

function networkProblem(code: string | undefined, host: string): string {
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (nothing listens there)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return `the host name ${hostname(host)} does not resolve`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "no route to the host";
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
    case "EPIPE":
      return "the connection was closed before Harbor answered";
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return "the connection timed out";
    default:
      return code ? `network error ${code}` : "network error";
  }
}

function whitespaceHint(c: { username: string; password: string }): string {
  // A Secret made with `echo` carries a line break that nobody sees.
  if (/\s$/.test(c.password) || /\s$/.test(c.username) || /^\s/.test(c.username)) {
    return " (note: a value in the Secret starts or ends with whitespace, e.g. a line break)";
  }
  return "";
}

function harborText(e: HarborError): string {
  return `${e.code ? ` ${e.code}` : ""}${e.harborMessage ? `: ${e.harborMessage}` : ""}`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function hostname(host: string): string {
  return host.replace(/:\d+$/, "");
}

function apiUrl(url: string): string {
  return `${url.replace(/\/+$/, "")}/api/v2.0`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// -------------------------------------------------------------------------------------------
// the release

/** Why the operator does not work with the release Harbor reports, or undefined (see supportOf). */
export function releaseRefusal(url: string, harborVersion: string | undefined): Failure | undefined {
  const support = supportOf(harborVersion);
  if (support.kind !== "older") return undefined;
  return {
    reason: "UnsupportedHarborVersion",
    message: `Harbor at ${hostOf(url)} is ${harborVersion}: this operator supports Harbor ${SUPPORTED_LINES} (and newer releases, as ${releaseText(NEWEST_KNOWN)}); nothing is done through this connection until Harbor is ${lineText(OLDEST_SUPPORTED)} or later`,
  };
}

/** What the Ready message adds about a release the operator does not know as such. */
export function releaseNote(harborVersion: string | undefined): string {
  const support = supportOf(harborVersion);
  const newest = releaseText(NEWEST_KNOWN);
  switch (support.kind) {
    case "newer":
      return `; ${releaseText(support.release)} is newer than the newest release this operator knows (${newest}): it is treated as ${newest}`;
    case "unknown":
      return harborVersion
        ? `; "${harborVersion}" names no release: it is treated as ${newest}`
        : `; Harbor does not say which release it is: it is treated as ${newest}`;
    default:
      return "";
  }
}

// -------------------------------------------------------------------------------------------
// status

/** What one check of a connection found. */
export interface CheckResult {
  /** Undefined when Harbor answered and the credentials work. */
  failure?: Failure;
  url: string;
  harborVersion?: string;
  authenticatedAs?: string;
  ldap?: NonNullable<ConnectionStatus["ldap"]>;
  jobService?: NonNullable<ConnectionStatus["jobService"]>;
  /** The optional checks (LDAP, job service): absent when none is asked for. */
  checks?: { passed: boolean; reason: string; message: string };
  /** The Secret the credentials came from (it carries a finalizer while the connection needs it). */
  credentialsSecret?: { namespace: string; name: string };
  /** While the connection is being deleted: the resources that still use it (it waits for them). */
  deletionWaitsFor?: readonly string[];
}

/** Condition of a connection whose deletion waits for the resources that use it. */
export const DELETION_PENDING = "DeletionPending";

/** "HarborProject team-a/web, HarborRobot team-a/ci and 3 more", for messages. */
export function listOf(keys: readonly string[], max = 5): string {
  const shown = keys.slice(0, max).join(", ");
  return keys.length > max ? `${shown} and ${keys.length - max} more` : shown;
}

export const READY = "Ready";
/** The optional checks' own condition, so a failed LDAP ping does not take the connection down. */
export const CHECKS = "ChecksPassed";

export function readyInput(r: CheckResult): { status: "True" | "False"; reason: string; message: string } {
  if (r.failure) return { status: "False", ...r.failure };
  const version = r.harborVersion ? `Harbor ${r.harborVersion}` : "Harbor";
  return {
    status: "True",
    reason: "Connected",
    message: `${version} at ${r.url} accepts the credentials${r.authenticatedAs ? ` of "${r.authenticatedAs}"` : " (it names no user for them: a robot account)"}${releaseNote(r.harborVersion)}`,
  };
}

/**
 * The status after a check. lastCheckTime is refreshed whenever anything else changes, and
 * otherwise only once it is older than `lastCheckRefreshMs`: a connection that stays the same
 * costs one status write per refresh interval, not one per check.
 */
export function nextStatus(
  previous: ConnectionStatus | undefined,
  generation: number | undefined,
  r: CheckResult,
  now: Date,
  lastCheckRefreshMs: number,
): ConnectionStatus {
  const at = () => now.toISOString();
  let conditions: Condition[] = setCondition(
    previous?.conditions as Condition[] | undefined,
    { type: READY, ...readyInput(r) },
    generation,
    at,
  );
  conditions =
    r.checks && !r.failure
      ? setCondition(
          conditions,
          {
            type: CHECKS,
            status: r.checks.passed ? "True" : "False",
            reason: r.checks.reason,
            message: r.checks.message,
          },
          generation,
          at,
        )
      : removeCondition(conditions, CHECKS);
  conditions = r.deletionWaitsFor?.length
    ? setCondition(
        conditions,
        {
          type: DELETION_PENDING,
          status: "True",
          reason: "InUse",
          message: `deletion pending: ${r.deletionWaitsFor.length} resource(s) still use this connection (${listOf(r.deletionWaitsFor)}); it goes once they are deleted or point at another connection`,
        },
        generation,
        at,
      )
    : removeCondition(conditions, DELETION_PENDING);
  conditions = r.failure?.stalled
    ? setCondition(
        conditions,
        { type: "Stalled", status: "True", reason: r.failure.reason, message: r.failure.message },
        generation,
        at,
      )
    : removeCondition(conditions, "Stalled");
  conditions = withReconciling(conditions, generation, at);
  const next: ConnectionStatus = {
    observedGeneration: generation,
    conditions,
    ...(r.credentialsSecret ? { credentialsSecret: r.credentialsSecret } : {}),
    ...(r.harborVersion ? { harborVersion: r.harborVersion } : {}),
    ...(r.authenticatedAs && !r.failure ? { authenticatedAs: r.authenticatedAs } : {}),
    ...(r.ldap && !r.failure ? { ldap: r.ldap } : {}),
    ...(r.jobService && !r.failure ? { jobService: r.jobService } : {}),
  };
  const { lastCheckTime: last, ...rest } = previous ?? {};
  const unchanged = jsonEqual(rest, next);
  const fresh = last !== undefined && now.getTime() - Date.parse(last) < lastCheckRefreshMs;
  next.lastCheckTime = unchanged && fresh ? last : now.toISOString().replace(/\.\d+Z$/, "Z");
  return next;
}

/** The Event a change of the Ready condition deserves, if any. */
export function readyTransition(
  previous: ConnectionStatus | undefined,
  next: ConnectionStatus,
): { type: "Normal" | "Warning"; reason: string; message: string } | undefined {
  const was = findCondition(previous?.conditions as Condition[] | undefined, READY);
  const now = findCondition(next.conditions as Condition[] | undefined, READY);
  if (!now || (was?.status === now.status && was.reason === now.reason)) return undefined;
  return now.status === "True"
    ? { type: "Normal", reason: now.reason, message: now.message }
    : { type: "Warning", reason: now.reason, message: now.message };
}

/** Retry delay after `failures` failed checks in a row: doubling from `baseMs`, capped at `maxMs`. */
export function retryDelayMs(failures: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
}
