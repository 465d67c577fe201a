// `npm run flux:build`: makes sure the real-Flux test's kustomize-controller and CRDs are at hand,
// building them on a machine's first run (minutes), finding them in the cache afterwards.
// `npm run test:flux` calls it as its own step before vitest, so that a build's progress shows.
import { cacheDir, prepareFlux } from "./binaries.ts";

const log = (line: string) => process.stdout.write(`${line}\n`);
const started = Date.now();
try {
  const { version, binary, crds } = await prepareFlux(log);
  log(`Flux kustomize-controller ${version} ready in ${Date.now() - started} ms:`);
  log(`  binary: ${binary}`);
  log(`  CRDs:   ${crds}`);
  log(`  cache:  ${cacheDir()}`);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
