// The condition and Event reasons the operator's code emits, read from the places it emits them (the
// reason of a NotReady or Stalled wait, a `reason:` of a condition or error classification, the
// reason of an Event). The docs tests compare them with what the pages name.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const repoRoot = join(import.meta.dirname, "..", "..");

/** The text of every .ts file below a folder of src/ (recursively), except the skipped prefixes. */
export function sourcesBelow(folder: string, skip: readonly string[] = []): string {
  const dir = join(repoRoot, "src", folder);
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !skip.some((s) => f.startsWith(s)))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
}

const REASON = /"([A-Z][A-Za-z]+)"|\b([A-Z][A-Z_]{2,})\b/;

/** Reasons the code emits, resolving constants such as INVALID_SPEC = "InvalidSpec". */
export function emittedReasons(text: string, constantsFrom = text): Set<string> {
  const constants = new Map(
    [...constantsFrom.matchAll(/const ([A-Z][A-Z_]+) = "([A-Z][A-Za-z]+)"/g)].map((m) => [m[1], m[2]]),
  );
  const value = (m: RegExpExecArray | RegExpMatchArray) =>
    m[1] ?? (m[2] === undefined ? undefined : constants.get(m[2]));
  const patterns = [
    // new NotReady("ConnectionNotReady", …), new Stalled(INVALID_SPEC, …)
    new RegExp(`new (?:NotReady|Stalled)\\(\\s*${REASON.source}`, "g"),
    // reason: "HarborRejected", and both sides of reason: x ? "A" : "B"
    new RegExp(`reason: ${REASON.source}`, "g"),
    /reason:[^,\n]*\? "([A-Z][A-Za-z]+)"/g,
    /reason:[^,\n]*\? "[A-Za-z]+" : "([A-Z][A-Za-z]+)"/g,
    // events.record(obj, "Normal", "Created", …), also with a conditional reason
    new RegExp(`record\\(\\s*[^,()]+,\\s*"(?:Normal|Warning)",\\s*${REASON.source}`, "g"),
    /record\(\s*[^,()]+,\s*"(?:Normal|Warning)",\s*[^,?]+\? "([A-Z][A-Za-z]+)"/g,
    /record\(\s*[^,()]+,\s*"(?:Normal|Warning)",\s*[^,?]+\? "[A-Za-z]+" : "([A-Z][A-Za-z]+)"/g,
  ];
  const found = new Set<string>();
  for (const pattern of patterns) {
    for (const m of text.matchAll(pattern)) {
      const v = value(m);
      if (v !== undefined) found.add(v);
    }
  }
  return found;
}
