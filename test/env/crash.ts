// A crash at the worst moment: an operator started with HCO_TEST_CRASH_POINT kills itself (SIGKILL,
// as a node failure would) the first time it gets to that point of its code
// (src/controllers/shared/crash.ts). A file arms its own operator from the start
// (`useOperator({ ...armedAt(point) })`), so that the crash costs no restart of its own: the test
// that leads the operator there waits with `untilCrashed`, then starts it again with
// `startDisarmed`. No test before it may get to the point.
import { expect } from "vitest";
import { budget } from "./budget.ts";
import type { OperatorFixture, OperatorOptions } from "./operator.ts";

const VARIABLE = "HCO_TEST_CRASH_POINT";

/** useOperator options that arm the file's operator to die at `point`. */
export const armedAt = (point: string): Pick<OperatorOptions, "env"> => ({ env: { [VARIABLE]: point } });

/** Resolves once the armed operator has died at its point; fails when it has not within the budget. */
export async function untilCrashed(op: OperatorFixture): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error("the operator did not reach its crash point")),
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

/** Starts the operator again, as after a node failure, with no crash point. */
export const startDisarmed = (op: OperatorFixture): Promise<void> => op.start({ [VARIABLE]: "" });
