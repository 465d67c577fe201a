// How the CLI ends: exit codes a script can branch on, and every failure as one clear line on
// standard error — never a stack trace, never a secret (Harbor's and the apiserver's errors carry
// none; text from anywhere else is scrubbed of inline credentials as well).
import { describeFailure } from "../controllers/connection/mapping.ts";
import { HarborError } from "../harbor/errors.ts";
import { HarborQueryError } from "../harbor/query.ts";
import { KubeError } from "../kube/errors.ts";
import { scrubText } from "../log.ts";

/** The exit codes, as `--help` lists them. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** Harbor or Kubernetes refused or could not be reached, an object is missing, the input is wrong. */
  failed: 1,
  /** `diff` and `export --check`: the folder and Harbor differ. */
  drift: 2,
  /** A destructive command was not confirmed (no --yes, and no "y" answered). */
  declined: 3,
  /** The command line itself is wrong: an unknown command or flag, a bad value. */
  usage: 64,
} as const;

/** A failure with its exit code; `hint` is printed on a second line (e.g. where --help is). */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, exitCode: number = EXIT.failed, hint?: string) {
    super(message);
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** A wrong command line: exit 64, with a pointer to the command's --help. */
export class UsageError extends CliError {
  constructor(message: string, command = "") {
    super(message, EXIT.usage, `Run 'kubectl harbor ${command ? `${command} ` : ""}--help' for usage.`);
  }
}

/** Where a Harbor error happened, for its message. */
export interface ErrorContext {
  /** Harbor's URL, when one was chosen. */
  harborUrl?: string;
  /** The user the CLI logs in as, and where the password came from ("Secret ns/name", "HARBOR_PASSWORD"). */
  credentials?: { username: string; source: string };
}

/** The message and exit code for anything a command threw. */
export function describeError(
  e: unknown,
  ctx: ErrorContext = {},
): { message: string; hint?: string; exitCode: number } {
  if (e instanceof CliError)
    return { message: scrubText(e.message), ...(e.hint ? { hint: e.hint } : {}), exitCode: e.exitCode };
  if (e instanceof HarborError) return { message: harborMessage(e, ctx), exitCode: EXIT.failed };
  if (e instanceof KubeError) return { message: kubeMessage(e), exitCode: EXIT.failed };
  if (e instanceof HarborQueryError) return { message: e.message, exitCode: EXIT.usage };
  const text = e instanceof Error ? e.message : String(e);
  return { message: scrubText(text), exitCode: EXIT.failed };
}

function harborMessage(e: HarborError, ctx: ErrorContext): string {
  const url = ctx.harborUrl ?? "";
  if (e.kind === "unauthorized" && ctx.credentials) {
    return `Harbor at ${hostOf(url)} does not accept the username "${ctx.credentials.username}" and the password from ${ctx.credentials.source} (HTTP 401)`;
  }
  if (e.kind === "forbidden") {
    const who = ctx.credentials ? ` "${ctx.credentials.username}"` : "";
    return `Harbor at ${hostOf(url)} refused ${e.operation} to the user${who} (HTTP 403${e.harborMessage ? `: ${e.harborMessage}` : ""}); it needs more permissions for this command`;
  }
  // The connection check's wording: network, TLS, timeouts, 404 of the API root, odd answers.
  const text = describeFailure(e, { url }).message;
  return `${text}${e.requestId ? ` (request id ${e.requestId})` : ""}`;
}

function kubeMessage(e: KubeError): string {
  switch (e.kind) {
    case "network":
      return `cannot reach the Kubernetes API server: ${e.message}`;
    case "unauthorized":
      return `the Kubernetes API server refused the kubeconfig's credentials: ${e.message}`;
    case "forbidden":
      return `the Kubernetes API server refused the request (RBAC): ${e.message}`;
    default:
      return `Kubernetes: ${e.message}`;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
