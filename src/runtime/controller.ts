// A controller: N workers take keys from one work queue and reconcile them. The reconcile contract:
// - resolve with a Result: the key's backoff is forgotten; requeueAfterMs schedules the next run;
// - throw a TerminalError: nothing a retry can fix (the reconciler has recorded why); no retry;
// - throw anything else: retried with per-key exponential backoff (a RetryAfter waits at least its
//   retryAfterMs, e.g. Harbor's Retry-After).
// Each reconcile runs with a deadline (its AbortSignal fires) and a child logger carrying a
// reconcile id. A reconcile that overruns its deadline keeps its key until it settles, so a key
// is never reconciled twice at once, while the worker moves on.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { logScope } from "../log.ts";
import type { Metrics } from "./metrics.ts";
import { WorkQueue } from "./workqueue.ts";

export interface Result {
  requeueAfterMs?: number;
}

/** An error that retrying cannot fix; the reconciler has already written it to the status. */
export class TerminalError extends Error {
  override readonly name = "TerminalError";
}

/**
 * A failure to retry no sooner than `retryAfterMs` (e.g. Harbor's Retry-After); the per-key backoff
 * still applies when it is longer.
 */
export class RetryAfter extends Error {
  override readonly name = "RetryAfter";
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number, options?: ErrorOptions) {
    super(message, options);
    this.retryAfterMs = retryAfterMs;
  }
}

export interface ReconcileContext {
  key: string;
  reconcileId: string;
  logger: Logger;
  /** Fires at the reconcile deadline or on shutdown. */
  signal: AbortSignal;
}

export interface Reconciler {
  reconcile(ctx: ReconcileContext): Promise<Result>;
}

export interface ControllerOptions {
  /** The controller's name in logs and metrics, e.g. "harborproject". */
  name: string;
  reconciler: Reconciler;
  logger: Logger;
  metrics?: Metrics;
  workers?: number;
  /** Deadline per reconcile. Default 2 min. */
  reconcileTimeoutMs?: number;
  queue?: WorkQueue;
}

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #o: ControllerOptions;
  readonly #stop = new AbortController();
  #workers: Promise<void>[] = [];
  #active = 0;

  constructor(o: ControllerOptions) {
    this.name = o.name;
    this.#o = o;
    const m = o.metrics;
    m?.initController(o.name);
    const labels = { name: o.name, controller: o.name };
    this.queue =
      o.queue ??
      new WorkQueue(undefined, {
        onAdd: () => {
          m?.queueAdds.inc(labels);
          m?.queueDepth.set(labels, this.queue.length + 1);
        },
        onGet: (_key, waitedMs) => {
          m?.queueLatency.observe(labels, waitedMs / 1000);
          m?.queueDepth.set(labels, this.queue.length);
        },
      });
  }

  /** Queues a key (handlers of informers call this; they never reconcile themselves). */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  start(): void {
    const workers = this.#o.workers ?? 2;
    this.#o.metrics?.maxConcurrentReconciles.set({ controller: this.name }, workers);
    for (let i = 0; i < workers; i++) this.#workers.push(this.#work());
  }

  /** Stops taking keys, aborts running reconciles' signals, and waits for them to settle. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.queue.drain();
    await Promise.all(this.#workers);
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      await this.#process(key);
    }
  }

  async #process(key: string): Promise<void> {
    const m = this.#o.metrics;
    const controller = this.name;
    const reconcileId = randomUUID();
    const logger = this.#o.logger.child({ controller, key, reconcileId });
    const timeoutMs = this.#o.reconcileTimeoutMs ?? 120_000;
    // One controller per reconcile, aborted at its deadline or on shutdown; both hooks are removed
    // when it settles, so nothing of a finished reconcile stays reachable.
    const abort = new AbortController();
    const onStop = () => abort.abort(this.#stop.signal.reason);
    this.#stop.signal.addEventListener("abort", onStop, { once: true });
    const deadlineTimer = setTimeout(
      () => abort.abort(new DOMException("the reconcile's deadline passed", "TimeoutError")),
      timeoutMs,
    );
    const signal = abort.signal;
    const started = performance.now();
    this.#active++;
    m?.activeWorkers.set({ controller }, this.#active);

    const run = logScope.run({ controller, key, reconcileId }, () =>
      this.#o.reconciler.reconcile({ key, reconcileId, logger, signal }),
    );
    const settle = run
      .then(
        (result) => this.#succeeded(key, result, logger),
        (err: unknown) => this.#failed(key, err, logger),
      )
      .finally(() => {
        clearTimeout(deadlineTimer);
        this.#stop.signal.removeEventListener("abort", onStop);
      });
    let overran = false;
    const deadline = new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        overran = true;
        resolve();
      }, timeoutMs + 1000);
      void settle.finally(() => clearTimeout(t));
    });
    await Promise.race([settle, deadline]);

    const finish = () => {
      const seconds = (performance.now() - started) / 1000;
      m?.reconcileTime.observe({ controller }, seconds);
      m?.workDuration.observe({ name: controller, controller }, seconds);
      this.queue.done(key);
    };
    this.#active--;
    m?.activeWorkers.set({ controller }, this.#active);
    if (overran) {
      logger.error({ timeoutMs }, "reconcile overran its deadline; its key stays busy until it settles");
      void settle.finally(finish);
    } else finish();
  }

  #succeeded(key: string, result: Result, logger: Logger): void {
    const m = this.#o.metrics;
    this.queue.forget(key);
    this.queue.cancelDelayed(key);
    if (result.requeueAfterMs !== undefined && result.requeueAfterMs >= 0) {
      this.queue.addAfter(key, result.requeueAfterMs);
      m?.reconcileTotal.inc({ controller: this.name, result: "requeue_after" });
    } else m?.reconcileTotal.inc({ controller: this.name, result: "success" });
    logger.debug({ requeueAfterMs: result.requeueAfterMs }, "reconciled");
  }

  #failed(key: string, err: unknown, logger: Logger): void {
    const m = this.#o.metrics;
    m?.reconcileTotal.inc({ controller: this.name, result: "error" });
    m?.reconcileErrors.inc({ controller: this.name });
    this.queue.cancelDelayed(key);
    if (err instanceof TerminalError) {
      m?.terminalReconcileErrors.inc({ controller: this.name });
      this.queue.forget(key);
      logger.warn({ err: err.message }, "reconcile failed terminally; waiting for a change");
      return;
    }
    m?.queueRetries.inc({ name: this.name, controller: this.name });
    this.queue.addRateLimited(key, err instanceof RetryAfter ? err.retryAfterMs : 0);
    logger.warn(
      { err: err instanceof Error ? err.message : String(err), retries: this.queue.retries(key) },
      "reconcile failed; will retry",
    );
  }
}
