// What the CLI prints: results on standard output as a table (for people), JSON or YAML (for
// scripts), and progress and notes on standard error. Everything printed passes the same net as
// the operator's logs: fields whose name says they hold a secret are replaced and inline
// credentials (Basic/Bearer values, user:password@ in URLs) masked; and text that comes from
// Harbor is stripped of control characters, so that no answer can move the cursor or recolour
// the terminal.
import type { Writable } from "node:stream";
import { stringify } from "yaml";
import { redact } from "../log.ts";

export type Format = "table" | "json" | "yaml";
export const FORMATS: readonly Format[] = ["table", "json", "yaml"];

/** A column of a table: its header and how a row shows in it. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/**
 * Controls (C0 but tab and newline, DEL, C1), format characters (zero-width, bidi overrides), lone
 * surrogates, and the line and paragraph separators.
 */
const CONTROL = /(?![\t\n])[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;

/** Text from elsewhere as it may reach a terminal: no escape sequences, no control characters. */
export function printable(text: string): string {
  return text.replace(CONTROL, "");
}

/** One table cell: one line, no control characters. */
export function cell(value: unknown): string {
  if (value === undefined || value === null || value === "") return "-";
  const text =
    typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  return printable(text.replace(/[\r\n\t]+/g, " "));
}

/** Rows as a table with a header line, columns padded to their widest cell. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((r) => columns.map((c) => cell(redact(c.value(r)))));
  const headers = columns.map((c) => c.header.toUpperCase());
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => (row[i] as string).length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i] as number)))
      .join("   ")
      .trimEnd();
  return `${[line(headers), ...cells.map(line)].join("\n")}\n`;
}

/** Data as JSON or YAML, redacted and with control characters removed from its text. */
export function structured(data: unknown, format: "json" | "yaml"): string {
  const clean = cleanText(redact(data));
  return format === "json" ? `${JSON.stringify(clean, null, 2)}\n` : stringify(clean, { lineWidth: 0 });
}

function cleanText(value: unknown): unknown {
  if (typeof value === "string") return printable(value);
  if (Array.isArray(value)) return value.map(cleanText);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cleanText(v)]));
  }
  return value;
}

/** A list in the chosen format: a table of these columns, or the rows themselves. */
export function list<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  format: Format,
  empty = "nothing found",
): string {
  if (format !== "table") return structured(rows, format);
  return rows.length === 0 ? `${empty}\n` : table(rows, columns);
}

/** One object in the chosen format: "field  value" lines, or the object itself. */
export function record(fields: ReadonlyArray<[string, unknown]>, data: unknown, format: Format): string {
  if (format !== "table") return structured(data, format);
  const width = Math.max(...fields.map(([k]) => k.length));
  return `${fields.map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${cell(redact(v))}`).join("\n")}\n`;
}

/**
 * Progress of long work on standard error. On a terminal one line is rewritten in place (at most
 * ten times a second); elsewhere (CI logs) a line is written when a step completes, and at most
 * every five seconds in between.
 */
export class Progress {
  readonly #out: Writable;
  readonly #tty: boolean;
  readonly #quiet: boolean;
  #last = 0;
  #shown = false;
  #lines = new Map<string, string>();

  constructor(out: Writable, opts: { tty: boolean; quiet: boolean }) {
    this.#out = out;
    this.#tty = opts.tty;
    this.#quiet = opts.quiet;
  }

  /** `what`: done of total (or just a count). */
  update(what: string, done: number, total?: number): void {
    if (this.#quiet) return;
    const text = total === undefined ? `${what}: ${done}` : `${what}: ${done}/${total}`;
    this.#lines.set(what, text);
    const now = Date.now();
    const complete = total !== undefined && done >= total;
    if (this.#tty) {
      if (!complete && now - this.#last < 100) return;
      this.#last = now;
      this.#out.write(`\r\u001b[K${[...this.#lines.values()].join(", ")}`);
      this.#shown = true;
      return;
    }
    if (!complete && now - this.#last < 5000) return;
    this.#last = now;
    this.#out.write(`${text}\n`);
  }

  /** A line of its own (a step that starts or ends). */
  note(text: string): void {
    if (this.#quiet) return;
    this.clear();
    this.#out.write(`${text}\n`);
  }

  /** Ends the in-place line, so that what follows starts on a line of its own. */
  clear(): void {
    if (this.#tty && this.#shown) this.#out.write("\r\u001b[K");
    this.#shown = false;
    this.#lines.clear();
  }
}
