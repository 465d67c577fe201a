// The README's troubleshooting section names every condition reason and Event reason the operator
// can emit: they are read from the code where it emits them (the reason of a NotReady or Stalled
// wait, a `reason:` of a condition or error classification, the reason of an Event), so a new
// reason without a line in the README fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

const root = join(import.meta.dirname, "..", "..");

/** Every .ts file below src/, except the CRD contract (src/api: CEL reasons, not the operator's). */
function sources(): string {
  const files = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" }).filter(
    (f) => f.endsWith(".ts") && !f.startsWith("api"),
  );
  return files.map((f) => readFileSync(join(root, "src", f), "utf8")).join("\n");
}

const REASON = /"([A-Z][A-Za-z]+)"|\b([A-Z][A-Z_]{2,})\b/;

/** Reasons the code emits, resolving constants such as INVALID_SPEC = "InvalidSpec". */
function emittedReasons(text: string): Set<string> {
  const constants = new Map(
    [...text.matchAll(/const ([A-Z][A-Z_]+) = "([A-Z][A-Za-z]+)"/g)].map((m) => [m[1], m[2]]),
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

test("the README's troubleshooting section names every reason the operator emits", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(
    readme.indexOf("## Troubleshooting by condition reason"),
    readme.indexOf("## The Harbor emulator"),
  );
  const listed = new Set([...section.matchAll(/`([A-Z][A-Za-z]+)`/g)].map((m) => m[1]));
  const emitted = emittedReasons(sources());
  // The scan finds reasons of every kind of emitter, so it cannot pass by finding nothing.
  for (const known of [
    "InvalidSpec", // a constant
    "ConnectionNotReady", // a NotReady
    "HarborRejected", // an error classification
    "KubernetesError", // the other side of a conditional
    "DriftCorrected", // a conditional Event reason
    "Recreated", // an Event
    "ReplicationFailed", // an Event reason from a mapping
    "LDAPPingFailed", // a connection check
  ]) {
    expect(emitted, known).toContain(known);
  }
  const missing = [...emitted].filter((r) => !listed.has(r)).sort();
  expect(missing, "reasons the README's troubleshooting section does not name").toEqual([]);
});
