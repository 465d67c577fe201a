// The command-line companion as tests run it: in process through its `run` (the whole program,
// with its input and output passed in) for most tests, or as the user runs it — the npm bin as a
// process, also through `kubectl harbor` — where the process itself is what is tested (exit codes,
// the launcher, kubectl's plugin discovery).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, expect } from "vitest";
import { run } from "../../src/cli/main.ts";
import { budget } from "./budget.ts";
import type { Emulator } from "./emulator/index.ts";
import { withGuard } from "./net-guard-env.ts";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The environment the command sees (nothing of the test process's). */
  env?: Record<string, string>;
  /** Its standard input (e.g. "y\n" to confirm); default: closed at once. */
  stdin?: string;
}

/** Runs `kubectl harbor <args>` in this process. */
export async function runCli(args: string[], o: CliOptions = {}): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  stderr.setEncoding("utf8").on("data", (c: string) => {
    err += c;
  });
  const code = await run(args, {
    stdout,
    stderr,
    stdin: Readable.from(o.stdin === undefined ? [] : [o.stdin]),
    env: o.env ?? {},
    stderrIsTTY: false,
    signal: new AbortController().signal,
  });
  return { code, stdout: out, stderr: err };
}

/** The flags and environment that point a command at the emulator as its admin. */
export function harborLogin(emulator: Emulator): { args: string[]; env: Record<string, string> } {
  return {
    args: ["--harbor-url", emulator.url, "--username", emulator.adminUsername],
    env: { HARBOR_PASSWORD: emulator.adminPassword },
  };
}

/** Runs a command against the emulator as its admin. */
export function runAgainst(emulator: Emulator, args: string[], o: CliOptions = {}): Promise<CliResult> {
  const login = harborLogin(emulator);
  return runCli([...args, ...login.args], { ...o, env: { ...login.env, ...o.env } });
}

/**
 * What every failure must look like: a non-zero exit, one "error: …" line (after any progress,
 * plus at most a hint) on standard error, no stack trace, and none of these secrets anywhere.
 */
export function expectCleanFailure(
  r: CliResult,
  code: number,
  message: RegExp,
  secrets: readonly string[] = [],
): void {
  expect(r.code, `${r.stdout}${r.stderr}`).toBe(code);
  expect(r.stderr.match(/(^|\n)error: /g)).toHaveLength(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at |Error:|node:internal|\.ts:\d+/);
  for (const s of secrets) expect(`${r.stdout}${r.stderr}`).not.toContain(s);
}

const root = join(import.meta.dirname, "..", "..");
/** The npm bin, as package.json names it. */
export const BIN = join(root, "bin", "kubectl-harbor.js");

/**
 * A folder holding `kubectl-harbor` (a link to the bin) and `node` first on PATH, as `npm link`
 * leaves a user's machine; removed after the file.
 */
export function usePluginPath(): { readonly path: string } {
  const dir = mkdtempSync(join(tmpdir(), "hco-plugin-"));
  symlinkSync(BIN, join(dir, "kubectl-harbor"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return { path: [dir, dirname(process.execPath), process.env.PATH ?? ""].join(delimiter) };
}

/**
 * Runs a program (the bin, or kubectl) with this environment, plus the network guard of this
 * process (every Node process under it stays guarded); resolves with how it ended.
 */
export function runProcess(
  file: string,
  args: string[],
  env: Record<string, string>,
  stdin = "",
): Promise<CliResult> {
  const guard = {
    NODE_OPTIONS: withGuard(process.env.NODE_OPTIONS),
    ...(process.env.HCO_NET_GUARD_LOG ? { HCO_NET_GUARD_LOG: process.env.HCO_NET_GUARD_LOG } : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: { ...env, ...guard },
      stdio: ["pipe", "pipe", "pipe"],
      timeout: budget.startMs,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}
