// Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics, so that of
// several operator instances exactly one works and another takes over when it goes away:
// - a candidate takes the Lease when nobody holds it (empty holderIdentity) or when the holder's
//   record has not changed for leaseDurationSeconds. That time is measured on this process's own
//   clock from when it last saw the record change, never by comparing renewTime with our clock,
//   so clock skew between nodes does not matter;
// - the leader renews every retry period; when it has not renewed for the renew deadline, or sees
//   another holder, it stops leading at once (onStoppedLeading: the operator exits and restarts
//   clean) — a leader that cannot renew must stop before others may take over;
// - every write carries the Lease's resourceVersion; a 409 means someone else wrote it meanwhile,
//   so the Lease is read again and the decision taken again;
// - leaseTransitions counts changes of holder;
// - stop() lets the leading work wind down while still renewing, then releases the Lease (empty
//   holder) so that a standby takes over within one retry period instead of a lease duration.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { KubeClient } from "../kube/client.ts";
import { isKubeError } from "../kube/errors.ts";
import { type LeaseObject, Leases } from "../kube/types.ts";
import type { Metrics } from "./metrics.ts";

export interface LeaderElectorOptions {
  kube: KubeClient;
  /** The Lease's namespace and name. */
  namespace: string;
  name: string;
  /** Unique per process: see leaderIdentity(). */
  identity: string;
  /** How long others wait after the last change of the record before taking over. Default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader keeps failing to renew before it stops leading. Default 10 s. */
  renewDeadlineMs?: number;
  /** Pause between attempts to acquire or renew. Default 2 s. */
  retryPeriodMs?: number;
  logger: Logger;
  metrics?: Metrics;
}

export interface LeaderCallbacks {
  /**
   * Called once this process leads. `signal` aborts when leadership ends (lost, or stop()); the
   * returned promise should settle once the work has wound down: stop() releases the Lease only
   * after that, so no two instances work at once. A rejection before `signal` aborts counts as a
   * failure of the leader: the Lease is released and onStoppedLeading is called.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Leadership was lost (renewal failed, another holder, or onStartedLeading failed). Not called after stop(). */
  onStoppedLeading?(): void;
  /** Another holder was observed (including this process when it takes over). */
  onNewLeader?(identity: string): void;
}

/** The identity of this process: the pod's name (or host name) and a random suffix, as client-go's users do. */
export function leaderIdentity(podName?: string): string {
  return `${podName || hostname()}_${randomUUID()}`;
}

type Attempt = "held" | "other" | "failed";
type Outcome = "stopped" | "lost" | "failed";

/** A conservative bound on how far retries are stretched by jitter (client-go's JitterFactor). */
const JITTER_FACTOR = 1.2;

export class LeaderElector {
  readonly identity: string;
  readonly #o: LeaderElectorOptions;
  readonly #log: Logger;
  readonly #leaseDurationSeconds: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  /** Stops the campaign and renew loop. */
  readonly #loop = new AbortController();
  /** The last record seen, and when (local monotonic clock) it was first seen in this form. */
  #observed: { lease: LeaseObject; record: string; at: number } | undefined;
  #leader = false;
  #running: Promise<void> | undefined;
  #stopping: { release: boolean } | undefined;
  #leadership: AbortController | undefined;
  /** The leading work's promise; never rejects. */
  #work: Promise<void> | undefined;

  constructor(o: LeaderElectorOptions) {
    const leaseDurationMs = o.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = o.retryPeriodMs ?? 2_000;
    if (!o.identity) throw new Error("leader election needs an identity");
    if (leaseDurationMs <= this.#renewDeadlineMs)
      throw new Error("lease duration must exceed the renew deadline");
    if (this.#renewDeadlineMs <= this.#retryPeriodMs * JITTER_FACTOR)
      throw new Error(`renew deadline must exceed ${JITTER_FACTOR} × the retry period`);
    this.#o = o;
    this.identity = o.identity;
    this.#leaseDurationSeconds = Math.max(1, Math.ceil(leaseDurationMs / 1000));
    this.#log = o.logger.child({ lease: `${o.namespace}/${o.name}`, identity: o.identity });
    this.#setLeader(false);
  }

  /** Whether this process currently holds the Lease and does the work. */
  get isLeader(): boolean {
    return this.#leader;
  }

  /** The holder last seen on the Lease ("" when released), if it has been read. */
  get observedLeader(): string | undefined {
    return this.#observed ? (this.#observed.lease.spec?.holderIdentity ?? "") : undefined;
  }

  /**
   * Campaigns for the Lease and leads once it is acquired. Resolves when the elector has ended:
   * after stop(), or after leadership was lost. An elector runs once.
   */
  run(callbacks: LeaderCallbacks): Promise<void> {
    if (this.#running) throw new Error("a LeaderElector runs only once");
    this.#running = this.#campaign(callbacks);
    return this.#running;
  }

  /**
   * Ends the election. With release (the default): aborts the leading signal, waits for the work
   * to settle while still renewing, then gives the Lease up. Without: stops at once and leaves
   * the Lease as it is, as a killed process would.
   */
  async stop(o: { release?: boolean } = {}): Promise<void> {
    if (!this.#stopping) {
      this.#stopping = { release: o.release ?? true };
      if (this.#stopping.release) {
        this.#leadership?.abort();
        await this.#work;
      }
      this.#loop.abort();
      this.#leadership?.abort();
    }
    await this.#running;
  }

  async #campaign(callbacks: LeaderCallbacks): Promise<void> {
    const loop = this.#loop.signal;
    this.#log.info("waiting to acquire the lease");
    let acquired = false;
    while (!loop.aborted) {
      acquired = (await this.#attempt(this.#renewDeadlineMs, callbacks)) === "held";
      if (acquired) break;
      await sleep(this.#retryPeriodMs * (1 + Math.random() * JITTER_FACTOR), loop);
    }
    if (loop.aborted) {
      // stop() came while a last attempt was in flight and that attempt won.
      if (acquired && this.#stopping?.release) await this.#release();
      return;
    }

    this.#setLeader(true);
    this.#log.info("acquired the lease; leading");
    const outcome = await this.#lead(callbacks);
    this.#setLeader(false);
    this.#leadership?.abort();
    if (outcome === "lost") {
      this.#log.error("lost the lease; stopping work");
      // During stop() the process is on its way out already; do not cut its shutdown short.
      if (!this.#stopping) this.#notifyStopped(callbacks);
      await this.#work;
    } else if (outcome === "failed") {
      await this.#release();
      this.#notifyStopped(callbacks);
    } else if (this.#stopping?.release) {
      await this.#release();
    } else this.#log.info("stopped without releasing the lease");
  }

  /** Starts the work and renews until stopped or unable to; says why it ended. */
  async #lead(callbacks: LeaderCallbacks): Promise<Outcome> {
    const leadership = new AbortController();
    const failed = new AbortController();
    this.#leadership = leadership;
    this.#work = Promise.resolve()
      .then(() => callbacks.onStartedLeading(leadership.signal))
      .then(
        () => undefined,
        (e: unknown) => {
          if (leadership.signal.aborted) this.#log.warn({ err: e }, "leading work failed while stopping");
          else {
            this.#log.error({ err: e }, "leading work failed; giving up leadership");
            failed.abort();
          }
        },
      );

    const wake = AbortSignal.any([this.#loop.signal, failed.signal]);
    let lastRenew = performance.now();
    for (;;) {
      await sleep(this.#retryPeriodMs, wake);
      if (failed.signal.aborted) return "failed";
      if (this.#loop.signal.aborted) return "stopped";
      const started = performance.now();
      const result = await this.#attempt(lastRenew + this.#renewDeadlineMs - started, callbacks);
      if (result === "held") lastRenew = started;
      else if (result === "other") return "lost";
      else if (performance.now() - lastRenew >= this.#renewDeadlineMs) {
        this.#log.error(
          { renewDeadlineMs: this.#renewDeadlineMs },
          "could not renew the lease within the renew deadline",
        );
        return "lost";
      }
    }
  }

  /**
   * One try to acquire or renew: "held" when the Lease is ours now, "other" when another holder's
   * lease is still valid, "failed" when the apiserver could not be reached in time or kept
   * answering with conflicts.
   */
  async #attempt(timeoutMs: number, callbacks: LeaderCallbacks): Promise<Attempt> {
    const deadline = performance.now() + timeoutMs;
    const left = () => deadline - performance.now();
    try {
      // The leader renews from its last write without reading first; a 409 sends it to read.
      let lease = this.#leader ? this.#observed?.lease : undefined;
      for (let tries = 0; tries < 3; tries++) {
        if (!lease) {
          lease = await bounded(
            () => this.#o.kube.find<LeaseObject>(Leases, this.#o.namespace, this.#o.name),
            left(),
          );
          if (!lease) {
            try {
              this.#observe(
                await bounded(() => this.#o.kube.create(Leases, this.#newLease()), left()),
                callbacks,
              );
              return "held";
            } catch (e) {
              if (!isKubeError(e, "conflict")) throw e;
              this.#log.debug("the lease was created meanwhile; reading it");
              continue;
            }
          }
          this.#observe(lease, callbacks);
        }
        const holder = lease.spec?.holderIdentity ?? "";
        if (holder !== "" && holder !== this.identity && this.#observedValid()) return "other";
        const claim = this.#claim(lease);
        try {
          this.#observe(await bounded(() => this.#o.kube.replace(Leases, claim), left()), callbacks);
          return "held";
        } catch (e) {
          if (!isKubeError(e, "conflict")) throw e;
          this.#log.debug("the lease changed meanwhile; reading it again");
          lease = undefined;
        }
      }
      return "failed";
    } catch (e) {
      this.#log.warn(
        { err: errorText(e) },
        this.#leader ? "could not renew the lease" : "could not read or take the lease",
      );
      return "failed";
    }
  }

  /** Gives the Lease up if it is still ours, so that a standby takes over at once. Never throws. */
  async #release(): Promise<void> {
    try {
      const lease = await bounded(
        () => this.#o.kube.find<LeaseObject>(Leases, this.#o.namespace, this.#o.name),
        this.#renewDeadlineMs,
      );
      if (!lease || lease.spec?.holderIdentity !== this.identity) return;
      const now = microTime(new Date());
      // As client-go: no holder, a one-second duration, transitions kept.
      const released: LeaseObject = {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: "",
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
        },
      };
      await bounded(() => this.#o.kube.replace(Leases, released), this.#renewDeadlineMs);
      this.#log.info("released the lease");
    } catch (e) {
      this.#log.warn({ err: errorText(e) }, "could not release the lease; others take over when it expires");
    }
  }

  #newLease(): LeaseObject {
    const now = microTime(new Date());
    return {
      metadata: { name: this.#o.name, namespace: this.#o.namespace },
      spec: {
        holderIdentity: this.identity,
        leaseDurationSeconds: this.#leaseDurationSeconds,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      },
    };
  }

  /** The Lease as this process holding it: renewed if it held it already, else taken over. */
  #claim(lease: LeaseObject): LeaseObject {
    const now = microTime(new Date());
    const spec = lease.spec ?? {};
    const mine = spec.holderIdentity === this.identity;
    return {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: this.identity,
        leaseDurationSeconds: this.#leaseDurationSeconds,
        acquireTime: mine ? (spec.acquireTime ?? now) : now,
        renewTime: now,
        leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      },
    };
  }

  /** Records what was read or written; the expiry clock restarts whenever the record changed. */
  #observe(lease: LeaseObject, callbacks: LeaderCallbacks): void {
    const s = lease.spec ?? {};
    const record = JSON.stringify([
      s.holderIdentity ?? "",
      s.leaseDurationSeconds,
      s.acquireTime,
      s.renewTime,
      s.leaseTransitions,
    ]);
    const before = this.#observed;
    if (before?.record === record) {
      this.#observed = { ...before, lease };
      return;
    }
    this.#observed = { lease, record, at: performance.now() };
    const holder = s.holderIdentity ?? "";
    if (holder !== "" && holder !== (before?.lease.spec?.holderIdentity ?? "")) {
      this.#log.info({ holder }, "new leader observed");
      try {
        callbacks.onNewLeader?.(holder);
      } catch (e) {
        this.#log.error({ err: errorText(e) }, "onNewLeader failed");
      }
    }
  }

  /** Whether the observed holder's lease has not yet expired, by this process's clock. */
  #observedValid(): boolean {
    if (!this.#observed) return false;
    const seconds = this.#observed.lease.spec?.leaseDurationSeconds ?? this.#leaseDurationSeconds;
    return this.#observed.at + seconds * 1000 > performance.now();
  }

  #setLeader(leader: boolean): void {
    this.#leader = leader;
    this.#o.metrics?.leaderStatus.set({ name: this.#o.name }, leader ? 1 : 0);
  }

  #notifyStopped(callbacks: LeaderCallbacks): void {
    try {
      callbacks.onStoppedLeading?.();
    } catch (e) {
      this.#log.error({ err: errorText(e) }, "onStoppedLeading failed");
    }
  }
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
function microTime(d: Date): string {
  return d.toISOString().replace(/Z$/, "000Z");
}

/**
 * Waits at most `ms` for a call. KubeClient's verbs take no AbortSignal, so a call that overruns
 * is left to finish (its result ignored) rather than cancelled.
 */
async function bounded<T>(call: () => Promise<T>, ms: number): Promise<T> {
  if (ms <= 0) throw new Error("no time left for the call");
  const p = call();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms)} ms`)), ms);
  });
  p.catch(() => {}); // an overrun call's late failure is not unhandled
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
