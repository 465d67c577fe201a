// A builder for Harbor's `q` query language (`q=k=v,k=~v,k=[min~max],k={a b},k=(a b)`).
//
// How Harbor reads `q` decides what we can send safely: the server URL-unescapes the value once
// more after normal query decoding, splits it on every ",", splits each term at the first "=", and
// parses range and list items by trimming spaces, then trying a time (2006-01-02T15:04:05), then an
// integer, then a string with surrounding quotes stripped. So:
// - values are percent-encoded here (and the whole `q` again by URL encoding) so that "%", "+" and
//   friends survive the second unescape;
// - a comma can never be part of a value, and list items cannot hold spaces: such values are refused
//   with an error instead of silently matching something else;
// - an exact value that starts with a special character (~ [ { ( \) is escaped with a leading "\";
// - a string item that would be typed as a number or time is quoted to stay a string.

export class HarborQueryError extends Error {
  override readonly name = "HarborQueryError";
}

export type QueryItem = string | number | Date;

type Term =
  | { key: string; op: "exact"; value: QueryItem | boolean }
  | { key: string; op: "fuzzy"; value: string }
  | { key: string; op: "range"; min?: QueryItem; max?: QueryItem }
  | { key: string; op: "union" | "intersection"; values: QueryItem[] };

const SPECIAL_FIRST = new Set(["~", "[", "{", "(", "\\"]);
const TIME_LIKE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const INT_LIKE = /^[+-]?\d+$/;

export class Query {
  readonly #terms: Term[] = [];

  /** `key=value`: exact match. */
  exact(key: string, value: QueryItem | boolean): this {
    return this.#add({ key, op: "exact", value });
  }

  /** `key=~value`: case-insensitive "contains". */
  fuzzy(key: string, value: string): this {
    if (value === "") throw new HarborQueryError(`q: fuzzy value for "${key}" must not be empty`);
    return this.#add({ key, op: "fuzzy", value });
  }

  /** `key=[min~max]`: inclusive range; one side may be left open. */
  range(key: string, min?: QueryItem, max?: QueryItem): this {
    if (min === undefined && max === undefined) {
      throw new HarborQueryError(`q: range for "${key}" needs a min or a max`);
    }
    return this.#add({
      key,
      op: "range",
      ...(min === undefined ? {} : { min }),
      ...(max === undefined ? {} : { max }),
    });
  }

  /** `key={a b c}`: matches any of the values. */
  union(key: string, values: readonly QueryItem[]): this {
    return this.#add({ key, op: "union", values: [...values] });
  }

  /** `key=(a b c)`: matches all of the values (only some Harbor resources implement it). */
  intersection(key: string, values: readonly QueryItem[]): this {
    return this.#add({ key, op: "intersection", values: [...values] });
  }

  get empty(): boolean {
    return this.#terms.length === 0;
  }

  /** The value of the `q` query parameter (before URL encoding of the parameter itself). */
  toString(): string {
    return this.#terms.map(render).join(",");
  }

  #add(term: Term): this {
    checkKey(term.key);
    render(term); // validate eagerly so the error points at the call that added the bad value
    this.#terms.push(term);
    return this;
  }
}

export function q(): Query {
  return new Query();
}

function checkKey(key: string): void {
  if (key === "" || /[=,\s]/.test(key)) {
    throw new HarborQueryError(`q: invalid key ${JSON.stringify(key)}`);
  }
}

function render(t: Term): string {
  switch (t.op) {
    case "exact":
      return `${t.key}=${exactValue(t.key, t.value)}`;
    case "fuzzy":
      return `${t.key}=~${encode(t.key, t.value)}`;
    case "range":
      return `${t.key}=[${t.min === undefined ? "" : item(t.key, t.min, "~")}~${t.max === undefined ? "" : item(t.key, t.max, "~")}]`;
    case "union":
    case "intersection": {
      if (t.values.length === 0) throw new HarborQueryError(`q: list for "${t.key}" must not be empty`);
      const inner = t.values.map((v) => item(t.key, v, " ")).join(" ");
      return t.op === "union" ? `${t.key}={${inner}}` : `${t.key}=(${inner})`;
    }
  }
}

function exactValue(key: string, value: QueryItem | boolean): string {
  const s = value instanceof Date ? timeText(value) : String(value);
  if (s === "") throw new HarborQueryError(`q: exact value for "${key}" must not be empty`);
  const escaped = SPECIAL_FIRST.has(s[0] as string) ? `\\${s}` : s;
  return encode(key, escaped);
}

/** A range bound or list item; `separator` is the character that would split it. */
function item(key: string, value: QueryItem, separator: string): string {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new HarborQueryError(`q: "${key}" items must be integers`);
    return String(value);
  }
  if (value instanceof Date) return timeText(value);
  if (value === "" || value.trim() !== value) {
    throw new HarborQueryError(`q: "${key}" item ${JSON.stringify(value)} is empty or has outer spaces`);
  }
  if (value.includes(separator) || /^["']|["']$/.test(value)) {
    throw new HarborQueryError(`q: "${key}" item ${JSON.stringify(value)} cannot be expressed in q`);
  }
  // Harbor would type these as an integer or a time; quoting keeps them strings.
  const typed = INT_LIKE.test(value) || TIME_LIKE.test(value) ? `"${value}"` : value;
  return encode(key, typed);
}

function encode(key: string, value: string): string {
  if (value.includes(",")) {
    throw new HarborQueryError(`q: value for "${key}" contains a comma, which Harbor's q cannot express`);
  }
  return encodeURIComponent(value);
}

/** Harbor's q time format: UTC, seconds precision, no zone. */
function timeText(d: Date): string {
  return d.toISOString().slice(0, 19);
}

/** Filters shared by Harbor's list operations that accept `q` and `sort`. */
export interface ListFilter {
  q?: Query;
  /** Comma-separated keys, "-" for descending: "name,-creation_time". Unknown keys are ignored. */
  sort?: string;
}

/** A ListFilter for a history listing that may stop after its first runs. */
export interface HistoryListFilter extends ListFilter {
  /** Only the first this many runs in sort order: one small page instead of every page. */
  limit?: number;
}

export function listQuery(f: ListFilter | undefined): { q?: string; sort?: string } {
  return {
    ...(f?.q && !f.q.empty ? { q: f.q.toString() } : {}),
    ...(f?.sort ? { sort: f.sort } : {}),
  };
}
