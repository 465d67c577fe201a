// forEachBounded: a drift sweep's lists a few at a time, never more, and none after a failure.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { forEachBounded } from "../../../src/runtime/bounded.ts";

describe("forEachBounded", () => {
  it("runs every item with at most `limit` in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    await forEachBounded([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await sleep(n % 3);
      inFlight--;
      done.push(n);
    });
    expect(done.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(most).toBe(3);
  });

  it("rejects with the first failure and starts nothing after it", async () => {
    const started: number[] = [];
    await expect(
      forEachBounded([1, 2, 3, 4, 5, 6], 2, async (n) => {
        started.push(n);
        await sleep(1);
        if (n === 2) throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(started).not.toContain(5);
    expect(started).not.toContain(6);
  });

  it("accepts any iterable and an empty one", async () => {
    const seen: string[] = [];
    await forEachBounded(new Map([["a", 1]]).keys(), 8, async (k) => {
      seen.push(k);
    });
    await forEachBounded([], 8, async () => {});
    expect(seen).toEqual(["a"]);
  });
});
