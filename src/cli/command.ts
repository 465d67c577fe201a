// The CLI's commands and their flags: one table per command drives parsing, validation and its
// --help, so they cannot drift apart (as config.ts does for the operator). A command is a leaf of
// a small tree (group → command); `--help` works on every level.
import type { Readable, Writable } from "node:stream";
import { z } from "zod";
import { EXIT, UsageError } from "./errors.ts";

export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether standard error is a terminal (progress is rewritten in place there). */
  stderrIsTTY: boolean;
  /** Aborted on SIGINT: Harbor calls in flight stop. */
  signal: AbortSignal;
}

export interface OptionSpec {
  /** The long name, without "--". */
  name: string;
  short?: string;
  /** The value's name in --help; absent for a switch. */
  arg?: string;
  help: string;
  /** The environment variable read when the flag is not given. */
  env?: string;
  /** The default, as --help shows it. */
  default?: string;
  /** May be given more than once; each value may also list several, separated by commas. */
  multiple?: boolean;
  /** The --help section it is listed in (default "Flags"). */
  section?: string;
}

export interface ArgSpec {
  name: string;
  help: string;
  optional?: boolean;
  /** Takes every remaining argument (one or more). */
  variadic?: boolean;
}

export interface CommandSpec {
  name: string;
  /** One line, for the group's list. */
  summary: string;
  /** More, for the command's own --help. */
  description?: string;
  args?: ArgSpec[];
  options: OptionSpec[];
  examples?: string[];
  run(ctx: Invocation): Promise<number>;
}

export interface GroupSpec {
  name: string;
  summary: string;
  description?: string;
  commands: CommandSpec[];
}

/** A parsed command line: flag values by long name, and the positional arguments. */
export interface Invocation {
  io: CliIO;
  /** e.g. ["project", "summary"]. */
  path: string[];
  /** Flag values by long name: a string, a list (multiple), or true (switch); env applied. */
  flags: ReadonlyMap<string, string | string[] | true>;
  args: string[];
}

/** Parses argv against a command's flags; every problem is a UsageError naming the flag. */
export function parseCommandLine(
  argv: readonly string[],
  command: CommandSpec,
  path: string[],
  io: CliIO,
): Invocation {
  const where = path.join(" ");
  const byLong = new Map(command.options.map((o) => [o.name, o]));
  const byShort = new Map(command.options.filter((o) => o.short).map((o) => [o.short as string, o]));
  const flags = new Map<string, string | string[] | true>();
  const args: string[] = [];
  const set = (o: OptionSpec, value: string | true) => {
    if (value === true) {
      flags.set(o.name, true);
      return;
    }
    if (o.multiple) {
      const list = (flags.get(o.name) as string[] | undefined) ?? [];
      list.push(
        ...value
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      );
      flags.set(o.name, list);
    } else if (flags.has(o.name)) {
      throw new UsageError(`--${o.name} is given twice`, where);
    } else flags.set(o.name, value);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") {
      args.push(...argv.slice(i + 1));
      break;
    }
    let opt: OptionSpec | undefined;
    let inline: string | undefined;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      inline = eq < 0 ? undefined : a.slice(eq + 1);
      opt = byLong.get(name);
      if (!opt) throw new UsageError(`unknown flag --${name}${suggest(name, [...byLong.keys()])}`, where);
    } else if (/^-[a-zA-Z]/.test(a)) {
      const short = a.slice(1, 2);
      opt = byShort.get(short);
      if (!opt) throw new UsageError(`unknown flag -${short}`, where);
      if (a.length > 2) inline = a.slice(a[2] === "=" ? 3 : 2);
    } else {
      args.push(a);
      continue;
    }
    if (!opt.arg) {
      if (inline !== undefined) throw new UsageError(`--${opt.name} takes no value`, where);
      set(opt, true);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${opt.name} needs a value (${opt.arg})`, where);
    set(opt, value);
  }
  for (const o of command.options) {
    const fromEnv = o.env ? io.env[o.env] : undefined;
    if (!flags.has(o.name) && fromEnv !== undefined && fromEnv !== "") {
      if (o.arg) set(o, fromEnv);
      else if (/^(1|true|yes)$/i.test(fromEnv)) set(o, true);
    }
  }
  const specs = command.args ?? [];
  const required = specs.filter((s) => !s.optional).length;
  const variadic = specs.some((s) => s.variadic);
  if (args.length < required) {
    const missing = specs.slice(args.length).filter((s) => !s.optional);
    throw new UsageError(`missing ${missing.map((s) => s.name).join(" and ")}`, where);
  }
  if (!variadic && args.length > specs.length) {
    throw new UsageError(`unexpected argument "${args[specs.length]}"`, where);
  }
  return { io, path, flags, args };
}

function suggest(name: string, known: readonly string[]): string {
  const close = known.find((k) => k.startsWith(name) || name.startsWith(k));
  return close ? ` (did you mean --${close}?)` : "";
}

// -------------------------------------------------------------------------------------------
// reading flag values: each says what is wrong with a bad one

export function flagString(inv: Invocation, name: string): string | undefined {
  const v = inv.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

export function flagList(inv: Invocation, name: string): string[] {
  const v = inv.flags.get(name);
  return Array.isArray(v) ? v : [];
}

export function flagSet(inv: Invocation, name: string): boolean {
  return inv.flags.get(name) === true;
}

/** A flag's value read with a schema; a failure names the flag and what it must be. */
export function flagValue<T>(inv: Invocation, name: string, schema: z.ZodType<T>, fallback: string): T;
export function flagValue<T>(inv: Invocation, name: string, schema: z.ZodType<T>): T | undefined;
export function flagValue<T>(
  inv: Invocation,
  name: string,
  schema: z.ZodType<T>,
  fallback?: string,
): T | undefined {
  const text = flagString(inv, name) ?? fallback;
  if (text === undefined) return undefined;
  return parsed(schema, text, `--${name}`, inv.path.join(" "));
}

/** A positional argument read with a schema. */
export function argValue<T>(inv: Invocation, index: number, name: string, schema: z.ZodType<T>): T {
  return parsed(schema, inv.args[index] ?? "", name, inv.path.join(" "));
}

function parsed<T>(schema: z.ZodType<T>, text: string, what: string, where: string): T {
  const r = schema.safeParse(text);
  if (r.success) return r.data;
  throw new UsageError(`${what} "${text}" ${r.error.issues[0]?.message ?? "is not valid"}`, where);
}

export const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** Harbor ids: whole numbers that fit Harbor's integer ids. */
export const harborId = wholeNumber(1, 2 ** 31 - 1);

export const oneOf = <T extends string>(values: readonly T[]) =>
  z.string().refine((v): v is T => (values as readonly string[]).includes(v), {
    message: `must be one of ${values.join(", ")}`,
  }) as unknown as z.ZodType<T>;

/** A point in time: RFC 3339 / ISO 8601 ("2025-03-01", "2025-03-01T10:00:00Z") or an age ("90m", "24h", "7d"). */
export const pointInTime = (now: () => number) =>
  z
    .string()
    .trim()
    .transform((text, ctx) => {
      const age = /^(\d+)(m|h|d)$/.exec(text);
      if (age) {
        const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as "m" | "h" | "d"];
        return new Date(now() - Number(age[1]) * unit);
      }
      const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
      if (Number.isNaN(ms)) {
        ctx.addIssue({
          code: "custom",
          message:
            'must be a time such as "2025-03-01T10:00:00Z" or "2025-03-01", or an age such as "90m", "24h", "7d"',
        });
        return z.NEVER;
      }
      return new Date(ms);
    });

// -------------------------------------------------------------------------------------------
// help

const EXIT_CODES = `Exit codes: ${EXIT.ok} done; ${EXIT.failed} failed (Harbor or Kubernetes refused or could not be reached, an object is missing); ${EXIT.drift} differences found (diff, export --check); ${EXIT.declined} not confirmed; ${EXIT.usage} bad command line.`;

function flagLine(o: OptionSpec): [string, string] {
  const names = `${o.short ? `-${o.short}, ` : "    "}--${o.name}${o.arg ? ` ${o.arg}` : ""}`;
  const extra = [o.default === undefined ? "" : `default ${o.default}`, o.env ? `env ${o.env}` : ""]
    .filter(Boolean)
    .join("; ");
  return [names, `${o.help}${extra ? ` (${extra})` : ""}`];
}

function columns(rows: ReadonlyArray<[string, string]>): string {
  const width = Math.min(38, Math.max(...rows.map(([a]) => a.length)));
  return rows
    .map(([a, b]) =>
      a.length > width ? `  ${a}\n  ${"".padEnd(width)}  ${b}` : `  ${a.padEnd(width)}  ${b}`,
    )
    .join("\n");
}

/** --help of one command: usage, what it does, arguments, flags by section, examples, exit codes. */
export function commandHelp(path: string[], c: CommandSpec): string {
  const sections = new Map<string, OptionSpec[]>();
  for (const o of c.options)
    sections.set(o.section ?? "Flags", [...(sections.get(o.section ?? "Flags") ?? []), o]);
  const args = (c.args ?? [])
    .map((a) =>
      a.optional ? `[${a.name}${a.variadic ? "..." : ""}]` : `${a.name}${a.variadic ? "..." : ""}`,
    )
    .join(" ");
  const out = [`Usage: kubectl harbor ${path.join(" ")}${args ? ` ${args}` : ""} [flags]`, "", c.summary];
  if (c.description) out.push("", c.description);
  if (c.args?.length) out.push("", "Arguments:", columns(c.args.map((a) => [a.name, a.help])));
  for (const [title, opts] of sections)
    if (opts.length) out.push("", `${title}:`, columns(opts.map(flagLine)));
  if (c.examples?.length) out.push("", "Examples:", ...c.examples.map((e) => `  ${e}`));
  out.push("", EXIT_CODES);
  return `${out.join("\n")}\n`;
}

/** --help of a group: its commands. */
export function groupHelp(g: GroupSpec): string {
  const out = [`Usage: kubectl harbor ${g.name} COMMAND [flags]`, "", g.summary];
  if (g.description) out.push("", g.description);
  out.push("", "Commands:", columns(g.commands.map((c) => [c.name, c.summary])));
  out.push("", `Run 'kubectl harbor ${g.name} COMMAND --help' for a command's flags.`);
  return `${out.join("\n")}\n`;
}
