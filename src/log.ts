// The operator's logger: pino, one JSON object per line, ISO timestamps, `level` as a label.
// No secret may reach a log line, so redaction works in depth, not by convention alone:
// - any field whose name says it holds a secret (password, secret, token, authorization, Secret
//   `data`, …) is replaced at any depth and in any letter case, in the logged object and in child
//   bindings (the latter through pino's path redaction, which covers two levels);
// - Errors are flattened with the same rules applied to their own fields and causes;
// - credentials embedded in text (`Basic …`, `Bearer …`, `user:password@` in URLs) are masked in
//   messages and string fields.
// Code still logs identifiers and outcomes, never whole objects or Harbor bodies; this is the net
// under that rule.
import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type DestinationStream, type Logger } from "pino";
import type { LogFormat, LogLevel } from "./config.ts";

export type { Logger } from "pino";

export interface LoggerOptions {
  logLevel: LogLevel;
  logFormat?: LogFormat;
}

export const REDACTED = "[Redacted]";

/** What identifies the reconcile a line belongs to. */
export interface LogScope {
  controller: string;
  key: string;
  reconcileId: string;
}

/**
 * The reconcile running in the current async context. Code that logs with a logger of its own
 * (the Harbor client's per connection, the Event recorder's) adds it from here, so that every line
 * a reconcile causes carries its reconcileId without threading a logger through every call.
 */
export const logScope = new AsyncLocalStorage<LogScope>();

/** Field names (lower case, without '-' and '_') whose values are secrets wherever they appear. */
const SECRET_FIELDS = new Set([
  "password",
  "passwd",
  "secret",
  "token",
  "authorization",
  "proxyauthorization",
  "authheader",
  "accesssecret",
  "accesskey",
  "secretkey",
  "apikey",
  "xapikey",
  "credential",
  "credentials",
  "accesscredential", // a scanner registration's
  "cookie",
  "setcookie",
  "privatekey",
  "clientkey",
  "clientkeydata",
  "bearertoken",
  "data", // a Kubernetes Secret's data
  "stringdata",
]);
/** Field names ending like this hold secrets too: adminPassword, robotSecret, accessToken, … */
const SECRET_SUFFIXES = [
  "password",
  "passwd",
  "secret",
  "token",
  "authorization",
  "apikey",
  "credentials",
  "credential",
  "privatekey",
];

/** The same rules as exact pino paths, so child bindings (which formatters never see) are covered. */
const REDACT_NAMES = [
  "password",
  "passwd",
  "secret",
  "token",
  "authorization",
  "Authorization",
  "authHeader",
  "accessSecret",
  "access_secret",
  "access_credential",
  "accessKey",
  "secretKey",
  "apiKey",
  "credentials",
  "cookie",
  "privateKey",
  "data",
  "stringData",
  "headers.authorization",
  "headers.cookie",
];
const REDACT_PATHS = REDACT_NAMES.flatMap((n) => [n, `*.${n}`]);

/** Credentials inside text. Each keeps its first group and masks the rest. */
const SECRET_PATTERNS: RegExp[] = [
  /\b((?:Basic|Bearer|Token)\s+)[A-Za-z0-9+/=._~-]{4,}/gi,
  /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]*:[^\s/@]*@/gi,
];

const MAX_DEPTH = 8;

export function isSecretField(name: string): boolean {
  const n = name.toLowerCase().replace(/[-_]/g, "");
  return SECRET_FIELDS.has(n) || SECRET_SUFFIXES.some((s) => n.endsWith(s));
}

/** Masks credentials that text carries inline (authorization headers, URLs with a password). */
export function scrubText(text: string): string {
  let out = text;
  for (const re of SECRET_PATTERNS) out = out.replace(re, (_m, keep: string) => `${keep}${REDACTED}`);
  return out;
}

/** A copy of a value to log with secret fields replaced and inline credentials masked. */
export function redact(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return scrubText(value);
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[Circular]";
  if (depth >= MAX_DEPTH) return "[Object]";
  seen.add(value);
  if (value instanceof Error) return redactError(value, depth, seen);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen));
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.constructor.name}]`;
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = isSecretField(k) ? REDACTED : redact(v, depth + 1, seen);
  return out;
}

function redactError(e: Error, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  const out: Record<string, unknown> = { type: e.name, message: scrubText(e.message) };
  if (e.stack) out.stack = scrubText(e.stack);
  for (const [k, v] of Object.entries(e)) out[k] = isSecretField(k) ? REDACTED : redact(v, depth + 1, seen);
  if (e.cause !== undefined) out.cause = redact(e.cause, depth + 1, seen);
  return out;
}

/**
 * The process's root logger. Per reconcile, callers derive `logger.child({ controller, key,
 * reconcileId })`. Pass a destination to capture the output (tests); default stdout.
 */
export function createLogger(o: LoggerOptions, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: o.logLevel,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    // Errors are already flattened (and scrubbed) by formatters.log; pino's own serializer
    // would rename their type.
    serializers: { err: (e: unknown) => (e instanceof Error ? redact(e) : e) },
    formatters: {
      level: (label) => ({ level: label }),
      log: (obj) => redact(obj) as Record<string, unknown>,
    },
    hooks: {
      // Messages and printf-style arguments are text the formatters never see.
      logMethod(args, method) {
        // logger.error(err) takes its message from the error, past the scrubbing below.
        const [first, ...rest] = args;
        if (first instanceof Error && typeof rest[0] !== "string") {
          method.apply(this, [{ err: first }, scrubText(first.message)] as unknown as typeof args);
          return;
        }
        // The first argument, when an object, goes through formatters.log; later ones are
        // printf arguments.
        const clean = args.map((a, i) =>
          typeof a === "string" ? scrubText(a) : i > 0 ? redact(a) : a,
        ) as typeof args;
        method.apply(this, clean);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
