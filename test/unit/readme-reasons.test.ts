// The troubleshooting page (docs/troubleshooting.md) names every condition reason and Event reason
// the operator can emit: they are read from the code where it emits them (the reason of a NotReady
// or Stalled wait, a `reason:` of a condition or error classification, the reason of an Event), so a
// new reason without a line there fails here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { emittedReasons, repoRoot as root, sourcesBelow } from "../env/reasons.ts";

/** Every .ts file below src/, except the CRD contract (src/api: CEL reasons, not the operator's). */
const sources = () => sourcesBelow(".", ["api"]);

test("docs/troubleshooting.md names every reason the operator emits", () => {
  const section = readFileSync(join(root, "docs", "troubleshooting.md"), "utf8");
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
  expect(missing, "reasons docs/troubleshooting.md does not name").toEqual([]);
});
