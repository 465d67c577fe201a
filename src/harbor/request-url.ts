// How a Harbor call's URL is built: each value a path segment of its own, query arrays as Harbor's
// swagger reads them, and no id Harbor cannot hold (its ids are int4; a larger one makes it answer
// 500), which the transport refuses before anything is sent.
import type { HarborRequest } from "./transport.ts";

/** Harbor's ids are PostgreSQL integers; the API takes int64 and answers a larger one with a 500. */
export const MAX_HARBOR_ID = 2 ** 31 - 1;
const fitsInt4 = (n: number) => Number.isSafeInteger(n) && n >= -(2 ** 31) && n <= MAX_HARBOR_ID;
/**
 * What `path` puts in place of a number Harbor cannot hold: braces never survive encodeURIComponent,
 * so no encoded name can look like it, and `send` refuses a path that holds one.
 */
const OUT_OF_RANGE = /\{out-of-range:([^}]*)\}/;

/** Encodes each interpolated value as one path segment: path`/projects/${name}/robots`. */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce((acc, s, i) => {
    if (i >= values.length) return acc + s;
    const v = values[i];
    const segment =
      typeof v === "number" && !fitsInt4(v) ? `{out-of-range:${v}}` : encodeURIComponent(String(v));
    return acc + s + segment;
  }, "");
}

/** A number Harbor cannot hold as an id, in the path or in an id query parameter. */
export function idOutOfRange(req: Pick<HarborRequest, "path" | "query">): string | undefined {
  const inPath = OUT_OF_RANGE.exec(req.path)?.[1];
  if (inPath !== undefined) return inPath;
  for (const [k, v] of Object.entries(req.query ?? {})) {
    if (/(^|_)id$/i.test(k) && typeof v === "number" && !fitsInt4(v)) return String(v);
  }
  return undefined;
}

export function queryString(query: HarborRequest["query"]): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    // Swagger 2's default collection format for query arrays is csv.
    params.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}
