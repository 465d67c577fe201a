// Harbor's list contract: the `q` language, `sort`, and pagination with X-Total-Count and Link.
import { badRequest } from "./errors.ts";
import type { Ctx, Reply } from "./router.ts";

// ---------------------------------------------------------------------------------------------
// q: k=v (exact), k=~v (fuzzy), k=[min~max] (range), k={a b} (union), k=(a b) (intersection)

export type QValue =
  | { kind: "exact"; value: string }
  | { kind: "fuzzy"; value: string }
  | { kind: "range"; min?: QScalar; max?: QScalar }
  | { kind: "union" | "intersection"; values: QScalar[] };
/** Range bounds and list items are typed: time first, then integer, then string. */
export type QScalar = Date | number | string;

export function parseQ(raw: string | undefined): Map<string, QValue> {
  const keywords = new Map<string, QValue>();
  if (!raw) return keywords;
  let text = raw;
  // Harbor unescapes q once more; a malformed escape keeps the original text.
  try {
    text = decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    text = raw;
  }
  for (const param of text.split(",")) {
    const eq = param.indexOf("=");
    const key = eq < 0 ? "" : param.slice(0, eq);
    const value = eq < 0 ? "" : param.slice(eq + 1);
    if (key === "" || value === "") {
      throw badRequest('the query string must contain "=" and the key/value cannot be empty');
    }
    const parsed = parsePattern(value);
    if (!parsed) throw badRequest(`invalid query string value: ${value}`);
    keywords.set(key, parsed);
  }
  return keywords;
}

function parsePattern(value: string): QValue | undefined {
  switch (value[0]) {
    case "~":
      return value.length < 2 ? undefined : { kind: "fuzzy", value: value.slice(1) };
    case "[": {
      if (!value.endsWith("]") || value.split("~").length !== 2) return undefined;
      const [minText, maxText] = value
        .slice(1, -1)
        .split("~")
        .map((s) => s.trim()) as [string, string];
      if (minText === "" && maxText === "") return undefined;
      return {
        kind: "range",
        ...(minText ? { min: typedValue(minText) } : {}),
        ...(maxText ? { max: typedValue(maxText) } : {}),
      };
    }
    case "{":
    case "(": {
      const close = value[0] === "{" ? "}" : ")";
      if (!value.endsWith(close)) return undefined;
      const values = value
        .slice(1, -1)
        .split(" ")
        .map(typedValue)
        .filter((v) => v !== "");
      return { kind: value[0] === "{" ? "union" : "intersection", values };
    }
    default:
      return { kind: "exact", value: value.startsWith("\\") ? value.slice(1) : value };
  }
}

function typedValue(text: string): QScalar {
  const v = text.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(v)) return new Date(`${v}Z`);
  if (/^[+-]?\d+$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  return v.replace(/^["']+|["']+$/g, "");
}

/** How a resource exposes its fields to q and sort: key → value (keys are matched as given). */
export type Fields<T> = Record<string, (item: T) => string | number | boolean | undefined>;

/**
 * Filters items by the parsed keywords. Keys the resource does not know are ignored, as Harbor
 * does; intersection lists are ignored by generic models too.
 */
export function applyQ<T>(items: T[], keywords: Map<string, QValue>, fields: Fields<T>): T[] {
  return items.filter((item) => {
    for (const [key, cond] of keywords) {
      const get = fields[key] ?? fields[snakeCase(key)];
      if (!get) continue;
      if (!matches(get(item), cond)) return false;
    }
    return true;
  });
}

function matches(actual: string | number | boolean | undefined, cond: QValue): boolean {
  switch (cond.kind) {
    case "exact":
      return String(actual ?? "") === cond.value;
    case "fuzzy":
      return String(actual ?? "")
        .toUpperCase()
        .includes(cond.value.toUpperCase());
    case "range": {
      const a = comparable(actual);
      if (cond.min !== undefined && a < comparable(cond.min)) return false;
      if (cond.max !== undefined && a > comparable(cond.max)) return false;
      return true;
    }
    case "union":
      return cond.values.some((v) => String(comparableOrText(v)) === String(actual ?? ""));
    case "intersection":
      return true;
  }
}

function comparable(v: QScalar | boolean | undefined): number | string {
  if (v instanceof Date) return v.getTime();
  if (typeof v === "number") return v;
  if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}T/.test(v)) return Date.parse(v);
  return String(v ?? "");
}

function comparableOrText(v: QScalar): string | number {
  return v instanceof Date ? v.toISOString() : v;
}

function snakeCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/ID$/, "Id")
    .toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// sort: "k1,-k2"; unknown keys are ignored; no valid key means the resource's default order.

export function applySort<T>(
  items: T[],
  sort: string | undefined,
  fields: Fields<T>,
  defaultOrder?: (a: T, b: T) => number,
): T[] {
  const keys = (sort ?? "")
    .split(",")
    .filter(Boolean)
    .map((k) => ({ desc: k.startsWith("-"), key: k.replace(/^-/, "") }))
    .filter((k) => fields[k.key] !== undefined);
  const out = [...items];
  if (keys.length === 0) return defaultOrder ? out.sort(defaultOrder) : out;
  return out.sort((a, b) => {
    for (const { key, desc } of keys) {
      const get = fields[key] as (item: T) => unknown;
      const c = compare(get(a), get(b));
      if (c !== 0) return desc ? -c : c;
    }
    return 0;
  });
}

export function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a ?? "").localeCompare(String(b ?? ""));
}

// ---------------------------------------------------------------------------------------------
// pagination

export interface PageOptions {
  /** Some handlers return early, without Link, when nothing matches (projects, user groups). */
  noLinkWhenEmpty?: boolean;
  /**
   * X-Total-Count (and the Link it implies) when Harbor counts other than the items: the member
   * list counts every member of the project whatever its name filter keeps.
   */
  total?: number;
}

/**
 * One page of `items` with X-Total-Count and Link as Harbor writes them. page_size <= 0 means no
 * limit (and no Link); page <= 0 means no offset.
 */
export function page(ctx: Ctx, items: unknown[], options: PageOptions = {}): Reply {
  const total = options.total ?? items.length;
  const pageNo = Number(ctx.query.page ?? 1);
  const size = Number(ctx.query.page_size ?? 10);
  const headers: Record<string, string> = { "x-total-count": String(total) };
  if (size <= 0) return { status: 200, json: items, headers };
  const offset = pageNo > 0 ? (pageNo - 1) * size : 0;
  const slice = items.slice(offset, offset + size);
  if (!(options.noLinkWhenEmpty && total === 0)) {
    const links: string[] = [];
    if (pageNo > 1 && (pageNo - 1) * size < total)
      links.push(`<${linkUrl(ctx, pageNo - 1, size)}>; rel="prev"`);
    if (pageNo * size < total) links.push(`<${linkUrl(ctx, pageNo + 1, size)}>; rel="next"`);
    if (links.length) headers.link = links.join(" , ");
  }
  return { status: 200, json: slice, headers };
}

/** The request's own path and query, keys sorted (Go's url.Values.Encode), then unescaped. */
function linkUrl(ctx: Ctx, pageNo: number, size: number): string {
  const params = new Map<string, string[]>();
  for (const [k, v] of ctx.rawQuery) params.set(k, [...(params.get(k) ?? []), v]);
  params.set("page", [String(pageNo)]);
  params.set("page_size", [String(size)]);
  const query = [...params.keys()]
    .sort()
    .flatMap((k) => (params.get(k) ?? []).map((v) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`))
    .join("&");
  let unescaped = query;
  try {
    unescaped = decodeURIComponent(query);
  } catch {
    // keep the escaped form
  }
  return `${ctx.url.pathname}?${unescaped}`;
}

/** q, sort and paging in one call, for list handlers. */
export function listReply<T>(
  ctx: Ctx,
  items: T[],
  fields: Fields<T>,
  options: PageOptions & { defaultOrder?: (a: T, b: T) => number; render?: (item: T) => unknown } = {},
): Reply {
  const filtered = applyQ(items, parseQ(ctx.rawQuery.get("q") ?? undefined), fields);
  const sorted = applySort(filtered, ctx.rawQuery.get("sort") ?? undefined, fields, options.defaultOrder);
  return page(ctx, options.render ? sorted.map(options.render) : sorted, options);
}
