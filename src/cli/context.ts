// What every command shares: the output flags, the confirmation of destructive commands, and the
// Harbor connection opened for the command and closed after it, with its errors described in the
// words of that connection (which user, whose password).
import { createInterface } from "node:readline";
import { connectHarbor, type HarborTarget } from "./auth.ts";
import { flagSet, flagValue, type Invocation, type OptionSpec, oneOf } from "./command.ts";
import { CliError, describeError, EXIT } from "./errors.ts";
import { FORMATS, type Format, Progress } from "./output.ts";

export const OUTPUT_OPTIONS: OptionSpec[] = [
  {
    name: "output",
    short: "o",
    arg: "FORMAT",
    help: "table, json or yaml",
    default: "table",
    section: "Output",
  },
  { name: "quiet", short: "q", help: "no progress or notes on standard error", section: "Output" },
];

export const YES_OPTION: OptionSpec = {
  name: "yes",
  short: "y",
  help: "do it without asking (otherwise it asks on the terminal, and a script must pass --yes)",
};

export function formatOf(inv: Invocation): Format {
  return flagValue(inv, "output", oneOf(FORMATS), "table");
}

export function progressOf(inv: Invocation): Progress {
  return new Progress(inv.io.stderr, { tty: inv.io.stderrIsTTY, quiet: flagSet(inv, "quiet") });
}

export function print(inv: Invocation, text: string): void {
  inv.io.stdout.write(text);
}

/** A note on standard error (unless --quiet). */
export function note(inv: Invocation, text: string): void {
  if (!flagSet(inv, "quiet")) inv.io.stderr.write(`${text}\n`);
}

/**
 * Asks before a destructive step unless --yes: the question on standard error, the answer one
 * line of standard input; anything but "y" or "yes" (or no answer) declines, with exit code 3.
 */
export async function confirm(inv: Invocation, question: string): Promise<void> {
  if (flagSet(inv, "yes")) return;
  inv.io.stderr.write(`${question} [y/N] `);
  const answer = await new Promise<string | undefined>((resolve) => {
    const rl = createInterface({ input: inv.io.stdin, terminal: false });
    let done = false;
    const finish = (v: string | undefined) => {
      if (done) return;
      done = true;
      rl.close();
      resolve(v);
    };
    rl.once("line", (line) => finish(line));
    rl.once("close", () => finish(undefined));
    inv.io.signal.addEventListener("abort", () => finish(undefined), { once: true });
  });
  // A terminal echoed the answer and its line break; piped input is not echoed.
  if (answer === undefined || (inv.io.stdin as { isTTY?: boolean }).isTTY !== true) inv.io.stderr.write("\n");
  if (!/^\s*y(es)?\s*$/i.test(answer ?? "")) {
    throw new CliError(
      answer === undefined
        ? "not confirmed (no answer; pass --yes to run it from a script)"
        : "not confirmed",
      EXIT.declined,
    );
  }
}

/** Runs `fn` with the Harbor the flags choose; Harbor's errors are described for that connection. */
export async function withHarbor(inv: Invocation, fn: (h: HarborTarget) => Promise<number>): Promise<number> {
  const harbor = await connectHarbor(inv);
  try {
    return await fn(harbor);
  } catch (e) {
    if (e instanceof CliError) throw e;
    const d = describeError(e, harbor.errorContext);
    throw new CliError(d.message, d.exitCode, d.hint);
  } finally {
    await harbor.close();
  }
}
