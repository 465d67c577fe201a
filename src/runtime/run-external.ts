// The contract between a run kind and the run lifecycle (run.ts): what a run resource's spec and
// status hold, and what a kind's RunExternal gives (how to start an execution, find the ones an
// interrupted start may have made, read one, stop one, and what its outcome means for the run).
import type { Logger } from "pino";
import type { RunPhase } from "../api/run.ts";
import type { Condition } from "../kube/types.ts";
import type { ManagedObject, ManagedSpec } from "./external-client.ts";

export interface RunSpec {
  connectionRef: ManagedSpec["connectionRef"];
  deletionPolicy: "Delete" | "Orphan";
  ttlSecondsAfterFinished?: number | undefined;
}

export interface RunStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  phase?: RunPhase;
  harborId?: number;
  harborUrl?: string;
  startRequest?: { time: string; afterId: number };
  startTime?: string;
  completionTime?: string;
  [field: string]: unknown;
}

/** Everything a run kind's external side gets for one resource. */
export interface RunInput<S, C, X> {
  resource: ManagedObject;
  spec: S;
  conn: C;
  /** What `prepare` resolved (referenced objects). */
  extra: X;
  logger: Logger;
  signal: AbortSignal;
}

/** What an execution means for its run, as the kind reads it. */
export interface RunOutcome<St> {
  /** Running while it has not ended, else the final phase. */
  phase: Exclude<RunPhase, "Pending">;
  /** For the Ready condition and the Event at the end, e.g. "GC 12 succeeded: freed 3 MiB". */
  message: string;
  /** The kind's own status fields (times, counts, results). */
  status: Partial<St>;
}

/**
 * A run kind's external side. `E` is the system's execution; every method but `start` and `stop`
 * only reads.
 */
export interface RunExternal<S, E, C, X, St = Record<string, unknown>> {
  /**
   * Resolves references; throw NotReady to wait, Stalled for a spec error. While the resource is
   * being deleted, a reference that is gone must not block: fall back to what status recorded.
   */
  prepare(input: Omit<RunInput<S, C, X>, "extra">): Promise<X>;
  /** Why the run may not start yet (e.g. another GC runs), or undefined to start now. */
  blocker?(input: RunInput<S, C, X>): Promise<{ reason: string; message: string } | undefined>;
  /** The newest execution id of the kind (in its scope, e.g. the policy) the system has now; 0 for none. */
  newestId(input: RunInput<S, C, X>): Promise<number>;
  /**
   * Executions with an id above `afterId` that this run could have started (same trigger, same
   * parameters, same policy): the candidates after an interrupted start.
   */
  startedAfter(input: RunInput<S, C, X>, afterId: number): Promise<E[]>;
  /** Starts the execution and returns its id. Throw NotReady when the system says "not now". */
  start(input: RunInput<S, C, X>): Promise<number>;
  /** The execution, or undefined when the system no longer has it. */
  get(input: RunInput<S, C, X>, id: number): Promise<E | undefined>;
  id(execution: E): number;
  /** Pure: what the execution means for the run. */
  outcome(input: RunInput<S, C, X>, execution: E): RunOutcome<St>;
  /** Reads, once the execution has ended, what only an ended one has (a log tail); best effort. */
  details?(input: RunInput<S, C, X>, execution: E, phase: RunPhase): Promise<Partial<St>>;
  /** Asks the system to stop the execution. */
  stop(input: RunInput<S, C, X>, execution: E): Promise<void>;
  /**
   * How messages name an execution of this run, e.g. "GC 12" or `replication execution 12 of
   * policy "x"`; without an id, the execution a start request may have created.
   */
  name(input: Omit<RunInput<S, C, X>, "extra">, id: number | undefined): string;
}
