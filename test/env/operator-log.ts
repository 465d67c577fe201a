// What tests read from the operator's log (useOperator collects it; it runs at debug level): pino's
// JSON, one object a line, each reconcile's lines with its controller and key, and the time each
// line was written. Besides the drift sweeps (op.sweeps), it shows what the cluster and Harbor do
// not: that a reconcile ran, when it asked to be looked at again (requeueAfterMs), and each Harbor
// call in the order made (so that a sweep's calls are counted exactly, however busy the machine).
import type { OperatorFixture } from "./operator.ts";
import { until } from "./until.ts";

export interface LogEntry {
  /** When the line was written (ISO 8601). */
  time: string;
  level: string;
  msg: string;
  /** The kind's controller, its kind in lower case (e.g. "harborlabel"). */
  controller?: string;
  /** The resource a reconcile's line is about: "namespace/name". */
  key?: string;
  [field: string]: unknown;
}

/** Every whole JSON line of the output, oldest first. */
export function logEntries(output: string): LogEntry[] {
  const out: LogEntry[] = [];
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line) as LogEntry);
    } catch {
      // the last line, still being written
    }
  }
  return out;
}

/** The lines of one resource's reconciles so far, e.g. `reconcileLog(op, "HarborLabel", "gate")`. */
export const reconcileLog = (
  op: Pick<OperatorFixture, "output" | "namespace">,
  kind: string,
  name: string,
): LogEntry[] =>
  logEntries(op.output()).filter(
    (e) => e.controller === kind.toLowerCase() && e.key === `${op.namespace}/${name}`,
  );

/**
 * The operator's Harbor calls in each of the next `n` drift sweeps of `kind`, by operation, one
 * record per sweep, read from its log: every call logged between the end of one sweep of the kind
 * and the end of the next (a kind's sweeps follow each other), so each record holds exactly one
 * whole sweep of the kind, and whatever else the operator asked of Harbor meanwhile.
 */
export async function harborCallsPerSweep(
  op: Pick<OperatorFixture, "output">,
  kind: string,
  n = 2,
): Promise<Array<Record<string, number>>> {
  const from = op.output().lastIndexOf("\n") + 1;
  const windows = () => {
    const out: Array<Record<string, number>> = [];
    let current: Record<string, number> | undefined;
    for (const e of logEntries(op.output().slice(from))) {
      if (e.msg === "drift sweep done" && e.kind === kind) {
        if (current) out.push(current);
        current = {};
      } else if (current && e.msg === "Harbor call") {
        const operation = String(e.operation);
        current[operation] = (current[operation] ?? 0) + 1;
      }
    }
    return out;
  };
  return until(`${n + 1} drift sweeps of ${kind}`, () => {
    const found = windows();
    return found.length >= n ? found.slice(0, n) : undefined;
  });
}
