// go-swagger models mark non-required fields `omitempty`: false, 0, "" and empty lists disappear
// from responses unless the swagger says otherwise. `keep` names the fields that are always emitted.
export function omitEmpty<T extends object>(obj: T, keep: readonly string[] = []): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (keep.includes(k)) {
      out[k] = v;
      continue;
    }
    if (v === undefined || v === null || v === false || v === 0 || v === "") continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}
