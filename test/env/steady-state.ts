// What the operator asks of Harbor in steady state, for the tests of a kind's request-count promises
// ("no writes, and these reads per drift interval"): the requests made during exactly `n` drift
// sweeps of one kind, counted from the end of one sweep to the end of another, so that no sweep
// falls half inside the window. The connection's periodic check may fall inside it too.
import type { CounterRow } from "./emulator/faults.ts";
import type { OperatorFixture } from "./operator.ts";

export interface SteadyState {
  /** Harbor writes (see Counters.writes) during the sweeps. */
  writes: number;
  /** Requests by operation during the sweeps, the connection's own check left out. */
  requests: Record<string, number>;
}

/** Operations of the connection's periodic check, which is not the kind's. */
const CONNECTION_CHECK = ["getSystemInfo", "getCurrentUserInfo"];

/** The requests of the next `n` drift sweeps of `kind` (e.g. "HarborRegistry"), from a sweep's end. */
export async function requestsOverSweeps(op: OperatorFixture, kind: string, n = 2): Promise<SteadyState> {
  await op.sweeps(kind, 1);
  const before: CounterRow[] = op.emulator.counters.list();
  const writes = op.emulator.counters.writes();
  await op.sweeps(kind, n);
  const requests = op.emulator.counters.since(before);
  for (const o of CONNECTION_CHECK) delete requests[o];
  return { writes: op.emulator.counters.writes() - writes, requests };
}
