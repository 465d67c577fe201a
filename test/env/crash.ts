// A crash at the worst moment: the operator restarted with HCO_TEST_CRASH_POINT kills itself
// (SIGKILL, as a node failure would) at that point of its code (src/controllers/shared/crash.ts).
import { expect } from "vitest";
import { budget } from "./budget.ts";
import type { OperatorFixture } from "./operator.ts";

/**
 * Restarts the operator so that it dies at `point`, does `act` (what leads it there), and resolves
 * once it has died there; fails when it has not within the budget. Start it again with `op.start()`.
 */
export async function crashAt(
  op: OperatorFixture,
  point: string,
  act: () => Promise<unknown>,
): Promise<void> {
  await op.stop();
  await op.start({ HCO_TEST_CRASH_POINT: point });
  await act();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the operator did not reach the crash point ${point}`)),
      budget.operatorMs,
    );
  });
  try {
    // null: killed by its own SIGKILL, not an exit of its own.
    expect(await Promise.race([op.exited(), late])).toBeNull();
  } finally {
    clearTimeout(timer);
  }
}
