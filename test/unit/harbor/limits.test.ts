import { describe, expect, test, vi } from "vitest";
import { EndpointRegistry } from "../../../src/harbor/endpoints.ts";
import { Semaphore, TokenBucket } from "../../../src/harbor/limits.ts";

describe("Semaphore", () => {
  test("caps holders and hands slots over in arrival order", async () => {
    const s = new Semaphore(2);
    const order: number[] = [];
    const r1 = await s.acquire();
    const r2 = await s.acquire();
    const waiting = [3, 4].map((n) =>
      s.acquire().then((release) => {
        order.push(n);
        return release;
      }),
    );
    expect(s.active).toBe(2);
    r1();
    r1(); // releasing twice is harmless
    const r3 = await waiting[0];
    r2();
    const r4 = await waiting[1];
    expect(order).toEqual([3, 4]);
    expect(s.active).toBe(2);
    r3?.();
    r4?.();
    expect(s.active).toBe(0);
  });

  test("an aborted waiter leaves the line without taking a slot", async () => {
    const s = new Semaphore(1);
    const held = await s.acquire();
    const controller = new AbortController();
    const aborted = s.acquire(controller.signal);
    controller.abort(new Error("gone"));
    await expect(aborted).rejects.toThrow("gone");
    held();
    expect(s.active).toBe(0);
    const again = await s.acquire();
    expect(s.active).toBe(1);
    again();
  });
});

describe("TokenBucket", () => {
  test("allows the burst at once, then paces at the rate", async () => {
    // The bucket's clock and its waits, stepped by the test: no real time involved.
    vi.useFakeTimers({ toFake: ["performance", "setTimeout", "clearTimeout"] });
    try {
      const bucket = new TokenBucket(20, 2);
      const taken: number[] = [];
      const takes = [1, 2, 3, 4].map((n) => bucket.take().then(() => taken.push(n)));
      await vi.advanceTimersByTimeAsync(0);
      expect(taken).toEqual([1, 2]);
      // At 20/s a token comes every 50 ms.
      await vi.advanceTimersByTimeAsync(49);
      expect(taken).toEqual([1, 2]);
      await vi.advanceTimersByTimeAsync(1);
      expect(taken).toEqual([1, 2, 3]);
      await vi.advanceTimersByTimeAsync(49);
      expect(taken).toEqual([1, 2, 3]);
      await vi.advanceTimersByTimeAsync(1);
      await Promise.all(takes);
      expect(taken).toEqual([1, 2, 3, 4]);
    } finally {
      vi.useRealTimers();
    }
  });

  test("an aborted take rejects", async () => {
    const bucket = new TokenBucket(1, 1);
    await bucket.take();
    const controller = new AbortController();
    const p = bucket.take(controller.signal);
    controller.abort(new Error("stop"));
    await expect(p).rejects.toThrow("stop");
  });
});

describe("EndpointRegistry", () => {
  test("clients of one base URL share pool and limits; the pool closes with the last client", async () => {
    const reg = new EndpointRegistry();
    const settings = { url: "https://harbor.example.com/", username: "a", password: "b" };
    const a = reg.acquire(settings);
    const b = reg.acquire({ ...settings, username: "other", url: "https://harbor.example.com" });
    const c = reg.acquire({ ...settings, insecureSkipTLSVerify: true });
    expect(a.endpoint).toBe(b.endpoint);
    expect(c.endpoint).not.toBe(a.endpoint);
    await a.release();
    expect(a.endpoint.pool.closed).toBe(false);
    await b.release();
    expect(a.endpoint.pool.closed).toBe(true);
    await c.release();
  });
});
