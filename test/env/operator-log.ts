// What tests read from the operator's log (useOperator collects it; it runs at debug level): pino's
// JSON, one object a line, each reconcile's lines with its controller and key, and the time each
// line was written. Besides the drift sweeps (op.sweeps), it shows what the cluster and Harbor do
// not: that a reconcile ran, and when it asked to be looked at again (requeueAfterMs).
import type { OperatorFixture } from "./operator.ts";

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
 * The emulator's requests in each of the next `n` drift sweeps of `kind`, by operation, one record
 * per sweep. Each window runs from the end of one sweep of the kind to the end of the next (sweeps
 * of a kind follow each other a drift interval apart), so it holds exactly one whole sweep, and
 * whatever else reached Harbor meanwhile.
 */
export async function requestsPerSweep(
  op: Pick<OperatorFixture, "sweeps" | "emulator">,
  kind: string,
  n = 2,
): Promise<Array<Record<string, number>>> {
  await op.sweeps(kind, 1);
  const out: Array<Record<string, number>> = [];
  for (let i = 0; i < n; i++) {
    const before = op.emulator.counters.list();
    await op.sweeps(kind, 1);
    out.push(op.emulator.counters.since(before));
  }
  return out;
}
