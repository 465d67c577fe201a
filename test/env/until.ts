// Polling for a condition outside the cluster (Harbor, the emulator) in end-to-end tests; what the
// cluster shows is awaited with useOperator()'s waitFor/waitReady.

/** The first value `probe` gives that is not undefined, looking every 100 ms; throws after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
