// `npm run bench -- --export`: how long `kubectl harbor export` takes on a large Harbor. The emulator
// runs as a process of its own with the given latency; it is populated through Harbor's API (with
// no latency, which is not measured), then the CLI is run as a user runs it — the npm bin, a
// process with its defaults — and timed from its start to its exit. What it asked Harbor comes
// from the emulator's counters; what it wrote is checked against what Harbor holds.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { eachLimited } from "../../src/cli/harbor-state.ts";
import { HarborClient } from "../../src/harbor/client.ts";
import { EndpointRegistry } from "../../src/harbor/endpoints.ts";
import { delta, harborCost, snapshot } from "./harbor.ts";
import { machine, revision } from "./machine.ts";
import { startEmulatorProcess } from "./processes.ts";
import type { HarborCost, Machine } from "./types.ts";

export interface ExportBenchOptions {
  projects: number;
  /** Project robots, spread over the projects. */
  robots: number;
  /** Webhook policies, spread over the projects. */
  webhooks: number;
  latencyMs: number;
  workDir: string;
  /** Extra flags for the export, e.g. ["--rate", "100"]. */
  cliArgs?: readonly string[];
  log: (line: string) => void;
}

export interface ExportBenchResult {
  version: 1;
  startedAt: string;
  revision: string;
  machine: Machine;
  config: { projects: number; robots: number; webhooks: number; latencyMs: number; cliArgs: string[] };
  /** From the CLI's start to its exit, in seconds. */
  seconds: number;
  /** Resources written, per kind folder. */
  files: Record<string, number>;
  harbor: HarborCost;
  /** The target of the issue: under 30 s for 1,000 projects, 1,000 robots, 200 webhooks at 10 ms. */
  target: { seconds: number; met: boolean | undefined };
}

const TARGET_SECONDS = 30;
const root = join(import.meta.dirname, "..", "..");

export async function runExportBenchmark(o: ExportBenchOptions): Promise<ExportBenchResult> {
  const startedAt = new Date().toISOString();
  mkdirSync(o.workDir, { recursive: true });
  const emulator = await startEmulatorProcess(0, join(o.workDir, "emulator.log"));
  try {
    o.log(`populating: ${o.projects} projects, ${o.robots} robots, ${o.webhooks} webhook policies`);
    const admin = new HarborClient({
      url: emulator.url,
      username: emulator.username,
      password: emulator.password,
      requestsPerSecond: 10_000,
      burst: 10_000,
      maxConcurrency: 32,
      endpoints: new EndpointRegistry(),
    });
    const names = Array.from({ length: o.projects }, (_, i) => `bench-${String(i).padStart(5, "0")}`);
    await eachLimited(names, 16, (name) =>
      admin.projects.create({ project_name: name, metadata: { public: "false" } }),
    );
    const every = (count: number) =>
      Array.from({ length: count }, (_, i) => names[i % names.length] as string);
    await eachLimited(
      every(o.robots).map((project, i) => ({ project, i })),
      16,
      ({ project, i }) =>
        admin.robots.create({
          name: `ci-${i}`,
          level: "project",
          duration: 30,
          permissions: [
            { kind: "project", namespace: project, access: [{ resource: "repository", action: "pull" }] },
          ],
        }),
    );
    await eachLimited(
      every(o.webhooks).map((project, i) => ({ project, i })),
      16,
      ({ project, i }) =>
        admin.webhooks.createPolicy(project, {
          name: `hook-${i}`,
          enabled: true,
          event_types: ["PUSH_ARTIFACT"],
          targets: [{ type: "http", address: `https://ci.example.com/hook/${i}` }],
        }),
    );
    await admin.close();

    await emulator.control.faults.setBaseLatency(o.latencyMs);
    const out = join(o.workDir, "export");
    rmSync(out, { recursive: true, force: true });
    const before = await snapshot(emulator.control);
    const args = [
      join(root, "bin", "kubectl-harbor.js"),
      "export",
      "--harbor-url",
      emulator.url,
      "--username",
      emulator.username,
      "--out",
      out,
      ...(o.cliArgs ?? []),
    ];
    o.log(`exporting at ${o.latencyMs} ms latency: kubectl-harbor ${args.slice(1).join(" ")}`);
    const started = performance.now();
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const proc = spawn(process.execPath, args, {
        cwd: root,
        env: { ...process.env, HARBOR_PASSWORD: emulator.password },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      proc.stderr.setEncoding("utf8").on("data", (c: string) => {
        stderr += c;
      });
      proc.once("error", reject);
      proc.once("close", (code) => resolve({ code, stderr }));
    });
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    if (r.code !== 0) throw new Error(`the export failed (exit ${r.code}): ${r.stderr}`);
    const rows = delta(before, await snapshot(emulator.control));
    const files: Record<string, number> = {};
    for (const folder of readdirSync(out, { withFileTypes: true })) {
      if (folder.isDirectory()) files[folder.name] = readdirSync(join(out, folder.name)).length;
    }
    const expected = {
      harborprojects: o.projects + 1,
      harborrobots: o.robots,
      harborwebhookpolicies: o.webhooks,
    };
    for (const [folder, count] of Object.entries(expected)) {
      if ((files[folder] ?? 0) !== count)
        throw new Error(`the export wrote ${files[folder] ?? 0} files to ${folder}, not ${count}`);
    }
    const atTarget = o.projects >= 1000 && o.robots >= 1000 && o.webhooks >= 200 && o.latencyMs >= 10;
    return {
      version: 1,
      startedAt,
      revision: revision(),
      machine: machine(),
      config: {
        projects: o.projects,
        robots: o.robots,
        webhooks: o.webhooks,
        latencyMs: o.latencyMs,
        cliArgs: [...(o.cliArgs ?? [])],
      },
      seconds,
      files,
      harbor: harborCost(rows, o.projects + o.robots + o.webhooks),
      target: { seconds: TARGET_SECONDS, met: atTarget ? seconds < TARGET_SECONDS : undefined },
    };
  } finally {
    await emulator.stop();
  }
}

export function renderExportResult(r: ExportBenchResult): string {
  const c = r.config;
  const ops = Object.entries(r.harbor.byOperation)
    .map(([op, count]) => `${op} ${count}`)
    .join(", ");
  const verdict = r.target.met === undefined ? "–" : r.target.met ? "✅ met" : "❌ missed";
  return [
    `### Export of ${c.projects.toLocaleString("en-US")} projects, ${c.robots.toLocaleString("en-US")} robots, ${c.webhooks} webhook policies`,
    "",
    `\`kubectl harbor export\` (the npm bin, defaults${c.cliArgs.length ? ` and \`${c.cliArgs.join(" ")}\`` : ""}) against the emulator at ${c.latencyMs} ms per request: **${r.seconds} s** from start to exit (target under ${r.target.seconds} s: ${verdict}).`,
    "",
    `Harbor requests: ${r.harbor.total} (${ops}).`,
    `Files: ${Object.entries(r.files)
      .map(([f, n]) => `${f} ${n}`)
      .join(", ")}.`,
    "",
    `Revision ${r.revision}, ${r.startedAt}.`,
  ].join("\n");
}
