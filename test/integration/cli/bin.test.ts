// The npm bin as a user runs it: a process started through its launcher (bin/kubectl-harbor.js,
// found on PATH as `kubectl-harbor`), with real exit codes, standard streams and environment. Each
// process loads the whole CLI (seconds of CPU), so what the program does inside runs in process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { expectCleanFailure, runCli, runProcess, usePluginPath } from "../../env/cli.ts";
import { useEmulator } from "../../env/harbor.ts";

// A wrong password here is only a way to a 401: no login freeze (observed.test.ts proves it).
const h = useEmulator({ loginFreezeMs: 0 });
const plugin = usePluginPath();
const work = mkdtempSync(join(tmpdir(), "hco-bin-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const bin = (args: string[], env: Record<string, string> = {}, stdin = "") =>
  runProcess("kubectl-harbor", args, { PATH: plugin.path, ...env }, stdin);

describe("kubectl-harbor on PATH", () => {
  test("package.json names the launcher as the bin kubectl-harbor", () => {
    const pkg = JSON.parse(
      readFileSync(join(import.meta.dirname, "..", "..", "..", "package.json"), "utf8"),
    ) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin).toEqual({ "kubectl-harbor": "bin/kubectl-harbor.js" });
  });

  // --version, unknown commands (exit 64) and the other usage errors: test/unit/cli/command-line.test.ts.
  test("--help exits 0 with the usage on stdout", async () => {
    const help = await bin(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: kubectl harbor COMMAND/);
  });

  test("a command against Harbor: results on stdout, exit 0", async () => {
    await h.admin.projects.create({ project_name: "from-bin" });
    const r = await bin(["project", "deletable", "from-bin", "--harbor-url", h.emulator.url, "-u", "admin"], {
      HARBOR_PASSWORD: h.emulator.adminPassword,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("deletable: true\nwhy not:   -\n");
  });

  test("a failure is one line on stderr with the exit code, no stack trace", async () => {
    const file = join(work, "password");
    writeFileSync(file, `${h.emulator.adminPassword}\n`);
    const login = ["--harbor-url", h.emulator.url, "-u", "admin", "--password-file", file];
    const missing = await bin(["project", "summary", "absent", ...login]);
    expectCleanFailure(missing, 1, /HTTP 404 NOT_FOUND: project absent not found/, [
      h.emulator.adminPassword,
    ]);
  });

  test("a destructive command reads its confirmation from standard input", async () => {
    const [job] = h.emulator.control.jobservice.enqueue("IMAGE_SCAN", { durationMs: 3_600_000 }) as [string];
    const env = {
      HARBOR_URL: h.emulator.url,
      HARBOR_USERNAME: "admin",
      HARBOR_PASSWORD: h.emulator.adminPassword,
    };
    // The prompt and a refusal, in process; the answer through a real pipe, as a process.
    const declined = await runCli(["jobservice", "stop-job", job], { env, stdin: "n\n" });
    expect(declined.code).toBe(3);
    expect(declined.stderr).toBe(`Stop job ${job}? [y/N] \nerror: not confirmed\n`);
    const confirmed = await bin(["jobservice", "stop-job", job], env, "y\n");
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(h.emulator.control.jobservice.runningJobs().some((j) => j.id === job)).toBe(false);
  });
});

// In process: what the program does with a password file is the same code as in the bin above.
describe("the password from a file", () => {
  test("used as given (without its line end); a wrong one and a missing file are named, never shown", async () => {
    const file = join(work, "password-in-process");
    const login = ["--harbor-url", h.emulator.url, "-u", "admin", "--password-file", file];
    writeFileSync(file, `${h.emulator.adminPassword}\n`);
    expect((await runCli(["registry", "list", ...login])).code).toBe(0);
    writeFileSync(file, "Wrong-One-7\n");
    expectCleanFailure(
      await runCli(["registry", "list", ...login]),
      1,
      /the password from file .*password-in-process \(HTTP 401\)/,
      ["Wrong-One-7"],
    );
    expectCleanFailure(
      await runCli([
        "registry",
        "list",
        "--harbor-url",
        h.emulator.url,
        "-u",
        "admin",
        "--password-file",
        join(work, "none"),
      ]),
      1,
      /--password-file .*none: no such file/,
    );
  });
});
