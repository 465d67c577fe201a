// `npm run controlplane:build`: makes sure the control plane's binaries are at hand, building them
// on a machine's first run (minutes), finding them in the cache afterwards (milliseconds). The test
// runner calls it as its own step before vitest, so that a build's progress and failures show.
import { cacheDir, prepareBinaries } from "./binaries.ts";

const log = (line: string) => process.stdout.write(`${line}\n`);
const started = Date.now();
try {
  const binaries = await prepareBinaries(log);
  log(`control plane binaries ready in ${Date.now() - started} ms:`);
  for (const [name, path] of Object.entries(binaries)) log(`  ${name}: ${path ?? "(none)"}`);
  if (!process.env.KUBEBUILDER_ASSETS) log(`  cache: ${cacheDir()}`);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
