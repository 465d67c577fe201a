import pino from "pino";
import { describe, expect, test } from "vitest";
import { Controller, type Reconciler, RetryAfter, TerminalError } from "../../../src/runtime/controller.ts";
import { type RateLimiter, WorkQueue } from "../../../src/runtime/workqueue.ts";

/** A queue that records what the controller asks of it instead of waiting. */
class RecordingQueue extends WorkQueue {
  readonly rateLimited: Array<[string, number]> = [];
  readonly forgotten: string[] = [];
  constructor() {
    const limiter: RateLimiter = { when: () => 0, forget: () => {}, retries: () => 0 };
    super(limiter);
  }
  override addRateLimited(key: string, atLeastMs = 0): void {
    this.rateLimited.push([key, atLeastMs]);
  }
  override forget(key: string): void {
    this.forgotten.push(key);
  }
}

async function runOnce(fail: unknown): Promise<RecordingQueue> {
  const queue = new RecordingQueue();
  const called = Promise.withResolvers<void>();
  const reconciler: Reconciler = {
    reconcile: () => {
      called.resolve();
      return Promise.reject(fail);
    },
  };
  const c = new Controller({
    name: "test",
    reconciler,
    logger: pino({ level: "silent" }),
    workers: 1,
    queue,
  });
  c.start();
  c.enqueue("ns/a");
  await called.promise;
  await c.stop(); // waits for the worker to settle the failure
  return queue;
}

describe("Controller retries", () => {
  test("a RetryAfter waits at least its retryAfterMs", async () => {
    const q = await runOnce(new RetryAfter("Harbor is busy", 120_000));
    expect(q.rateLimited).toEqual([["ns/a", 120_000]]);
  });

  test("another error is retried with the backoff alone, whatever fields it carries", async () => {
    const q = await runOnce(Object.assign(new Error("busy"), { retryAfterMs: 120_000 }));
    expect(q.rateLimited).toEqual([["ns/a", 0]]);
  });

  test("a TerminalError is not retried", async () => {
    const q = await runOnce(new TerminalError("bad spec"));
    expect(q.rateLimited).toEqual([]);
    expect(q.forgotten).toEqual(["ns/a"]);
  });
});
