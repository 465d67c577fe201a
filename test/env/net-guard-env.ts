// How processes get the network guard (net-guard.js) and how its records are read. The guard goes
// in through NODE_OPTIONS, so every Node process started under a guarded one is guarded too.
// The one exemption: processes that must reach a registry on purpose — npm fetching other npm
// releases for the set-up tests — are started with `withoutGuard` (see npm.ts).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const GUARD_PATH = fileURLToPath(new URL("./net-guard.js", import.meta.url));
const GUARD_OPTION = `--import=${JSON.stringify(GUARD_PATH)}`;

/** NODE_OPTIONS with the guard added (once). */
export function withGuard(nodeOptions: string | undefined): string {
  const current = nodeOptions ?? "";
  return current.includes(GUARD_OPTION) ? current : `${current} ${GUARD_OPTION}`.trim();
}

/** An environment without the guard: NODE_OPTIONS without it, and no guard log. */
export function withoutGuard(env: Record<string, string>): Record<string, string> {
  const out = { ...env };
  delete out.HCO_NET_GUARD_LOG;
  const options = (out.NODE_OPTIONS ?? "").replace(GUARD_OPTION, "").trim();
  if (options) out.NODE_OPTIONS = options;
  else delete out.NODE_OPTIONS;
  return out;
}

export interface GuardRecord {
  event: "armed" | "refused";
  pid: number;
  /** The script and its first argument, e.g. [".../src/main.ts", "--kubeconfig=…"]. */
  argv: string[];
  what?: string;
  target?: string;
  stack?: string;
}

/** The records of a guard log (default: this process's). */
export function guardRecords(file = process.env.HCO_NET_GUARD_LOG): GuardRecord[] {
  if (!file || !existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as GuardRecord);
}

/** What a refused record says, for a failure message. */
export function describeRefusal(r: GuardRecord): string {
  return `${r.what} ${r.target} — pid ${r.pid} (${r.argv.join(" ")})\n${r.stack ?? ""}`;
}
