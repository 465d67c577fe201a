// Waiting for a condition outside the cluster (Harbor, the emulator, a process's output) in tests;
// what the cluster shows is awaited with useOperator()'s waitFor/waitReady (a watch). The timeout
// guards against a hang and comes from the one budget (budget.ts) unless a test has a reason.
import { budget } from "./budget.ts";

/**
 * The first value `probe` gives that is not undefined (a synchronous or asynchronous probe), looking
 * every 100 ms; throws after `timeoutMs`, naming `what`.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number = budget.operatorMs,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves once `holds` is true (checked every 100 ms); throws after `timeoutMs`, naming `what`. */
export const untilTrue = (
  what: string,
  holds: () => boolean | Promise<boolean>,
  timeoutMs: number = budget.operatorMs,
): Promise<true> => until(what, async () => ((await holds()) ? true : undefined), timeoutMs);
