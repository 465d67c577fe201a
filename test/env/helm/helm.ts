// helm, run the way users run it, against a given kubeconfig (never the machine's own), with a home
// of its own and no way off the machine: its configuration, cache, repositories and plugins live in
// a temporary folder (so no repository a user added is asked), and every HTTP(S) request it would
// send to anything but loopback goes to a proxy address where nothing listens and fails at once.
// Go's proxy settings leave loopback out, so the test control plane is reached directly.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface HelmResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class HelmError extends Error {
  readonly result: HelmResult;

  constructor(args: string[], result: HelmResult) {
    super(
      `helm ${args.join(" ")} failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`,
    );
    this.name = "HelmError";
    this.result = result;
  }
}

export interface Helm {
  /** Runs helm and returns its standard output; rejects with HelmError when it fails. */
  run(args: string[], opts?: { input?: string; timeoutMs?: number }): Promise<string>;
  /** Runs helm and returns how it went, for tests that expect it to fail. */
  tryRun(args: string[], opts?: { input?: string; timeoutMs?: number }): Promise<HelmResult>;
  /** Removes helm's temporary home. */
  close(): void;
}

/** Where helm's HTTP(S) requests to anything but loopback go: the discard port, where nothing listens. */
export const OFFLINE_PROXY = "http://127.0.0.1:9";

/** @param kubeconfig passed as --kubeconfig; without it, helm has no cluster (lint, template). */
export function helm(binary: string, kubeconfig?: string): Helm {
  const home = mkdtempSync(join(tmpdir(), "hco-helm-"));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
    HELM_PLUGINS: join(home, "plugins"),
    HTTP_PROXY: OFFLINE_PROXY,
    HTTPS_PROXY: OFFLINE_PROXY,
    http_proxy: OFFLINE_PROXY,
    https_proxy: OFFLINE_PROXY,
  };
  const baseArgs = kubeconfig ? ["--kubeconfig", kubeconfig] : [];
  const tryRun = (args: string[], opts: { input?: string; timeoutMs?: number } = {}) =>
    execute(binary, [...args, ...baseArgs], env, opts.input, opts.timeoutMs ?? 60_000);
  return {
    tryRun,
    run: async (args, opts) => {
      const result = await tryRun(args, opts);
      if (result.code !== 0) throw new HelmError(args, result);
      return result.stdout;
    },
    close: () => rmSync(home, { recursive: true, force: true }),
  };
}

function execute(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input: string | undefined,
  timeoutMs: number,
): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"], timeout: timeoutMs });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (signal === "SIGTERM") stderr += `\n(killed after ${timeoutMs} ms)`;
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}
