// One parse per version of a resource's spec. The claims (on every informer event), the reconcile
// and the drift sweep of a kind all read its spec; keyed by the spec object the informer holds, an
// event's spec is parsed once however many of them look at it, and a new version (a new object
// from the watch) is parsed afresh. The parsed value is shared: it is read, never changed.
import type { z } from "zod";

export type SpecParse<S> = (spec: unknown) => ReturnType<z.ZodType<S>["safeParse"]>;

/** A parser of `schema` that remembers its answer for each spec object while that object lives. */
export function specParser<S>(schema: z.ZodType<S>): SpecParse<S> {
  const parsed = new WeakMap<object, ReturnType<z.ZodType<S>["safeParse"]>>();
  return (spec) => {
    if (spec === null || typeof spec !== "object") return schema.safeParse(spec ?? {});
    let result = parsed.get(spec);
    if (!result) {
      result = schema.safeParse(spec);
      parsed.set(spec, result);
    }
    return result;
  };
}
