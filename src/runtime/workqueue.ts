// A work queue with client-go's semantics, the guarantees every controller here relies on:
// - a key waits in the queue at most once, however often it is added (dedup);
// - a key is never handed to two workers at once;
// - a key added while it is being processed is processed once more after `done`;
// - `addAfter` keeps the earliest requested time for a key;
// - shutdown stops new work; `drain` waits until every handed-out key is done.
// Keys are strings (kind/namespace/name), never objects: workers read the current state themselves.

export interface QueueHooks {
  /** Called when a key enters the queue (for metrics). */
  onAdd?(key: string): void;
  /** Called when a key leaves the queue for a worker, with the time it waited. */
  onGet?(key: string, waitedMs: number): void;
}

export class WorkQueue {
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  /** Keys queued again only because their delay came due while they were being processed. */
  readonly #dueWhileBusy = new Set<string>();
  readonly #addedAt = new Map<string, number>();
  readonly #waiters: Array<(key: string | undefined) => void> = [];
  readonly #delayed = new DelayHeap();
  readonly #rateLimiter: RateLimiter;
  readonly #hooks: QueueHooks;
  #timer: NodeJS.Timeout | undefined;
  #shuttingDown = false;
  readonly #drained: Array<() => void> = [];

  constructor(rateLimiter: RateLimiter = new DefaultRateLimiter(), hooks: QueueHooks = {}) {
    this.#rateLimiter = rateLimiter;
    this.#hooks = hooks;
  }

  /** Keys waiting (not counting delayed ones or those being processed). */
  get length(): number {
    return this.#queue.length;
  }

  get processing(): number {
    return this.#processing.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  add(key: string): void {
    this.#add(key, false);
  }

  #add(key: string, delayed: boolean): void {
    if (this.#shuttingDown) return;
    if (!delayed) this.#dueWhileBusy.delete(key); // a change to look at, whatever the timers say
    if (this.#dirty.has(key)) return;
    this.#dirty.add(key);
    this.#addedAt.set(key, performance.now());
    this.#hooks.onAdd?.(key);
    if (this.#processing.has(key)) {
      if (delayed) this.#dueWhileBusy.add(key);
      return; // re-queued by done()
    }
    const waiter = this.#waiters.shift();
    if (waiter) this.#handOut(key, waiter);
    else this.#queue.push(key);
  }

  /** Adds the key after a delay; of several pending delays for one key the earliest wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    if (this.#delayed.schedule(key, Date.now() + delayMs)) this.#arm();
  }

  /**
   * Drops a pending delayed add of the key. A finished reconcile calls this before scheduling its
   * own next run: its result, not an earlier one's, decides when the key comes back. That includes
   * a delayed add that came due while this very reconcile ran (and nothing else asked for a run).
   */
  cancelDelayed(key: string): void {
    this.#delayed.cancel(key);
    if (this.#dueWhileBusy.delete(key) && this.#processing.has(key)) {
      this.#dirty.delete(key);
      this.#addedAt.delete(key);
    }
  }

  /**
   * Adds the key after its rate limiter's delay (per-key backoff, overall limit), or after
   * `atLeastMs` when that is longer (a server's Retry-After).
   */
  addRateLimited(key: string, atLeastMs = 0): void {
    this.addAfter(key, Math.max(atLeastMs, this.#rateLimiter.when(key)));
  }

  /** Clears the key's failure history (after a success). */
  forget(key: string): void {
    this.#rateLimiter.forget(key);
  }

  retries(key: string): number {
    return this.#rateLimiter.retries(key);
  }

  /** The next key, waiting if none is ready; undefined once shut down (queued keys are dropped). */
  get(): Promise<string | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#take(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Marks the key's processing finished; if it was added meanwhile it is queued again. */
  done(key: string): void {
    this.#processing.delete(key);
    this.#dueWhileBusy.delete(key);
    if (this.#dirty.has(key) && !this.#shuttingDown) {
      const waiter = this.#waiters.shift();
      if (waiter) this.#handOut(key, waiter);
      else this.#queue.push(key);
    }
    if (this.#processing.size === 0) for (const resolve of this.#drained.splice(0)) resolve();
  }

  /** Stops accepting and handing out keys and releases idle workers; in-flight keys finish. */
  shutDown(): void {
    this.#shuttingDown = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const w of this.#waiters.splice(0)) w(undefined);
  }

  /** Shuts down and resolves once no key is being processed. */
  async drain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return;
    await new Promise<void>((resolve) => this.#drained.push(resolve));
  }

  #take(key: string): void {
    this.#dirty.delete(key);
    this.#processing.add(key);
    const added = this.#addedAt.get(key);
    this.#addedAt.delete(key);
    this.#hooks.onGet?.(key, added === undefined ? 0 : performance.now() - added);
  }

  #handOut(key: string, waiter: (key: string) => void): void {
    this.#take(key);
    waiter(key);
  }

  #arm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    const next = this.#delayed.peekTime();
    if (next === undefined) return;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, next - Date.now()));
    this.#timer.unref?.();
  }

  #fire(): void {
    this.#timer = undefined;
    for (const key of this.#delayed.popDue(Date.now())) this.#add(key, true);
    this.#arm();
  }
}

/** Delayed keys by ready time; a key appears once, at its earliest time. */
class DelayHeap {
  readonly #at = new Map<string, number>();
  readonly #heap: Array<{ key: string; at: number }> = [];

  /** Returns true when the earliest time of the heap may have changed. */
  schedule(key: string, at: number): boolean {
    const existing = this.#at.get(key);
    if (existing !== undefined && existing <= at) return false;
    this.#at.set(key, at);
    this.#push({ key, at }); // the older, later entry becomes stale and is skipped
    return true;
  }

  cancel(key: string): void {
    this.#at.delete(key); // its heap entry is now stale and is skipped
  }

  peekTime(): number | undefined {
    this.#dropStale();
    return this.#heap[0]?.at;
  }

  popDue(now: number): string[] {
    const due: string[] = [];
    for (;;) {
      this.#dropStale();
      const top = this.#heap[0];
      if (!top || top.at > now) return due;
      this.#pop();
      this.#at.delete(top.key);
      due.push(top.key);
    }
  }

  #dropStale(): void {
    while (this.#heap.length) {
      const top = this.#heap[0] as { key: string; at: number };
      if (this.#at.get(top.key) === top.at) return;
      this.#pop();
    }
  }

  #push(e: { key: string; at: number }): void {
    const h = this.#heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((h[p] as { at: number }).at <= e.at) break;
      h[i] = h[p] as { key: string; at: number };
      i = p;
    }
    h[i] = e;
  }

  #pop(): void {
    const h = this.#heap;
    const last = h.pop();
    if (!last || h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let mAt = last.at;
      if (l < h.length && (h[l] as { at: number }).at < mAt) {
        m = l;
        mAt = (h[l] as { at: number }).at;
      }
      if (r < h.length && (h[r] as { at: number }).at < mAt) m = r;
      if (m === i) break;
      h[i] = h[m] as { key: string; at: number };
      i = m;
    }
    h[i] = last;
  }
}

// -----------------------------------------------------------------------------------------------
// Rate limiters

export interface RateLimiter {
  /** How long the key should wait before its next attempt. */
  when(key: string): number;
  forget(key: string): void;
  retries(key: string): number;
}

/** Per key: base·2^failures, capped, with ±jitter so keys that failed together spread out. */
export class ExponentialBackoff implements RateLimiter {
  readonly #failures = new Map<string, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #jitter: number;
  readonly #random: () => number;

  constructor(baseMs = 1000, maxMs = 300_000, jitter = 0.2, random: () => number = Math.random) {
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
    this.#jitter = jitter;
    this.#random = random;
  }

  when(key: string): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    const delay = Math.min(this.#maxMs, this.#baseMs * 2 ** n);
    return Math.round(delay * (1 - this.#jitter + 2 * this.#jitter * this.#random()));
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** An overall token bucket: bursts of failures across all keys are paced at `perSecond`. */
export class BucketLimiter implements RateLimiter {
  readonly #perMs: number;
  readonly #burst: number;
  #tokens: number;
  #last = Date.now();

  constructor(perSecond = 10, burst = 100) {
    this.#perMs = perSecond / 1000;
    this.#burst = burst;
    this.#tokens = burst;
  }

  when(_key: string): number {
    const now = Date.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#last) * this.#perMs);
    this.#last = now;
    this.#tokens -= 1; // reserve a token, possibly in the future
    return this.#tokens >= 0 ? 0 : Math.ceil(-this.#tokens / this.#perMs);
  }

  forget(_key: string): void {}

  retries(_key: string): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go's MaxOfRateLimiter). */
export class MaxOf implements RateLimiter {
  readonly #limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }

  when(key: string): number {
    return Math.max(...this.#limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }

  retries(key: string): number {
    return Math.max(...this.#limiters.map((l) => l.retries(key)));
  }
}

/** Per-key exponential backoff from about 1 s to 5 min, within an overall 10/s, burst 100. */
export class DefaultRateLimiter extends MaxOf {
  constructor() {
    super(new ExponentialBackoff(1000, 300_000), new BucketLimiter(10, 100));
  }
}
