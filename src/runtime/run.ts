// The one lifecycle of every run kind: a resource that stands for one execution in the external
// system (a GC, a replication execution, a purge), not for an object kept equal to a spec. A kind
// supplies a RunExternal (how to start, find, read and stop its executions, and what an execution
// means for the run); this reconciler supplies the rest, the same way for every run kind:
// - exactly once: before a start request is sent, status.startRequest records the newest execution
//   id the system has (and a finalizer is added); the execution's id is the first thing written
//   after the system accepts the start. A run with a start request and no id was interrupted in
//   between: it looks for an execution above the recorded id that matches it and is not another
//   run's, and takes that over; only when there is none does it start again;
// - waits before the start (a connection, a referenced resource, something the kind says it must
//   wait for, such as another GC) keep the run Pending with the reason, and are retried;
// - following: a running execution is looked at again after a quarter of its running time so far
//   (1 s up to 5 s) until it ends; the final phase (Succeeded, Failed, Stopped, Skipped)
//   never changes, and the kind reads what only an ended execution has (a log tail, failed tasks);
// - conditions for kubectl wait, kstatus and Argo CD: Ready=True on success; Stalled=True on
//   failure, stop or skip; Reconciling=True while waiting or running;
// - deletion: an execution still running is stopped (deletionPolicy Delete) or left to run (Orphan);
//   the finalizer exists only while an execution may run, so a finished run goes without the
//   operator. A finished run is deleted by the operator only when ttlSecondsAfterFinished says so.
import type { Logger } from "pino";
import type { z } from "zod";
import { FINALIZER, PAUSED_ANNOTATION } from "../api/common.ts";
import { FINAL_PHASES, type RunPhase } from "../api/run.ts";
import type { KubeClient } from "../kube/client.ts";
import { isKubeError } from "../kube/errors.ts";
import type { EventRecorder } from "../kube/events.ts";
import { type Condition, objectKey, type ResourceType } from "../kube/types.ts";
import { findCondition, isTrue, jsonEqual, setCondition, withReconciling } from "./conditions.ts";
import {
  type Controller,
  type ReconcileContext,
  type Reconciler,
  type Result,
  RetryAfter,
  TerminalError,
} from "./controller.ts";
import {
  type ConnectionResolver,
  type ErrorClassifier,
  type ManagedCache,
  type ManagedObject,
  NotReady,
  Stalled,
} from "./external-client.ts";
import type { Informer } from "./informer.ts";
import { describeIssues, INVALID_SPEC } from "./invalid-spec.ts";
import { enqueueMatching, kindController } from "./kind.ts";
import { DEPENDENCY_NOT_READY } from "./managed.ts";
import type { Metrics } from "./metrics.ts";
import { OwnWrites } from "./own-writes.ts";
import type { RunExternal, RunInput, RunSpec, RunStatus } from "./run-external.ts";
import { ResourceWrites, statusPatch } from "./writes.ts";

export interface RunReconcilerOptions<S extends RunSpec, E, C, X> {
  type: ResourceType;
  /** Parses the spec with defaults, as the CRD schema would. */
  specSchema: z.ZodType<S>;
  informer: ManagedCache;
  // biome-ignore lint/suspicious/noExplicitAny: each kind has its own status type
  external: RunExternal<S, E, C, X, any>;
  connections: Pick<ConnectionResolver<C>, "resolve" | "harborOf">;
  errors: ErrorClassifier;
  kube: Pick<KubeClient, "mergePatch" | "patchStatus" | "delete">;
  events: EventRecorder;
  /** The one clock of the lifecycle, in epoch milliseconds. */
  now: () => number;
  /** How often a run that waits to start looks again. Default 5 s. */
  waitRetryMs?: number;
  /**
   * The longest wait between two looks at a running execution. Default 5 s: a run exists to be
   * waited on, and one read per 5 s of a running execution costs Harbor little.
   */
  followMaxMs?: number;
}

/** The reason of a run whose recorded execution is in a Harbor its connection no longer reaches. */
export const HARBOR_CHANGED = "HarborChanged";
/** The reason (and final phase Failed) of a run whose execution the system no longer has. */
export const EXECUTION_LOST = "ExecutionLost";
const FOLLOW_MIN_MS = 1_000;
/** How often a quiet wait looks again (what it waits on usually announces itself first). */
const QUIET_WAIT_RETRY_MS = 2_000;
/** How long a new run may wait on another resource (applied with it) before the wait shows. */
const DEPENDENCY_GRACE_MS = 10_000;

type Ready = { status: Condition["status"]; reason: string; message: string };

export function isFinal(phase: unknown): phase is RunPhase {
  return (FINAL_PHASES as readonly unknown[]).includes(phase);
}

function statusOf(r: ManagedObject): RunStatus {
  return (r.status ?? {}) as RunStatus;
}

export class RunReconciler<S extends RunSpec, E, C, X> implements Reconciler {
  readonly #o: RunReconcilerOptions<S, E, C, X>;
  /** Our own writes, until the informer shows them. */
  readonly #written = new OwnWrites<ManagedObject>();
  readonly #writes: ResourceWrites;
  /** Execution ids this process recorded, by resource key, until the informer shows them. */
  readonly #recorded = new Map<string, { harbor: string; id: number }>();

  constructor(o: RunReconcilerOptions<S, E, C, X>) {
    this.#o = o;
    this.#writes = new ResourceWrites({ kube: o.kube, type: o.type, written: this.#written });
    o.informer.on({
      update: (_old, obj) => this.#written.caughtUp(obj),
      delete: (obj) => {
        this.#written.forget(objectKey(obj));
        this.#recorded.delete(objectKey(obj));
      },
    });
  }

  get kind(): string {
    return this.#o.type.kind;
  }

  async reconcile(ctx: ReconcileContext): Promise<Result> {
    const cached = this.#o.informer.get(ctx.key);
    if (!cached) return {};
    const r = this.#written.current(ctx.key, cached);
    const log = ctx.logger;
    const parsed = this.#o.specSchema.safeParse(r.spec ?? {});
    if (!parsed.success) {
      if (r.metadata.deletionTimestamp) return this.#release(r, log, "spec invalid");
      const message = describeIssues(parsed.error.issues, r.spec);
      await this.#write(r, {
        phase: statusOf(r).phase ?? "Pending",
        ready: { status: "False", reason: INVALID_SPEC, message },
        stalled: true,
      });
      throw new TerminalError(message);
    }
    const spec = parsed.data;
    const phase = statusOf(r).phase;

    if (r.metadata.annotations?.[PAUSED_ANNOTATION] === "true" && !isFinal(phase)) {
      // Nothing is started, followed or stopped while paused; Argo CD shows it Suspended.
      await this.#write(r, {
        phase: phase ?? "Pending",
        ready: {
          status: findCondition(r.status?.conditions, "Ready")?.status ?? "Unknown",
          reason: "Paused",
          message: `reconciliation is paused by the ${PAUSED_ANNOTATION} annotation: the run is neither started nor followed until it is removed`,
        },
      });
      return {};
    }

    try {
      if (r.metadata.deletionTimestamp) return await this.#delete(r, spec, ctx);
      if (isFinal(phase)) return await this.#finished(r, spec, log);
      return await this.#run(r, spec, ctx);
    } catch (e) {
      // Our own writes of this reconcile are what the status shows now.
      const latest = this.#o.informer.get(ctx.key);
      return this.#failed(latest ? this.#written.current(ctx.key, latest) : r, e, log);
    }
  }

  // -------------------------------------------------------------------------------------------
  // the run

  async #run(r: ManagedObject, spec: S, ctx: ReconcileContext): Promise<Result> {
    const ext = this.#o.external;
    const conn = await this.#o.connections.resolve(r.metadata.namespace ?? "", spec.connectionRef);
    const harbor = this.#o.connections.harborOf(conn);
    const st = statusOf(r);
    const base = { resource: r, spec, conn, logger: ctx.logger, signal: ctx.signal };
    const name = (id: number | undefined) => ext.name(base, id);
    if (
      st.harborUrl !== undefined &&
      st.harborUrl !== harbor &&
      (st.harborId !== undefined || st.startRequest)
    )
      throw new Stalled(
        HARBOR_CHANGED,
        `${name(st.harborId)} belongs to Harbor ${st.harborUrl}, and the connection now reaches ${harbor}: a run is neither followed nor started again in another Harbor. Delete this run; create another for ${harbor}`,
      );
    const input: RunInput<S, C, X> = { ...base, extra: await ext.prepare(base) };
    let id = st.harborId;
    let execution: E | undefined;
    let startedNow = false;
    if (id === undefined && st.startRequest) {
      // Interrupted between the start request and recording its answer: did the start happen?
      execution = await this.#findStarted(input, harbor, st.startRequest.afterId);
      if (execution) {
        id = ext.id(execution);
        input.resource = await this.#recordId(input.resource, id, harbor, `${name(id)} runs in Harbor`);
        this.#o.events.record(
          input.resource,
          "Normal",
          "ExecutionFound",
          `${name(id)} was started for this run before the operator could record it (it was interrupted): following it instead of starting another`,
        );
      }
    }
    if (id === undefined) {
      const blocked = await ext.blocker?.(input);
      if (blocked) throw new NotReady(blocked.reason, blocked.message);
      input.resource = await this.#writes.ensureFinalizer(input.resource);
      const afterId = st.startRequest?.afterId ?? (await ext.newestId(input));
      input.resource = await this.#recordStartRequest(input.resource, harbor, afterId);
      id = await ext.start(input);
      // The first thing after the start: its id, so that no later failure can lose it.
      input.resource = await this.#recordId(input.resource, id, harbor, `${name(id)} started in Harbor`);
      this.#o.events.record(input.resource, "Normal", "Started", `Started ${name(id)} in Harbor ${harbor}`);
      startedNow = true;
    }
    execution ??= await ext.get(input, id);
    // An execution just accepted may not be readable yet: look again before calling it lost.
    if (!execution && startedNow) return { requeueAfterMs: FOLLOW_MIN_MS };
    if (!execution) {
      const message = `Harbor ${harbor} no longer has ${name(id)} (deleted with its policy, or removed by Harbor's sweep of old executions): how it ended is unknown`;
      const r2 = await this.#write(input.resource, {
        phase: "Failed",
        ready: { status: "False", reason: EXECUTION_LOST, message },
        stalled: true,
      });
      this.#o.events.record(r2, "Warning", EXECUTION_LOST, message);
      return this.#finished(r2, spec, ctx.logger);
    }
    const out = ext.outcome(input, execution);
    if (!isFinal(out.phase)) {
      const r2 = await this.#write(input.resource, {
        phase: "Running",
        ready: { status: "False", reason: "Running", message: out.message },
        fields: out.status,
      });
      return { requeueAfterMs: this.#followDelay(r2) };
    }
    let details: Record<string, unknown> = {};
    if (ext.details) {
      try {
        details = await ext.details(input, execution, out.phase);
      } catch (e) {
        ctx.logger.warn(
          { err: e instanceof Error ? e.message : String(e) },
          "could not read the run's details",
        );
      }
    }
    const succeeded = out.phase === "Succeeded";
    const r2 = await this.#write(input.resource, {
      phase: out.phase,
      ready: { status: succeeded ? "True" : "False", reason: out.phase, message: out.message },
      stalled: !succeeded,
      fields: { ...out.status, ...details },
    });
    const normal = succeeded || out.phase === "Stopped";
    this.#o.events.record(r2, normal ? "Normal" : "Warning", out.phase, out.message);
    return this.#finished(r2, spec, ctx.logger);
  }

  /**
   * The execution an interrupted start of this run created, if any: the oldest candidate above
   * the recorded id that no other run of this kind has recorded.
   */
  async #findStarted(input: RunInput<S, C, X>, harbor: string, afterId: number): Promise<E | undefined> {
    const ext = this.#o.external;
    const own = objectKey(input.resource);
    const taken = new Set<number>();
    for (const other of this.#o.informer.list()) {
      const key = objectKey(other);
      const st = statusOf(other);
      if (key !== own && st.harborId !== undefined && st.harborUrl === harbor) taken.add(st.harborId);
    }
    for (const [key, rec] of this.#recorded) if (key !== own && rec.harbor === harbor) taken.add(rec.id);
    const candidates = (await ext.startedAfter(input, afterId)).filter(
      (e) => ext.id(e) > afterId && !taken.has(ext.id(e)),
    );
    return candidates.sort((a, b) => ext.id(a) - ext.id(b))[0];
  }

  /** When to look at a running execution again: a quarter of its running time, 1 s to followMaxMs. */
  #followDelay(r: ManagedObject): number {
    const st = statusOf(r);
    const since = Date.parse(st.startRequest?.time ?? st.startTime ?? "");
    const ran = Number.isNaN(since) ? 0 : Math.max(0, this.#o.now() - since);
    return Math.min(this.#o.followMaxMs ?? 5_000, Math.max(FOLLOW_MIN_MS, Math.round(ran / 4)));
  }

  /** A run that has ended: its finalizer goes, the status follows the generation, the TTL applies. */
  async #finished(r: ManagedObject, spec: S, log: Logger): Promise<Result> {
    const st = statusOf(r);
    if (st.observedGeneration !== r.metadata.generation) {
      // Only deletionPolicy and the TTL can change: the same conditions, for the new generation.
      const ready = findCondition(st.conditions, "Ready");
      r = await this.#write(r, {
        phase: st.phase ?? "Failed",
        ready: {
          status: ready?.status ?? "Unknown",
          reason: ready?.reason ?? (st.phase as string),
          message: ready?.message ?? "",
        },
        stalled: isTrue(st.conditions, "Stalled"),
      });
    }
    if (r.metadata.finalizers?.includes(FINALIZER)) {
      await this.#release(r, log, "the run has ended");
      const latest = this.#o.informer.get(objectKey(r));
      r = latest ? this.#written.current(objectKey(r), latest) : r;
    }
    const ttl = spec.ttlSecondsAfterFinished;
    if (ttl === undefined) return {};
    const due = this.#endedAt(r) + ttl * 1000 - this.#o.now();
    if (due > 0) return { requeueAfterMs: due };
    this.#o.events.record(
      r,
      "Normal",
      "Expired",
      `Deleting this run: it ended and ttlSecondsAfterFinished (${ttl} s) has passed`,
    );
    await this.#o.kube.delete(this.#o.type, r.metadata.namespace, r.metadata.name, r.metadata.uid);
    log.info({ ttl }, "deleted a finished run: its ttlSecondsAfterFinished passed");
    return {};
  }

  /** When the operator saw the run end: the transition of Ready (success) or Stalled (the rest). */
  #endedAt(r: ManagedObject): number {
    const st = statusOf(r);
    const c = findCondition(st.conditions, st.phase === "Succeeded" ? "Ready" : "Stalled");
    const t = Date.parse(c?.lastTransitionTime ?? "");
    return Number.isNaN(t) ? this.#o.now() : t;
  }

  async #delete(r: ManagedObject, spec: S, ctx: ReconcileContext): Promise<Result> {
    const log = ctx.logger;
    if (!r.metadata.finalizers?.includes(FINALIZER)) return {};
    const st = statusOf(r);
    if (isFinal(st.phase) || (st.harborId === undefined && !st.startRequest))
      return this.#release(r, log, "nothing runs");
    const ext = this.#o.external;
    const conn = await this.#o.connections.resolve(r.metadata.namespace ?? "", spec.connectionRef);
    const harbor = this.#o.connections.harborOf(conn);
    const base = { resource: r, spec, conn, logger: log, signal: ctx.signal };
    if (spec.deletionPolicy === "Orphan") {
      this.#o.events.record(
        r,
        "Normal",
        "Orphaned",
        `Left ${ext.name(base, st.harborId)} to run on in Harbor (deletionPolicy Orphan)`,
      );
      return this.#release(r, log, "orphaned");
    }
    if (st.harborUrl !== undefined && st.harborUrl !== harbor)
      return this.#release(r, log, "its execution is in a Harbor the connection no longer reaches");
    const input: RunInput<S, C, X> = { ...base, extra: await ext.prepare(base) };
    const execution =
      st.harborId !== undefined
        ? await ext.get(input, st.harborId)
        : await this.#findStarted(input, harbor, st.startRequest?.afterId ?? 0);
    if (execution && !isFinal(ext.outcome(input, execution).phase)) {
      await ext.stop(input, execution);
      this.#o.events.record(
        r,
        "Normal",
        "StopRequested",
        `Asked Harbor to stop ${ext.name(base, ext.id(execution))}: this run was deleted (deletionPolicy Delete)`,
      );
    }
    return this.#release(r, log, "deleted");
  }

  async #failed(r: ManagedObject, e: unknown, log: Logger): Promise<Result> {
    const phase = statusOf(r).phase ?? "Pending";
    if (r.metadata.deletionTimestamp && (e instanceof NotReady || e instanceof Stalled))
      e.message = `deletion pending: ${e.message}. The resource goes once that is resolved; to let it go without stopping the execution, set spec.deletionPolicy: Orphan`;
    if (e instanceof NotReady) {
      log.debug({ reason: e.reason, message: e.message }, "waiting");
      if (e.quiet) return { requeueAfterMs: QUIET_WAIT_RETRY_MS };
      // A run applied together with its policy usually waits a moment for it: not worth a status.
      const age = this.#o.now() - Date.parse(r.metadata.creationTimestamp ?? "");
      if (e.reason === DEPENDENCY_NOT_READY && age < DEPENDENCY_GRACE_MS && !statusOf(r).conditions?.length)
        return { requeueAfterMs: QUIET_WAIT_RETRY_MS };
      await this.#write(r, { phase, ready: { status: "False", reason: e.reason, message: e.message } });
      return { requeueAfterMs: this.#o.waitRetryMs ?? 5_000 };
    }
    if (e instanceof Stalled) {
      await this.#trouble(r, phase, { status: "False", reason: e.reason, message: e.message }, true);
      throw new TerminalError(e.message);
    }
    if (isKubeError(e, "conflict")) throw e; // a stale write: retry with fresh state
    const c = this.#o.errors.classify(e);
    if (c) {
      await this.#trouble(r, phase, { status: "False", reason: c.reason, message: c.message }, c.terminal);
      if (c.terminal) throw new TerminalError(c.message);
      throw c.retryAfterMs === undefined
        ? new Error(c.message, { cause: e })
        : new RetryAfter(c.message, c.retryAfterMs, { cause: e });
    }
    const message = e instanceof Error ? e.message : String(e);
    await this.#trouble(r, phase, { status: "False", reason: "Error", message }, false).catch(
      () => undefined,
    );
    throw e;
  }

  /** A failure shown in status, with a Warning Event when its reason is new. */
  async #trouble(r: ManagedObject, phase: RunPhase, ready: Ready, stalled: boolean): Promise<void> {
    const was = findCondition(statusOf(r).conditions, "Ready");
    const written = await this.#write(r, { phase, ready, stalled });
    if (was?.reason !== ready.reason) this.#o.events.record(written, "Warning", ready.reason, ready.message);
  }

  // -------------------------------------------------------------------------------------------
  // Kubernetes writes

  /** Writes phase, conditions and the kind's fields, only when they differ from what is shown. */
  async #write(
    r: ManagedObject,
    o: { phase: RunPhase; ready: Ready; stalled?: boolean; fields?: Record<string, unknown> },
  ): Promise<ManagedObject> {
    const generation = r.metadata.generation;
    const old = statusOf(r);
    const now = () => this.#nowText();
    let conditions = setCondition(old.conditions, { type: "Ready", ...o.ready }, generation, now);
    conditions = o.stalled
      ? setCondition(conditions, { type: "Stalled", status: "True", ...reasonOf(o.ready) }, generation, now)
      : conditions.filter((c) => c.type !== "Stalled");
    conditions = withReconciling(conditions, generation, now);
    const next: RunStatus = {
      ...old,
      ...o.fields,
      phase: o.phase,
      observedGeneration: generation as number,
      conditions,
    };
    for (const [k, v] of Object.entries(next)) if (v === undefined) delete next[k];
    if (jsonEqual(old, next)) return r;
    return this.#writes.patchStatus(r, statusPatch(old, next));
  }

  /**
   * The start request, before it is sent: written against the version this reconcile read, so
   * that a stale view (one that misses an id recorded since) fails here instead of starting twice.
   */
  #recordStartRequest(r: ManagedObject, harbor: string, afterId: number): Promise<ManagedObject> {
    return this.#writes.patchStatus(
      r,
      { phase: "Pending", harborUrl: harbor, startRequest: { time: this.#nowText(), afterId } },
      true,
    );
  }

  /**
   * The execution's id, with nothing but what follows from it (phase Running, its conditions):
   * one write, the first after the start.
   */
  async #recordId(r: ManagedObject, id: number, harbor: string, message: string): Promise<ManagedObject> {
    this.#recorded.set(objectKey(r), { harbor, id });
    return this.#write(r, {
      phase: "Running",
      ready: { status: "False", reason: "Running", message },
      fields: { harborId: id, harborUrl: harbor },
    });
  }

  async #release(r: ManagedObject, log: Logger, why: string): Promise<Result> {
    if (await this.#writes.releaseFinalizer(r)) log.info({ why }, "finalizer removed");
    return {};
  }

  /** The clock's time as Kubernetes writes it: RFC 3339, whole seconds. */
  #nowText(): string {
    return new Date(this.#o.now()).toISOString().replace(/\.\d+Z$/, "Z");
  }
}

function reasonOf(ready: Ready): { reason: string; message: string } {
  return { reason: ready.reason, message: ready.message };
}

// -------------------------------------------------------------------------------------------------
// wiring

export interface RunKindOptions<S extends RunSpec, E, C, X>
  extends Omit<RunReconcilerOptions<S, E, C, X>, "informer" | "now"> {
  now?: () => number;
  logger: Logger;
  metrics?: Metrics;
  workers: number;
  reconcileTimeoutMs?: number;
  /** The informer to use (shared with kinds that read this one's cache). */
  informer: Informer<ManagedObject>;
}

/** One run kind: its informer, its RunReconciler, and a Controller with N workers. No drift sweep:
 * a running execution is followed by requeues, an ended one never changes. */
export class RunKind<S extends RunSpec, E, C, X> {
  readonly type: ResourceType;
  readonly informer: Informer<ManagedObject>;
  readonly reconciler: RunReconciler<S, E, C, X>;
  readonly controller: Controller;
  readonly #stop = new AbortController();

  constructor(o: RunKindOptions<S, E, C, X>) {
    this.type = o.type;
    this.informer = o.informer;
    this.reconciler = new RunReconciler({ ...o, now: o.now ?? Date.now });
    this.controller = kindController(o, this.reconciler, this.informer);
  }

  /** Queues every resource matching the predicate. */
  enqueueWhere(predicate: (obj: ManagedObject) => boolean): void {
    enqueueMatching(this.informer, this.controller, predicate);
  }

  /** Starts the workers once `gate` resolves (the informer is started by whoever shares it). */
  start(gate: Promise<unknown> = Promise.resolve()): void {
    this.informer.start();
    void gate.then(() => {
      if (!this.#stop.signal.aborted) this.controller.start();
    });
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.controller.stop();
    await this.informer.stop();
  }
}
