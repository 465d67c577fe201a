// The CLI's command line: flags as the tables describe them, every problem a usage error (exit 64)
// naming the flag, values from the environment where a flag allows it, and a --help on every
// command that lists each of its flags and the exit codes.
import { PassThrough, Readable } from "node:stream";
import { describe, expect, test } from "vitest";
import {
  type CliIO,
  type CommandSpec,
  commandHelp,
  flagList,
  flagValue,
  parseCommandLine,
  pointInTime,
  wholeNumber,
} from "../../../src/cli/command.ts";
import { EXIT, UsageError } from "../../../src/cli/errors.ts";
import { COMMANDS } from "../../../src/cli/main.ts";
import { runCli } from "../../env/cli.ts";

const io = (env: Record<string, string> = {}): CliIO => ({
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  stdin: Readable.from([]),
  env,
  stderrIsTTY: false,
  signal: new AbortController().signal,
});

const command: CommandSpec = {
  name: "cmd",
  summary: "a command",
  args: [
    { name: "NAME", help: "a name" },
    { name: "MORE", help: "more", optional: true },
  ],
  options: [
    { name: "output", short: "o", arg: "FORMAT", help: "format" },
    { name: "yes", short: "y", help: "yes" },
    { name: "kinds", short: "k", arg: "KIND", help: "kinds", multiple: true },
    { name: "harbor-url", arg: "URL", help: "url", env: "HARBOR_URL" },
    { name: "insecure", help: "switch", env: "INSECURE" },
  ],
  run: async () => 0,
};

const parse = (argv: string[], env?: Record<string, string>) =>
  parseCommandLine(argv, command, ["cmd"], io(env));

function usageError(f: () => unknown): UsageError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).exitCode).toBe(EXIT.usage);
    return e as UsageError;
  }
  throw new Error("no error");
}

describe("parsing", () => {
  test("long and short flags, with = or a separate value, switches, lists, positionals anywhere", () => {
    const inv = parse(["a", "--output=json", "-y", "-k", "projects,robots", "--kinds", "webhooks", "b"]);
    expect(inv.args).toEqual(["a", "b"]);
    expect(inv.flags.get("output")).toBe("json");
    expect(inv.flags.get("yes")).toBe(true);
    expect(flagList(inv, "kinds")).toEqual(["projects", "robots", "webhooks"]);
    expect(parse(["a", "-ojson"]).flags.get("output")).toBe("json");
  });

  test("after --, everything is an argument", () => {
    expect(parse(["--", "-y", "--x"]).args).toEqual(["-y", "--x"]);
  });

  test("the environment fills a flag that is not given; a flag beats it", () => {
    expect(parse(["a"], { HARBOR_URL: "https://env" }).flags.get("harbor-url")).toBe("https://env");
    expect(
      parse(["a", "--harbor-url", "https://flag"], { HARBOR_URL: "https://env" }).flags.get("harbor-url"),
    ).toBe("https://flag");
    expect(parse(["a"], { INSECURE: "true" }).flags.get("insecure")).toBe(true);
    expect(parse(["a"], { INSECURE: "no" }).flags.has("insecure")).toBe(false);
  });

  test.each([
    [["a", "--bogus"], /unknown flag --bogus/],
    [["a", "--out"], /unknown flag --out \(did you mean --output\?\)/],
    [["a", "-z"], /unknown flag -z/],
    [["a", "--output"], /--output needs a value \(FORMAT\)/],
    [["a", "--yes=true"], /--yes takes no value/],
    [["a", "-o", "json", "-o", "yaml"], /--output is given twice/],
    [[], /missing NAME/],
    [["a", "b", "c"], /unexpected argument "c"/],
  ])("%j: a usage error that says what is wrong", (argv, message) => {
    const e = usageError(() => parse(argv));
    expect(e.message).toMatch(message);
    expect(e.hint).toBe("Run 'kubectl harbor cmd --help' for usage.");
  });

  test("values are checked with a schema and a bad one names the flag", () => {
    const inv = parse(["a", "--output", "12x"]);
    expect(usageError(() => flagValue(inv, "output", wholeNumber(1, 10))).message).toBe(
      '--output "12x" must be a whole number',
    );
    expect(flagValue(parse(["a", "-o", "7"]), "output", wholeNumber(1, 10))).toBe(7);
    expect(
      usageError(() => flagValue(parse(["a", "-o", "70"]), "output", wholeNumber(1, 10))).message,
    ).toMatch(/must be at most 10/);
  });

  test("points in time: RFC 3339, a date, or an age", () => {
    const now = Date.parse("2025-03-10T12:00:00Z");
    const t = pointInTime(() => now);
    expect(t.parse("2025-03-01T10:00:00Z").toISOString()).toBe("2025-03-01T10:00:00.000Z");
    expect(t.parse("2025-03-01").toISOString()).toBe("2025-03-01T00:00:00.000Z");
    expect(t.parse("24h").toISOString()).toBe("2025-03-09T12:00:00.000Z");
    expect(t.parse("90m").toISOString()).toBe("2025-03-10T10:30:00.000Z");
    expect(t.safeParse("yesterday").success).toBe(false);
  });
});

/** Every leaf command with its path. */
const leaves = COMMANDS.flatMap((c) =>
  "commands" in c
    ? c.commands.map((x) => ({ path: [c.name, x.name], spec: x }))
    : [{ path: [c.name], spec: c }],
);

describe.each(leaves.map((l) => [l.path.join(" "), l] as const))(
  "kubectl harbor %s",
  (_name, { path, spec }) => {
    test("--help lists every flag and argument and the exit codes, and exits 0", async () => {
      const r = await runCli([...path, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(commandHelp(path, spec));
      expect(r.stdout).toMatch(new RegExp(`^Usage: kubectl harbor ${path.join(" ")}`));
      for (const o of spec.options) expect(r.stdout).toContain(`--${o.name}`);
      for (const a of spec.args ?? []) expect(r.stdout).toContain(a.name);
      expect(r.stdout).toMatch(
        /Exit codes: 0 done; 1 failed.*2 differences found.*3 not confirmed; 64 bad command line/,
      );
    });

    test("flags and short flags are unique", () => {
      const names = spec.options.map((o) => o.name);
      const shorts = spec.options.flatMap((o) => (o.short ? [o.short] : []));
      expect(new Set(names).size).toBe(names.length);
      expect(new Set(shorts).size).toBe(shorts.length);
    });
  },
);

describe("the top level", () => {
  test.each([[[]], [["--help"]], [["help"]]])("%j prints the commands", async (argv) => {
    const r = await runCli(argv);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toContain(`  ${c.name}`);
  });

  test("a group's --help lists its commands; help GROUP COMMAND is the command's", async () => {
    const r = await runCli(["replication", "--help"]);
    expect(r.stdout).toMatch(/executions[\s\S]*tasks[\s\S]*log[\s\S]*stop/);
    expect((await runCli(["help", "gc", "log"])).stdout).toMatch(/^Usage: kubectl harbor gc log RUN/);
  });

  test("an unknown command is a usage error", async () => {
    const r = await runCli(["teleport"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/^error: unknown command "teleport" \(export, diff, project/);
    const sub = await runCli(["gc", "explode"]);
    expect(sub.code).toBe(64);
    expect(sub.stderr).toMatch(
      /unknown command "gc explode" \(history, log, stop\)\nRun 'kubectl harbor gc --help'/,
    );
  });

  test("--version", async () => {
    expect((await runCli(["--version"])).stdout).toMatch(
      /^kubectl-harbor \d+\.\d+\.\d+ \(harbor-config-operator\)\n$/,
    );
  });

  test("no Harbor given: a usage error that says how to give one", async () => {
    const r = await runCli(["registry", "list"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/say which Harbor: --connection \[NAMESPACE\/\]NAME .* or --harbor-url URL/);
  });

  test.each([
    [["--harbor-url", "ftp://x"], /--harbor-url "ftp:\/\/x" must be an http/],
    [["--harbor-url", "https://u:pw@h.example.com", "-u", "u"], /must not carry credentials/],
    [["--harbor-url", "https://h.example.com"], /--harbor-url needs --username/],
    [["--harbor-url", "https://h.example.com", "-u", "admin"], /needs a password: HARBOR_PASSWORD/],
    [["--connection", "Bad_Name"], /--connection "Bad_Name" must be NAME or NAMESPACE\/NAME/],
    [["--connection", "x", "--harbor-url", "https://h.example.com"], /either --connection or --harbor-url/],
    [
      ["--harbor-url", "https://h.example.com", "-u", "a", "--password", "p", "--rate", "0"],
      /--rate "0" must be at least 1/,
    ],
  ])("%j is refused before anything is sent", async (flags, message) => {
    const r = await runCli(["registry", "list", ...flags]);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain("pw@");
  });
});
