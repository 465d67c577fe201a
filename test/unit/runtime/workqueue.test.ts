import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import {
  BucketLimiter,
  ExponentialBackoff,
  MaxOf,
  type RateLimiter,
  WorkQueue,
} from "../../../src/runtime/workqueue.ts";

const noDelay: RateLimiter = { when: () => 0, forget: () => {}, retries: () => 0 };
// The queue's clocks and timers are the test's: delays pass when the test says, whatever the load.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date", "performance", "setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
});
const tick = (ms = 0) => vi.advanceTimersByTimeAsync(ms);

describe("WorkQueue", () => {
  test("a key waits in the queue once, however often it is added", async () => {
    const q = new WorkQueue(noDelay);
    q.add("a");
    q.add("b");
    q.add("a");
    q.add("a");
    expect(q.length).toBe(2);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBe("b");
    expect(q.length).toBe(0);
  });

  test("a key is never handed to two workers at once", async () => {
    const q = new WorkQueue(noDelay);
    q.add("a");
    const first = await q.get();
    q.add("a"); // changed while processing
    let second: string | undefined = "none";
    void q.get().then((k) => {
      second = k;
    });
    await tick();
    expect(first).toBe("a");
    expect(second).toBe("none"); // still blocked: "a" is in flight
    q.done("a");
    await tick();
    expect(second).toBe("a"); // processed once more, after done
  });

  test("a key added while processing runs exactly once more", async () => {
    const q = new WorkQueue(noDelay);
    q.add("a");
    await q.get();
    q.add("a");
    q.add("a");
    q.done("a");
    expect(q.length).toBe(1);
    expect(await q.get()).toBe("a");
    q.done("a");
    expect(q.length).toBe(0);
  });

  test("idle workers wake when a key arrives", async () => {
    const q = new WorkQueue(noDelay);
    const got = q.get();
    q.add("x");
    expect(await got).toBe("x");
  });

  test("addAfter keeps the earliest time for a key", async () => {
    const q = new WorkQueue(noDelay);
    q.addAfter("k", 10_000);
    q.addAfter("k", 30);
    q.addAfter("k", 20_000); // later: ignored
    expect(q.length).toBe(0);
    await tick(80);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe("k");
    q.done("k");
    await tick(50);
    expect(q.length).toBe(0); // the longer delays were superseded, not kept
    q.shutDown();
  });

  test("delayed keys of different times fire in time order", async () => {
    const q = new WorkQueue(noDelay);
    q.addAfter("late", 60);
    q.addAfter("early", 20);
    q.addAfter("now", 0);
    await tick(120);
    expect([await q.get(), await q.get(), await q.get()]).toEqual(["now", "early", "late"]);
  });

  test("shutdown releases idle workers, drops waiting keys and drains in-flight work", async () => {
    const q = new WorkQueue(noDelay);
    q.add("busy");
    q.add("waiting");
    const key = await q.get();
    const idle = q.get(); // gets "waiting"
    expect(await idle).toBe("waiting");
    q.done("waiting");
    const blocked = q.get();
    let drained = false;
    const drain = q.drain().then(() => {
      drained = true;
    });
    expect(await blocked).toBeUndefined();
    q.add("after-shutdown");
    expect(await q.get()).toBeUndefined();
    await tick();
    expect(drained).toBe(false); // "busy" is still being processed
    q.done(key as string);
    await drain;
    expect(drained).toBe(true);
  });

  test("addRateLimited uses the limiter; forget resets it", async () => {
    const q = new WorkQueue(new ExponentialBackoff(10, 1000, 0));
    q.addRateLimited("k");
    expect(q.retries("k")).toBe(1);
    await tick(40);
    expect(await q.get()).toBe("k");
    q.done("k");
    q.forget("k");
    expect(q.retries("k")).toBe(0);
    q.shutDown();
  });
});

describe("rate limiters", () => {
  test("exponential backoff doubles per failure up to the cap, per key", () => {
    const b = new ExponentialBackoff(1000, 8000, 0);
    expect([b.when("a"), b.when("a"), b.when("a"), b.when("a"), b.when("a")]).toEqual([
      1000, 2000, 4000, 8000, 8000,
    ]);
    expect(b.when("b")).toBe(1000);
    b.forget("a");
    expect(b.when("a")).toBe(1000);
  });

  test("jitter stays within the band", () => {
    let r = 0;
    const b = new ExponentialBackoff(1000, 300_000, 0.2, () => r);
    expect(b.when("x")).toBe(800);
    r = 1;
    b.forget("x");
    expect(b.when("x")).toBe(1200);
  });

  test("the overall bucket paces bursts beyond its size", () => {
    const bucket = new BucketLimiter(10, 2);
    expect(bucket.when("a")).toBe(0);
    expect(bucket.when("b")).toBe(0);
    const third = bucket.when("c");
    const fourth = bucket.when("d");
    expect(third).toBeGreaterThan(50);
    expect(fourth).toBeGreaterThan(third);
  });

  test("MaxOf takes the longest delay", () => {
    const limiter = new MaxOf(new ExponentialBackoff(500, 10_000, 0), new BucketLimiter(1000, 1000));
    expect(limiter.when("k")).toBe(500);
    expect(limiter.when("k")).toBe(1000);
    expect(limiter.retries("k")).toBe(2);
  });
});

describe("WorkQueue delayed adds", () => {
  test("cancelDelayed drops a pending delayed add, and a later one still fires", async () => {
    const q = new WorkQueue(noDelay);
    q.addAfter("k", 30);
    q.cancelDelayed("k");
    await tick(80);
    expect(q.length).toBe(0);
    q.addAfter("k", 20);
    await tick(60);
    expect(await q.get()).toBe("k");
    q.shutDown();
  });

  test("a delay that comes due during processing is withdrawn by cancelDelayed, a change is not", async () => {
    const q = new WorkQueue(noDelay);
    q.add("k");
    expect(await q.get()).toBe("k");
    q.addAfter("k", 10); // e.g. an earlier reconcile's retry
    await tick(40);
    // The reconcile that was running has done what the retry asked for: no run more.
    q.cancelDelayed("k");
    q.done("k");
    expect(q.length).toBe(0);

    expect(await getSoon(q, "k")).toBe("k");
    q.addAfter("k", 10);
    await tick(40);
    q.add("k"); // the object changed meanwhile: that must be looked at
    q.cancelDelayed("k");
    q.done("k");
    expect(q.length).toBe(1);
    expect(await q.get()).toBe("k");

    // Without cancelDelayed (a reconcile cut short), the due delay still runs it once more.
    q.addAfter("k", 10);
    await tick(40);
    q.done("k");
    expect(q.length).toBe(1);
    q.shutDown();
  });
});

/** Adds the key and takes it, as a worker would. */
async function getSoon(q: WorkQueue, key: string): Promise<string | undefined> {
  q.add(key);
  return q.get();
}
