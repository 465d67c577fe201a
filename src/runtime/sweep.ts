// The drift sweep of one managed kind: every so often, each resource Harbor should hold is read in
// batches (ExternalClient.observeMany: one list per connection, or per project) instead of one read
// per object, and only what differs from its spec or its status is queued. What the sweep read for
// a queued resource is kept for a few seconds as a hint, so that the reconcile it triggers starts
// from that observation instead of reading Harbor again. A resource whose own reconcile read Harbor
// within the last half interval is left out of the timed sweep: while many resources are created or
// changed, the sweep does not read again what was just read (a convergence longer than the interval
// would otherwise add a list per project for every interval it lasts). Each is still read within
// 1.6 intervals of its reconcile's read (half an interval, then at most 1.1 to the next sweep).

import type { Logger } from "pino";
import { PAUSED_ANNOTATION } from "../api/common.ts";
import { objectKey } from "../kube/types.ts";
import { jsonEqual } from "./conditions.ts";
import type {
  ConnectionResolver,
  ExternalClient,
  HarborId,
  Input,
  ManagedObject,
  ManagedSpec,
  ManagedStatus,
} from "./external-client.ts";
import type { SpecParse } from "./spec-parser.ts";

/** How long an observation of the drift sweep may stand in for the reconcile's own read. */
const HINT_TTL_MS = 10_000;

export interface DriftSweepOptions<S extends ManagedSpec, O, C, X, Id extends HarborId> {
  /** The kind's spec parser (parsed once per version). */
  parse: SpecParse<S>;
  /** The kind's resources, as its informer caches them. */
  list: () => ManagedObject[];
  external: ExternalClient<S, O, C, X, Record<string, unknown>, Id>;
  connections: ConnectionResolver<C>;
  /** Queues a resource's reconcile. */
  enqueue: (key: string) => void;
  now: () => number;
}

/**
 * The Harbor the recorded id belongs to, when the connection now reaches another one. The id is
 * then never used: nothing is read, updated or deleted by an id from another Harbor.
 */
export function harborMovedFrom(resource: ManagedObject, harbor: string): string | undefined {
  const recorded = resource.status?.harborUrl;
  return recorded !== undefined && recorded !== harbor ? recorded : undefined;
}

export class DriftSweep<S extends ManagedSpec, O, C, X, Id extends HarborId> {
  readonly #o: DriftSweepOptions<S, O, C, X, Id>;
  /** Observations of the last sweep, by resource key, for the reconciles it triggered. */
  readonly #hints = new Map<string, { observed: O; at: number; generation: number | undefined }>();
  /** When each resource's reconcile last read its object from Harbor itself (not from a hint). */
  readonly #readAt = new Map<string, number>();

  constructor(o: DriftSweepOptions<S, O, C, X, Id>) {
    this.#o = o;
  }

  /**
   * Reads Harbor for every resource that records an id and is settled (its generation applied, not
   * stalled, not paused), and queues those whose object differs or is gone. With `hintAll`, what
   * was read is kept for every resource, not only the queued ones (a restart's first sweep, whose
   * reconciles all come next). With `skipReadWithinMs`, a resource its reconcile read from Harbor
   * that recently is left out. Returns how many resources it queued.
   */
  async run(
    logger: Logger,
    signal: AbortSignal,
    o: { hintAll?: boolean; skipReadWithinMs?: number } = {},
  ): Promise<number> {
    const ext = this.#o.external;
    if (!ext.observeMany) return 0;
    const hintAll = o.hintAll === true;
    // Hints no reconcile took (it ended before reading Harbor: a conflict, say) are dropped here.
    const now = this.#o.now();
    for (const [key, hint] of this.#hints) if (now - hint.at >= HINT_TTL_MS) this.#hints.delete(key);
    const skipWithin = o.skipReadWithinMs;
    if (skipWithin !== undefined)
      for (const [key, at] of this.#readAt) if (now - at >= skipWithin) this.#readAt.delete(key);
    const groups = new Map<C, Input<S, C, X, Id>[]>();
    for (const resource of this.#o.list()) {
      const id = resource.status?.harborId as Id | undefined;
      if (id === undefined || resource.metadata.deletionTimestamp) continue;
      if (skipWithin !== undefined && this.#readAt.has(objectKey(resource))) continue;
      // A spec change not reconciled yet is queued already; its reconcile must observe (and check
      // the new spec against) Harbor itself rather than take a hint read for the old one.
      if (resource.status?.observedGeneration !== resource.metadata.generation) continue;
      // Stalled on this generation: only a change of the resource can help, not another write.
      const stalled = resource.status?.conditions?.find((c) => c.type === "Stalled");
      if (stalled?.status === "True" && stalled.observedGeneration === resource.metadata.generation) continue;
      if (resource.metadata.annotations?.[PAUSED_ANNOTATION] === "true") continue;
      const parsed = this.#o.parse(resource.spec);
      if (!parsed.success) continue;
      const spec = parsed.data;
      try {
        const conn = await this.#o.connections.resolve(resource.metadata.namespace ?? "", spec.connectionRef);
        if (harborMovedFrom(resource, this.#o.connections.harborOf(conn)) !== undefined) {
          this.#o.enqueue(objectKey(resource)); // its reconcile handles the move
          continue;
        }
        const base = {
          resource,
          spec,
          harborName: spec.name ?? resource.metadata.name,
          knownId: id,
          conn,
          logger,
          signal,
        };
        const extra = await ext.prepare(base);
        const list = groups.get(conn) ?? [];
        list.push({ ...base, extra });
        groups.set(conn, list);
      } catch {
        // Something it needs went away (a Secret, a reference): its own reconcile reports why.
        this.#o.enqueue(objectKey(resource));
      }
    }
    let queued = 0;
    for (const [conn, inputs] of groups) {
      let observed: Map<Id, O>;
      try {
        observed = await ext.observeMany(conn, inputs);
      } catch (e) {
        logger.warn({ err: e instanceof Error ? e.message : String(e) }, "drift sweep could not read Harbor");
        continue;
      }
      for (const input of inputs) {
        const o = observed.get(input.knownId as Id);
        const key = objectKey(input.resource);
        const stale =
          !o ||
          !(ext.identifies?.(input, o) ?? true) ||
          ext.diff(input, o).length > 0 ||
          !statusShows(input.resource.status, ext.status?.(input, o) ?? {});
        if (o && (stale || hintAll)) {
          const generation = input.resource.metadata.generation;
          this.#hints.set(key, { observed: o, at: this.#o.now(), generation });
        }
        if (!stale) continue;
        this.#o.enqueue(key);
        queued++;
      }
    }
    return queued;
  }

  /** The resource's reconcile has just read its object from Harbor (or created or updated it). */
  readByReconcile(key: string): void {
    this.#readAt.set(key, this.#o.now());
  }

  /** The resource is gone: its hint and read time go with it. */
  forget(key: string): void {
    this.#hints.delete(key);
    this.#readAt.delete(key);
  }

  /**
   * What the sweep read for this resource, once, while it is fresh and was read for the spec the
   * resource has now (a kind's observe also checks the spec against Harbor).
   */
  takeHint(resource: ManagedObject): O | undefined {
    const key = objectKey(resource);
    const hint = this.#hints.get(key);
    this.#hints.delete(key);
    const fresh = hint && this.#o.now() - hint.at < HINT_TTL_MS;
    return fresh && hint.generation === resource.metadata.generation ? hint.observed : undefined;
  }
}

function statusShows(status: ManagedStatus | undefined, fields: Record<string, unknown>): boolean {
  if (!status) return false;
  return Object.entries(fields).every(([k, v]) => jsonEqual(status[k], v));
}
