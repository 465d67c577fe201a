// `npm run helm:build`: makes sure the Helm tests' helm is at hand, building it on a machine's first
// run (minutes), finding it in the cache afterwards (milliseconds). The test runner calls it as its
// own step before vitest, so that a build's progress and failures show.
import { spawnSync } from "node:child_process";
import { cacheDir, prepareHelm } from "./binaries.ts";

const log = (line: string) => process.stdout.write(`${line}\n`);
const started = Date.now();
try {
  const helm = await prepareHelm(log);
  const version = spawnSync(helm, ["version", "--short"], { encoding: "utf8" }).stdout.trim();
  log(`helm ${version} ready in ${Date.now() - started} ms: ${helm}`);
  log(`  cache: ${cacheDir()}`);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
