// Wires one managed kind: its informer, its ManagedReconciler, a Controller with N workers, which
// changes queue a reconcile, and the periodic drift sweep. The same few lines for every kind.
import type { Logger } from "pino";
import type { KubeClient } from "../kube/client.ts";
import { type KubeObject, objectKey, type ResourceType } from "../kube/types.ts";
import { Controller, type Reconciler } from "./controller.ts";
import type { HarborId, ManagedObject, ManagedSpec } from "./external-client.ts";
import { Informer } from "./informer.ts";
import { ManagedReconciler, type ManagedReconcilerOptions } from "./managed.ts";
import type { Metrics } from "./metrics.ts";

export interface ManagedKindOptions<S extends ManagedSpec, O, C, X, Id extends HarborId = number>
  extends Omit<ManagedReconcilerOptions<S, O, C, X, Id>, "informer" | "now"> {
  /** The lifecycle's clock; default the system's. */
  now?: () => number;
  logger: Logger;
  metrics?: Metrics;
  workers: number;
  reconcileTimeoutMs?: number;
  /** How often the drift sweep reads Harbor; each run is jittered by ±10 %. */
  driftIntervalMs: number;
  namespaces?: readonly string[];
  labelSelector?: string;
  /** The informer to use instead of a new one (shared with kinds that follow references). */
  informer?: Informer<ManagedObject>;
}

/** Queue a reconcile for what the user or another controller changed, not for our own writes. */
export function needsReconcile(oldObj: KubeObject, newObj: KubeObject): boolean {
  const a = oldObj.metadata;
  const b = newObj.metadata;
  return (
    a.generation !== b.generation ||
    a.deletionTimestamp !== b.deletionTimestamp ||
    JSON.stringify(a.annotations ?? {}) !== JSON.stringify(b.annotations ?? {})
  );
}

/**
 * The Controller of one kind, fed by its informer: every resource added, and every change that
 * needs a reconcile (needsReconcile), queues its key. Managed and run kinds are wired alike.
 */
export function kindController(
  o: {
    type: ResourceType;
    logger: Logger;
    workers: number;
    metrics?: Metrics | undefined;
    reconcileTimeoutMs?: number | undefined;
  },
  reconciler: Reconciler,
  informer: Informer<ManagedObject>,
): Controller {
  const controller = new Controller({
    name: o.type.kind.toLowerCase(),
    reconciler,
    logger: o.logger,
    workers: o.workers,
    ...(o.metrics ? { metrics: o.metrics } : {}),
    ...(o.reconcileTimeoutMs ? { reconcileTimeoutMs: o.reconcileTimeoutMs } : {}),
  });
  const enqueue = (obj: KubeObject) => controller.enqueue(objectKey(obj));
  informer.on({
    add: enqueue,
    update: (oldObj, newObj) => {
      if (needsReconcile(oldObj, newObj)) enqueue(newObj);
    },
  });
  return controller;
}

/** Queues every resource of the informer matching the predicate (e.g. those referencing a changed object). */
export function enqueueMatching(
  informer: Informer<ManagedObject>,
  controller: Controller,
  predicate: (obj: ManagedObject) => boolean,
): void {
  for (const obj of informer.list()) if (predicate(obj)) controller.enqueue(objectKey(obj));
}

export class ManagedKind<S extends ManagedSpec, O, C, X, Id extends HarborId = number> {
  readonly type: ResourceType;
  readonly informer: Informer<ManagedObject>;
  readonly reconciler: ManagedReconciler<S, O, C, X, Id>;
  readonly controller: Controller;
  readonly #o: ManagedKindOptions<S, O, C, X, Id>;
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  readonly #stop = new AbortController();

  constructor(kube: KubeClient, o: ManagedKindOptions<S, O, C, X, Id>) {
    this.#o = o;
    this.type = o.type;
    this.informer =
      o.informer ??
      new Informer<ManagedObject>({
        client: kube,
        type: o.type,
        logger: o.logger,
        ...(o.namespaces ? { namespaces: o.namespaces } : {}),
        ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
      });
    this.reconciler = new ManagedReconciler({ ...o, informer: this.informer, now: o.now ?? Date.now });
    this.controller = kindController(o, this.reconciler, this.informer);
    this.reconciler.enqueue = (key) => this.controller.enqueue(key);
  }

  /** Queues every resource matching the predicate (e.g. those referencing a changed object). */
  enqueueWhere(predicate: (obj: ManagedObject) => boolean): void {
    enqueueMatching(this.informer, this.controller, predicate);
  }

  /**
   * Starts the informer at once, and the workers and the drift sweep once `gate` resolves (every
   * cache filled, every connection checked once), so that no reconcile judges from half a picture.
   * Before the workers, one drift sweep reads Harbor in lists and leaves what it saw to the
   * reconciles every resource gets at start: a restart then costs Harbor a list per project or
   * per kind, not a read per object.
   */
  start(gate: Promise<unknown> = Promise.resolve()): void {
    this.informer.start();
    void gate.then(async () => {
      if (this.#stop.signal.aborted) return;
      if (this.informer.list().length > 0) {
        this.#sweeping = this.reconciler
          .sweep(this.#o.logger.child({ sweep: true }), this.#stop.signal, { hintAll: true })
          .then(
            () => undefined,
            (e: unknown) =>
              this.#o.logger.warn(
                { err: e instanceof Error ? e.message : String(e) },
                "drift sweep at start failed",
              ),
          );
        await this.#sweeping;
        this.#sweeping = undefined;
        if (this.#stop.signal.aborted) return;
      }
      this.controller.start();
      this.#scheduleSweep();
    });
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    if (this.#sweepTimer) clearTimeout(this.#sweepTimer);
    await this.controller.stop();
    await this.#sweeping;
    await this.informer.stop();
  }

  /** Runs one drift sweep now (tests and the benchmark use it; normally it runs on a timer). */
  async sweepNow(): Promise<number> {
    return this.reconciler.sweep(this.#o.logger.child({ sweep: true }), this.#stop.signal);
  }

  #scheduleSweep(): void {
    const interval = this.#o.driftIntervalMs * (0.9 + Math.random() * 0.2);
    this.#sweepTimer = setTimeout(() => {
      // What a reconcile read within the last half interval is not read again (see DriftSweep): as
      // sweeps are at least 0.9 interval apart, one sweep at most leaves a resource out.
      this.#sweeping = this.reconciler
        .sweep(this.#o.logger.child({ sweep: true }), this.#stop.signal, {
          skipReadWithinMs: this.#o.driftIntervalMs / 2,
        })
        .then((queued) => {
          if (queued) this.#o.logger.info({ queued }, "drift sweep queued resources");
          // One line per sweep at debug level (the logger names the kind): what "nothing changed for
          // two sweeps" waits on.
          this.#o.logger.debug({ queued }, "drift sweep done");
        })
        .catch((e: unknown) =>
          this.#o.logger.warn({ err: e instanceof Error ? e.message : String(e) }, "drift sweep failed"),
        )
        .finally(() => {
          this.#sweeping = undefined;
          if (!this.#stop.signal.aborted) this.#scheduleSweep();
        });
    }, interval);
    this.#sweepTimer.unref?.();
  }
}
