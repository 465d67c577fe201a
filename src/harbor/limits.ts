// Client-side limits that keep one operator from overwhelming one Harbor: a token bucket for the
// request rate and a semaphore for requests in flight. Waiters are served first come, first served,
// and an aborted waiter leaves the line without consuming anything.

export class TokenBucket {
  readonly #ratePerMs: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;
  #tail: Promise<void> = Promise.resolve();

  constructor(requestsPerSecond: number, burst: number) {
    if (!(requestsPerSecond > 0) || !(burst >= 1)) throw new RangeError("rate must be > 0 and burst >= 1");
    this.#ratePerMs = requestsPerSecond / 1000;
    this.#burst = burst;
    this.#tokens = burst;
    this.#last = performance.now();
  }

  /** Resolves when a token was taken. Callers queue behind each other so the order is fair. */
  take(signal?: AbortSignal): Promise<void> {
    const turn = this.#tail.then(() => this.#takeNow(signal));
    this.#tail = turn.catch(() => undefined);
    return turn;
  }

  async #takeNow(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = performance.now();
      this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#last) * this.#ratePerMs);
      this.#last = now;
      if (this.#tokens >= 1) {
        this.#tokens -= 1;
        return;
      }
      await sleep((1 - this.#tokens) / this.#ratePerMs, signal);
    }
  }
}

export class Semaphore {
  readonly #max: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(max: number) {
    if (!(max >= 1)) throw new RangeError("max must be >= 1");
    this.#max = max;
  }

  get active(): number {
    return this.#active;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#active < this.#max) {
      this.#active++;
      return this.#releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(grant);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(grant);
    });
    // The releasing holder handed its slot over, so #active already counts us.
    return this.#releaser();
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    };
  }
}

/** setTimeout as a promise that rejects with the signal's reason when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
