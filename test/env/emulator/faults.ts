// Fault injection and request counters. Rules match by operationId, method and/or the username of
// the request's basic auth (no match fields = every API request). Latency from all matching rules adds up; of the failing effects (status,
// drop) the first rule that fires wins. A rule with `afterHandler` lets the handler run first, so
// the side effect happens and only the response is lost: the case that punishes unsafe retries.
// A rule may also answer with an oversized body, what a misbehaving server or proxy sends.

export interface FaultRule {
  op?: string;
  method?: string;
  /**
   * Only requests whose basic auth names this user (or robot): tests that run at once, each as a
   * user of its own, inject faults without touching each other's requests.
   */
  username?: string;
  /** Added before the request is handled. */
  latencyMs?: number;
  /** Answer with this status instead (5xx are masked like Harbor's; 429 gets Retry-After). */
  status?: number;
  /** The error message of that answer. Default "injected fault". */
  message?: string;
  /** Answer 200 with a body of this many bytes instead, streamed without Content-Length. */
  bodyBytes?: number;
  retryAfterSeconds?: number;
  /** Close the connection without any response. */
  drop?: boolean;
  /** Send the headers, then wait this long before the body. */
  slowBodyMs?: number;
  /** Probability (0..1) that a failing effect fires on a matching request. Default 1. */
  rate?: number;
  /** Run the handler first, then fail (status or drop). */
  afterHandler?: boolean;
  /** Expire after firing this many times. */
  times?: number;
}

export interface FaultDecision {
  latencyMs: number;
  slowBodyMs: number;
  failure?: {
    status?: number;
    message?: string;
    bodyBytes?: number;
    retryAfterSeconds?: number;
    drop?: boolean;
    afterHandler: boolean;
  };
}

interface ActiveRule extends FaultRule {
  id: number;
  fired: number;
}

export class Faults {
  readonly #rules: ActiveRule[] = [];
  readonly #random: () => number;
  #nextId = 1;
  /** Applies to every API request; the default latency of the emulator. */
  baseLatencyMs: number;

  constructor(random: () => number, baseLatencyMs = 0) {
    this.#random = random;
    this.baseLatencyMs = baseLatencyMs;
  }

  add(rule: FaultRule): number {
    const id = this.#nextId++;
    this.#rules.push({ ...rule, id, fired: 0 });
    return id;
  }

  remove(id: number): void {
    const i = this.#rules.findIndex((r) => r.id === id);
    if (i >= 0) this.#rules.splice(i, 1);
  }

  clear(): void {
    this.#rules.length = 0;
  }

  list(): FaultRule[] {
    return this.#rules.map(({ fired: _fired, ...r }) => r);
  }

  /** What happens to a request: `username` is the one its basic auth names, if any. */
  decide(op: string, method: string, username?: string): FaultDecision {
    const d: FaultDecision = { latencyMs: this.baseLatencyMs, slowBodyMs: 0 };
    for (const r of [...this.#rules]) {
      if ((r.op && r.op !== op) || (r.method && r.method !== method)) continue;
      if (r.username !== undefined && r.username !== username) continue;
      d.latencyMs += r.latencyMs ?? 0;
      d.slowBodyMs += r.slowBodyMs ?? 0;
      const failing = r.status !== undefined || r.drop === true || r.bodyBytes !== undefined;
      if (!failing || d.failure) continue;
      if (this.#random() >= (r.rate ?? 1)) continue;
      d.failure = {
        ...(r.status === undefined ? {} : { status: r.status }),
        ...(r.message === undefined ? {} : { message: r.message }),
        ...(r.bodyBytes === undefined ? {} : { bodyBytes: r.bodyBytes }),
        ...(r.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: r.retryAfterSeconds }),
        ...(r.drop ? { drop: true } : {}),
        afterHandler: r.afterHandler === true,
      };
      r.fired++;
      if (r.times !== undefined && r.fired >= r.times) this.remove(r.id);
    }
    return d;
  }
}

export interface CounterRow {
  op: string;
  method: string;
  /** 0 when the connection was dropped without a response. */
  status: number;
  count: number;
}

export class Counters {
  readonly #counts = new Map<string, CounterRow>();

  add(op: string, method: string, status: number): void {
    const key = `${op} ${method} ${status}`;
    const row = this.#counts.get(key);
    if (row) row.count++;
    else this.#counts.set(key, { op, method, status, count: 1 });
  }

  list(): CounterRow[] {
    return [...this.#counts.values()].map((r) => ({ ...r }));
  }

  /** Sum of requests matching the filter. */
  total(filter: { op?: string; method?: string; status?: number } = {}): number {
    let n = 0;
    for (const r of this.#counts.values()) {
      if (filter.op !== undefined && r.op !== filter.op) continue;
      if (filter.method !== undefined && r.method !== filter.method) continue;
      if (filter.status !== undefined && r.status !== filter.status) continue;
      n += r.count;
    }
    return n;
  }

  /**
   * Requests that may change something in Harbor: every method but GET and HEAD, except the pings
   * (pingScanner, pingRegistry, pingLdap, PingInstances), which Harbor takes as POST but which only
   * ask whether a service answers.
   */
  writes(): number {
    let n = 0;
    for (const r of this.#counts.values())
      if (r.method !== "GET" && r.method !== "HEAD" && !/^ping/i.test(r.op)) n += r.count;
    return n;
  }

  /** Requests by operation since `before` (an earlier `list()`): the operations whose count changed. */
  since(before: readonly CounterRow[]): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.#counts.values()) out[r.op] = (out[r.op] ?? 0) + r.count;
    for (const r of before) out[r.op] = (out[r.op] ?? 0) - r.count;
    return Object.fromEntries(Object.entries(out).filter(([, n]) => n !== 0));
  }

  reset(): void {
    this.#counts.clear();
  }
}
