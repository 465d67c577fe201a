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

/**
 * The lines of one resource's reconciles, e.g. `reconcileLog(op, "HarborLabel", "gate")`, printed
 * after `from` (an earlier `output().length`; default: all).
 */
export const reconcileLog = (
  op: Pick<OperatorFixture, "output" | "namespace">,
  kind: string,
  name: string,
  from = 0,
): LogEntry[] =>
  logEntries(op.output().slice(from)).filter(
    (e) => e.controller === kind.toLowerCase() && e.key === `${op.namespace}/${name}`,
  );

/**
 * Whether a line ends a drift sweep of `kind` written at or after `since` (ms since the epoch). The
 * output reaches the test through a pipe, on a busy machine later than the cluster's watch events,
 * so the output's length at a moment is not where the log stood at that moment: the line's own time
 * is (the operator and the tests share the machine's clock).
 */
export const endsSweepSince = (e: LogEntry, kind: string, since: number): boolean =>
  e.msg === "drift sweep done" && e.kind === kind && Date.parse(e.time) >= since;

/** The Harbor calls logged during one whole drift sweep of a kind (and whatever else ran meanwhile). */
type SweepCalls = Array<{ operation: string; method: string }>;

/**
 * The operator's Harbor calls during each of the next `n` drift sweeps of `kind`, in the order made,
 * read from its log: every call logged between the end of one sweep of the kind and the end of the
 * next (a kind's sweeps follow each other), both ended after this call, so each record holds exactly
 * one whole sweep of the kind, and whatever else the operator asked of Harbor meanwhile.
 */
async function callsOfSweeps(
  op: Pick<OperatorFixture, "output">,
  kind: string,
  n: number,
): Promise<SweepCalls[]> {
  const from = op.output().lastIndexOf("\n") + 1;
  const since = Date.now();
  const windows = () => {
    const out: SweepCalls[] = [];
    let current: SweepCalls | undefined;
    for (const e of logEntries(op.output().slice(from))) {
      if (endsSweepSince(e, kind, since)) {
        if (current) out.push(current);
        current = [];
      } else if (current && e.msg === "Harbor call") {
        current.push({ operation: String(e.operation), method: String(e.method) });
      }
    }
    return out;
  };
  return until(`${n + 1} drift sweeps of ${kind}`, () => {
    const found = windows();
    return found.length >= n ? found.slice(0, n) : undefined;
  });
}

const byOperation = (calls: SweepCalls, skip: readonly string[] = []): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const { operation } of calls)
    if (!skip.includes(operation)) out[operation] = (out[operation] ?? 0) + 1;
  return out;
};

/** The operator's Harbor calls in each of the next `n` drift sweeps of `kind`, by operation, one record per sweep. */
export async function harborCallsPerSweep(
  op: Pick<OperatorFixture, "output">,
  kind: string,
  n = 2,
): Promise<Array<Record<string, number>>> {
  return (await callsOfSweeps(op, kind, n)).map((calls) => byOperation(calls));
}

/** Operations of the connection's periodic check, which is not the kind's. */
const CONNECTION_CHECK = ["getSystemInfo", "getCurrentUserInfo"];

/**
 * What the operator asks of Harbor in steady state, for a kind's request-count promises ("no writes,
 * these reads per drift interval"): the writes and the reads by operation of the next `n` whole drift
 * sweeps of `kind` together, the connection's own periodic check left out.
 */
export async function requestsOverSweeps(
  op: Pick<OperatorFixture, "output">,
  kind: string,
  n = 2,
): Promise<{ writes: number; requests: Record<string, number> }> {
  const calls = (await callsOfSweeps(op, kind, n)).flat();
  return {
    writes: calls.filter((c) => c.method !== "GET" && c.method !== "HEAD").length,
    requests: byOperation(calls, CONNECTION_CHECK),
  };
}

/**
 * Where the operator serves /metrics and its probes, from its "serving metrics and probes" line
 * (the newest, should it have restarted): started with port 0, it takes free ports of its own, so no
 * other process can take them between a test's choice and the operator's start.
 */
export const servedUrls = (
  op: Pick<OperatorFixture, "output">,
): Promise<{ metricsUrl: string; probeUrl: string }> =>
  until("the operator's metrics and probe addresses in its log", () => {
    const line = logEntries(op.output()).findLast((e) => e.msg === "serving metrics and probes");
    return line && { metricsUrl: String(line.metricsUrl), probeUrl: String(line.probeUrl) };
  });
