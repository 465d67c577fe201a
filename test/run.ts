// The project's one test command (`npm test`). It runs the static checks (typecheck, lint) and then
// every vitest project, and ends with the plain summary line `N passed, M failed` that CI reads.
// Static checks count as one test each. Extra arguments go to vitest (e.g. a file filter); when any
// are given the static checks are skipped so that a single file runs quickly. `--with-argocd` and
// `--with-flux` add the real-Argo CD and real-Flux tests at the end (also `npm run test:argocd`,
// `npm run test:flux`).
//
// Vitest and every Node process under it run with the network guard (env/net-guard.js): a
// connection or DNS lookup that would leave loopback is refused and recorded, and any such record
// fails the run, whatever the tests themselves said.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cacheFolder } from "./env/cache.ts";
import { describeRefusal, guardRecords, withGuard } from "./env/net-guard-env.ts";

// --with-argocd and --with-flux are this script's own; every other argument goes to vitest.
const withArgoCd = process.argv.includes("--with-argocd");
const withFlux = process.argv.includes("--with-flux");
const args = process.argv.slice(2).filter((a) => a !== "--with-argocd" && a !== "--with-flux");
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
// The Helm tests' helm is built the same way, in a step of its own (they need the control plane too).
const vitestArgs = [...args, "--project=!argocd", "--project=!flux"];
if (args.length === 0) {
  if (!buildStep("control plane binaries", join("controlplane", "build.ts"))) {
    process.stdout.write("✗ control plane binaries failed: the cluster and Helm tests are skipped\n");
    vitestArgs.push("--project=!cluster", "--project=!helm");
  } else if (!buildStep("helm", join("helm", "build.ts"))) {
    process.stdout.write("✗ helm failed: the Helm tests are skipped\n");
    vitestArgs.push("--project=!helm");
  }
}
// One record of the network guard for every vitest run of this command.
const guardDir = mkdtempSync(join(tmpdir(), "hco-guard-"));
const guardLog = join(guardDir, "net-guard.jsonl");
writeFileSync(guardLog, "");
vitest(args.length === 0 ? vitestArgs : args);

// The real-Argo CD test (test/argocd/) has a first build of its own, and runs after everything
// else, alone on the machine: with --with-argocd, or `npm run test:argocd`.
if (withArgoCd) {
  if (buildStep("Argo CD binaries", join("argocd", "build.ts"))) vitest(["--project=argocd"]);
  else process.stdout.write("✗ Argo CD binaries failed: the Argo CD test is skipped\n");
}
// The real-Flux test (test/flux/) likewise: with --with-flux, or `npm run test:flux`.
if (withFlux) {
  if (buildStep("Flux binaries", join("flux", "build.ts"))) vitest(["--project=flux"]);
  else process.stdout.write("✗ Flux binaries failed: the Flux test is skipped\n");
}

const records = guardRecords(guardLog);
const refused = records.filter((r) => r.event === "refused");
const armed = new Set(records.filter((r) => r.event === "armed").map((r) => r.pid)).size;
process.stdout.write(`\n▶ network guard\n${armed} Node processes guarded\n`);
if (armed === 0) {
  // Without it loaded, a clean record would prove nothing.
  failed++;
  process.stdout.write("✗ network guard failed: it was not loaded into vitest (NODE_OPTIONS)\n");
}
if (refused.length > 0) {
  failed++;
  process.stdout.write(
    `✗ network guard failed: ${refused.length} attempt(s) to leave loopback\n${refused.map(describeRefusal).join("\n")}\n`,
  );
}
rmSync(guardDir, { recursive: true, force: true });
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 ? 0 : 1);

/** Runs a build script of test/env as its own step; a failure counts as one. */
function buildStep(name: string, script: string): boolean {
  process.stdout.write(`\n▶ ${name}\n`);
  const build = spawnSync(process.execPath, [join(import.meta.dirname, "env", script)], { stdio: "inherit" });
  if (build.status === 0) return true;
  failed++;
  return false;
}

/** One vitest run; its passed and failed tests are added to the counts. */
function vitest(vitestArgs: string[]): void {
  const outDir = mkdtempSync(join(tmpdir(), "hco-test-"));
  const report = join(outDir, "report.json");
  process.stdout.write(`\n▶ vitest ${vitestArgs.join(" ")}\n`);
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
    {
      stdio: "inherit",
      env: {
        ...process.env,
        NODE_OPTIONS: withGuard(process.env.NODE_OPTIONS),
        HCO_NET_GUARD_LOG: guardLog,
        // The operator and CLI processes the tests start (hundreds) then reuse Node's compiled, type-
        // stripped sources instead of compiling them anew: about half of each start's CPU.
        NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || cacheFolder("node-compile-cache"),
      },
    },
  );
  let counted = 0;
  try {
    const r = JSON.parse(readFileSync(report, "utf8")) as {
      numPassedTests: number;
      numFailedTests: number;
      numFailedTestSuites: number;
    };
    passed += r.numPassedTests;
    // A file that fails to load has no tests to count; count it as one failure so it cannot hide.
    counted = r.numFailedTests + (r.numFailedTests === 0 ? r.numFailedTestSuites : 0);
  } catch {
    counted = 1;
    process.stdout.write("✗ vitest produced no report\n");
  }
  if (run.status !== 0 && counted === 0) counted = 1;
  failed += counted;
  // HCO_TEST_REPORT keeps vitest's JSON report (every file's and test's duration) for a look after.
  if (process.env.HCO_TEST_REPORT && existsSync(report)) copyFileSync(report, process.env.HCO_TEST_REPORT);
  rmSync(outDir, { recursive: true, force: true });
}
