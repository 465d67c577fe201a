// Work over many items with a few at a time: a drift sweep's per-project lists towards one Harbor.
// The Harbor client's rate limiter and in-flight cap still apply to every request; this only keeps
// one sweep from waiting for each list before sending the next, and from taking every slot.

/** Lists a drift sweep keeps in flight towards one Harbor. */
export const SWEEP_CONCURRENCY = 16;

/**
 * Runs `fn` over the items with at most `limit` at a time. The first failure rejects, and no item
 * is started after it.
 */
export async function forEachBounded<T>(
  items: Iterable<T>,
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  const list = [...items];
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < list.length) {
      const item = list[next++] as T;
      try {
        await fn(item);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, list.length)) }, worker);
  const results = await Promise.allSettled(workers);
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (rejected) throw rejected.reason;
}
