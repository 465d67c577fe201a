// What the InvalidSpec condition says about a spec the operator cannot use: each field by its path
// and the value found there, so that the user sees what to change without reading the schema.
// Values are quoted as JSON, capped, with invisible characters written out as escapes and a URL's
// user info (a password, maybe) left out.
import type { z } from "zod";

/** The reason of a spec that no retry can use; the resource is Stalled until it changes. */
export const INVALID_SPEC = "InvalidSpec";

const MAX_VALUE_CHARS = 80;

/** `"1.5"`, `"a\u200bb"`: a value as the message shows it. */
export function quoteValue(value: unknown): string {
  const json = (JSON.stringify(value) ?? String(value)).replace(/(:\/\/)[^/?#"]*@/g, "$1…@");
  // JSON escapes C0 controls; C1 controls and format characters (zero-width, bidi) it leaves raw.
  const visible = json.replace(
    /[\p{Cc}\p{Cf}\u2028\u2029]/gu,
    (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, "0")}`,
  );
  return visible.length > MAX_VALUE_CHARS ? `${visible.slice(0, MAX_VALUE_CHARS - 1)}…` : visible;
}

/** `spec.cveAllowlist.items[2]` */
export function fieldPath(root: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : `${out}.${String(key)}`),
    root,
  );
}

/** One clause per problem: `spec.storageLimit "1.5": must be …`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], spec: unknown): string {
  return issues
    .map((issue) => {
      const value = valueAt(spec, issue.path);
      const shown = value === undefined ? "" : ` ${quoteValue(value)}`;
      return `${fieldPath("spec", issue.path)}${shown}: ${issue.message}`;
    })
    .join("; ");
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}
