// `npm run bench -- --export` on a tiny Harbor: the emulator process is populated, the npm bin
// exports it, and every figure of the result is filled in. Speed is not judged here (that is the
// benchmark's job); this keeps the export benchmark from rotting unnoticed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { renderExportResult, runExportBenchmark } from "../../bench/export.ts";
import { budget } from "../../env/budget.ts";

const workDir = mkdtempSync(join(tmpdir(), "hco-bench-export-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

test("the export benchmark runs end to end and reports what it measured", {
  timeout: budget.longTestMs,
}, async () => {
  const r = await runExportBenchmark({
    projects: 6,
    robots: 6,
    webhooks: 2,
    latencyMs: 1,
    workDir,
    log: () => {},
  });
  expect(r.files).toMatchObject({ harborprojects: 7, harborrobots: 6, harborwebhookpolicies: 2 });
  expect(r.seconds).toBeGreaterThan(0);
  // One robot list and one webhook list per project (the emulator's own "library" included).
  expect(r.harbor.byOperation).toMatchObject({ "GET ListRobot": 8, "GET ListWebhookPoliciesOfProject": 7 });
  expect(r.harbor.byMethod).toEqual({ GET: r.harbor.total });
  // Not the target's size: no verdict.
  expect(r.target.met).toBeUndefined();
  expect(renderExportResult(r)).toMatch(
    /^### Export of 6 projects, 6 robots, 2 webhook policies\n\n.*\*\*[\d.]+ s\*\*/,
  );
});
