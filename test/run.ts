// The project's one test command (`npm test`). It runs the static checks (typecheck, lint) and then
// every vitest project, and ends with the plain summary line `N passed, M failed` that CI reads.
// Static checks count as one test each. Extra arguments go to vitest (e.g. a file filter); when any
// are given the static checks are skipped so that a single file runs quickly.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const bin = (name: string) => join(import.meta.dirname, "..", "node_modules", ".bin", name);
let passed = 0;
let failed = 0;

function check(name: string, cmd: string, cmdArgs: string[]): void {
  process.stdout.write(`\n▶ ${name}\n`);
  const r = spawnSync(cmd, cmdArgs, { stdio: "inherit" });
  if (r.status === 0) passed++;
  else {
    failed++;
    process.stdout.write(`✗ ${name} failed\n`);
  }
}

if (args.length === 0) {
  installScriptsCovered();
  check("typecheck", bin("tsc"), ["-p", "tsconfig.json"]);
  check("lint", bin("biome"), ["check", "."]);
}

// Every dependency install script the install found is approved by package.json's allowScripts.
// `.npmrc` makes npm 11.16+ fail such an install already (strict-allow-scripts); this reads npm's
// own report as well, so that an install run with the check switched off cannot pass unnoticed.
// npm before 11.16 has no allowScripts: it runs every install script and has nothing to report.
function installScriptsCovered(): void {
  const name = "dependency install scripts approved";
  process.stdout.write(`\n▶ ${name}\n`);
  const npmCli = process.env.npm_execpath;
  if (!npmCli) {
    process.stdout.write("not started through npm: nothing to ask\n");
    passed++;
    return;
  }
  const r = spawnSync(
    process.env.npm_node_execpath ?? process.execPath,
    [npmCli, "install-scripts", "ls", "--json"],
    {
      encoding: "utf8",
    },
  );
  if (r.status !== 0 && /Unknown command/.test(`${r.stdout}${r.stderr}`)) {
    process.stdout.write("this npm predates allowScripts: every install script ran\n");
    passed++;
    return;
  }
  let pending: Array<{ name: string; changes?: Array<{ key: string }> }> | undefined;
  try {
    pending = (JSON.parse(r.stdout) as { allowScripts: typeof pending }).allowScripts;
  } catch {
    pending = undefined;
  }
  if (r.status === 0 && pending?.length === 0) {
    process.stdout.write("every install script is covered by allowScripts\n");
    passed++;
    return;
  }
  failed++;
  const names = (pending ?? []).flatMap((p) => p.changes?.map((c) => c.key) ?? [p.name]).join(", ");
  process.stdout.write(
    `✗ ${name} failed: ${names ? `not covered by allowScripts: ${names}` : `npm install-scripts ls answered ${r.status}: ${r.stderr}`}\n` +
      "  Review the package's install script, then `npm install-scripts approve <package>` and commit package.json.\n",
  );
}

// The cluster tests run a real control plane whose binaries are built on a machine's first run
// (minutes) and found in a cache afterwards. A step of its own, so that a build's progress and
// failures show before any test starts; like the static checks it counts, but only when it fails,
// and then the cluster project is left out rather than failing file by file.
// The real-Argo CD test has a first build of its own (see README, Testing): `npm run test:argocd`.
const vitestArgs = args.length === 0 ? ["--project=!argocd"] : [...args];
if (args.length === 0) {
  process.stdout.write("\n▶ control plane binaries\n");
  const build = spawnSync(process.execPath, [join(import.meta.dirname, "env", "controlplane", "build.ts")], {
    stdio: "inherit",
  });
  if (build.status !== 0) {
    failed++;
    process.stdout.write("✗ control plane binaries failed: the cluster tests are skipped\n");
    vitestArgs.push("--project=!cluster");
  }
}

const outDir = mkdtempSync(join(tmpdir(), "hco-test-"));
const report = join(outDir, "report.json");
process.stdout.write("\n▶ vitest\n");
const run = spawnSync(
  bin("vitest"),
  [
    "run",
    "--config",
    "test/vitest.config.ts",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...vitestArgs,
  ],
  { stdio: "inherit" },
);
try {
  const r = JSON.parse(readFileSync(report, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numFailedTestSuites: number;
  };
  passed += r.numPassedTests;
  // A file that fails to load has no tests to count; count it as one failure so it cannot hide.
  failed += r.numFailedTests + (r.numFailedTests === 0 ? r.numFailedTestSuites : 0);
} catch {
  failed++;
  process.stdout.write("✗ vitest produced no report\n");
}
if (run.status !== 0 && failed === 0) failed++;
rmSync(outDir, { recursive: true, force: true });
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 ? 0 : 1);
