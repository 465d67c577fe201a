// `npm run bench`: how fast the operator converges, what it costs Harbor and Kubernetes, how it
// scales. See --help. Results go to --out as JSON and markdown and are printed; progress goes to
// standard error.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { deployedNodeOptions } from "./deployment.ts";
import { renderExportResult, runExportBenchmark } from "./export.ts";
import { machine, revision } from "./machine.ts";
import { killChildren, STATUS_REFRESH_RATIO, steadyDriftIntervalFor } from "./processes.ts";
import { renderResult, renderScaling } from "./report.ts";
import { type RunOptions, runBenchmark, stopRuns } from "./scenario.ts";
import { formatDuration, parseDuration } from "./stats.ts";
import type { BenchResult, ScalingResult } from "./types.ts";
import { mixFor, SCALING_SIZES, SIZES } from "./workload.ts";

const HELP = `Usage: npm run bench -- [options]

Starts a control plane (with an audit log), the Harbor emulator and the operator, creates a
workload through the Kubernetes API and measures convergence, an update wave, a restart, the
steady state and a delete wave. Per N projects the mix holds N projects, N robots, N/10
registries, N/10 replication policies, N/5 webhook policies, N project labels and 2 global ones,
N members of N/20 (at most 5) LDAP groups, N retention policies, N immutable tag rules, N/10
preheat policies, and once per Harbor a preheat instance, a configuration and a scan-all schedule.

  --size small|full|N          small: ${SIZES.small} projects (${mixFor(SIZES.small).total} objects); full: ${SIZES.full} (${mixFor(SIZES.full).total}); default small
  --scaling                    run a series instead: ${SCALING_SIZES.join(", ")} projects
  --scaling-sizes N,N,...      the series' sizes
  --latency-ms MS              latency the emulator adds to every Harbor request (default 10)
  --workers N                  the operator's --workers (default 16)
  --drift-interval DURATION    drift interval of the steady-state phase (default 10s per 1,000 projects, at least
                               5s: a drift pass must fit in its interval for the operator to have a steady state)
  --steady-intervals N         how many drift intervals the steady state lasts at least (default ${STATUS_REFRESH_RATIO}: the
                               steady operator's status refresh is ${STATUS_REFRESH_RATIO} drift intervals, as 1h to 5m by default)
  --converge-drift-interval D  drift interval while converging, updating, deleting (default 5m, the operator's)
  --rate N, --burst N          the HarborConnection's rateLimit (default 1000 and 1000)
  --max-concurrency N          the HarborConnection's maxConcurrency (default 64)
  --create-concurrency N       objects the benchmark creates at a time (default 8)
  --timeout DURATION           longest wait for one phase (default: 10m, more for large runs)
  --out DIR                    where results and logs go (default .bench)
  --node-options=FLAGS         node flags of the operator process (default: NODE_OPTIONS of deploy/deployment.yaml;
                               --node-options= for none), e.g. --node-options=--max-old-space-size=128
  --without-finalizer-policy   leave the finalizer's admission policy out (the operator writes each finalizer itself,
                               as on a cluster before Kubernetes 1.36)
  --profile                    write V8 CPU profiles of the operator (node --cpu-prof) into the run's folder
  --help                       show this text

Or, with --export, the time of \`kubectl harbor export\` (the npm bin, as users run it) against the
emulator alone, populated through Harbor's API; no control plane, no operator:

  --export                     run the export benchmark instead (uses --latency-ms and --out)
  --export-projects N          projects (default 1000)
  --export-robots N            project robots, spread over the projects (default 1000)
  --export-webhooks N          webhook policies, spread over the projects (default 200)
  --export-args "FLAGS"        extra flags for the export, e.g. "--rate 100 --concurrency 4"
`;

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "small" },
    scaling: { type: "boolean", default: false },
    "scaling-sizes": { type: "string" },
    "latency-ms": { type: "string", default: "10" },
    workers: { type: "string", default: "16" },
    "drift-interval": { type: "string" },
    "steady-intervals": { type: "string", default: String(STATUS_REFRESH_RATIO) },
    "converge-drift-interval": { type: "string", default: "5m" },
    rate: { type: "string", default: "1000" },
    burst: { type: "string", default: "1000" },
    "max-concurrency": { type: "string", default: "64" },
    "create-concurrency": { type: "string", default: "8" },
    timeout: { type: "string" },
    out: { type: "string", default: ".bench" },
    profile: { type: "boolean", default: false },
    "without-finalizer-policy": { type: "boolean", default: false },
    "node-options": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
    export: { type: "boolean", default: false },
    "export-projects": { type: "string", default: "1000" },
    "export-robots": { type: "string", default: "1000" },
    "export-webhooks": { type: "string", default: "200" },
    "export-args": { type: "string", default: "" },
  },
});

if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

function whole(name: string, text: string | undefined, min = 0): number {
  const v = Number(text);
  if (!Number.isInteger(v) || v < min) {
    process.stderr.write(`--${name} must be a whole number of at least ${min}, got ${text}\n`);
    process.exit(2);
  }
  return v;
}

function projectsOf(size: string): number {
  if (size === "small" || size === "full") return SIZES[size];
  return whole("size", size, 1);
}

const started = Date.now();
const log = (line: string) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);
const outDir = resolve(values.out);
mkdirSync(outDir, { recursive: true });

function options(label: string, projects: number): RunOptions {
  const objects = mixFor(projects).total;
  const workDir = join(outDir, label);
  mkdirSync(workDir, { recursive: true });
  return {
    label,
    operatorNodeOptions:
      values["node-options"] === undefined
        ? deployedNodeOptions()
        : values["node-options"].split(/\s+/).filter(Boolean),
    projects,
    latencyMs: whole("latency-ms", values["latency-ms"]),
    workers: whole("workers", values.workers, 1),
    convergeDriftIntervalMs: parseDuration(values["converge-drift-interval"]),
    steadyDriftIntervalMs: values["drift-interval"]
      ? parseDuration(values["drift-interval"])
      : steadyDriftIntervalFor(projects),
    steadyIntervals: whole("steady-intervals", values["steady-intervals"], 1),
    createConcurrency: whole("create-concurrency", values["create-concurrency"], 1),
    connection: {
      requestsPerSecond: whole("rate", values.rate, 1),
      burst: whole("burst", values.burst, 1),
      maxConcurrency: whole("max-concurrency", values["max-concurrency"], 1),
    },
    updateFraction: 0.1,
    finalizerAtAdmission: !values["without-finalizer-policy"],
    timeoutMs: values.timeout ? parseDuration(values.timeout) : Math.max(600_000, objects * 200),
    workDir,
    profile: values.profile,
    log,
  };
}

function save(name: string, json: unknown, markdown: string): void {
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(join(outDir, `${name}.md`), `${markdown}\n`);
}

async function main(): Promise<void> {
  if (values.export) {
    const r = await runExportBenchmark({
      projects: whole("export-projects", values["export-projects"], 1),
      robots: whole("export-robots", values["export-robots"]),
      webhooks: whole("export-webhooks", values["export-webhooks"]),
      latencyMs: whole("latency-ms", values["latency-ms"]),
      cliArgs: (values["export-args"] ?? "").split(/\s+/).filter(Boolean),
      workDir: join(outDir, "export"),
      log,
    });
    const md = renderExportResult(r);
    save("export", r, md);
    process.stdout.write(`${md}\n`);
    log(`results in ${outDir}`);
    return;
  }
  if (values.scaling) {
    const sizes = values["scaling-sizes"]
      ? values["scaling-sizes"].split(",").map((s) => whole("scaling-sizes", s.trim(), 1))
      : [...SCALING_SIZES];
    const runs: BenchResult[] = [];
    for (const projects of sizes) {
      const label = `scaling-${projects}`;
      log(`${label}: ${mixFor(projects).total} objects`);
      const r = await runBenchmark(options(label, projects));
      save(label, r, renderResult(r));
      runs.push(r);
      log(`${label} done in ${r.totalSeconds} s`);
    }
    const series: ScalingResult = {
      version: 1,
      startedAt: new Date(started).toISOString(),
      revision: revision(),
      machine: machine(),
      runs,
    };
    const md = [renderScaling(series), ...runs.map(renderResult)].join("\n\n");
    save("scaling", series, md);
    process.stdout.write(`${md}\n`);
  } else {
    const projects = projectsOf(values.size);
    const label = values.size === "small" || values.size === "full" ? values.size : `${projects}-projects`;
    const o = options(label, projects);
    log(
      `${label}: ${mixFor(projects).total} objects, ${o.latencyMs} ms Harbor latency, steady state ${formatDuration(o.steadyDriftIntervalMs)} × ${o.steadyIntervals}`,
    );
    const r = await runBenchmark(o);
    const md = renderResult(r);
    save(label, r, md);
    process.stdout.write(`${md}\n`);
  }
  log(`results in ${outDir}`);
}

// Interrupted: the control plane's processes stop themselves on the signal; the operator and the
// emulator are killed, then the run's other cleanups (namespace, files) get a few seconds.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    killChildren();
    const timer = setTimeout(() => process.exit(130), 5000);
    void stopRuns().finally(() => {
      clearTimeout(timer);
      process.exit(130);
    });
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
