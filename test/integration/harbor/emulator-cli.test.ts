// The emulator as a user starts it: `npm run emulator -- --admin-password …`, then plain HTTP for
// Harbor's API and for the control API.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, test } from "vitest";
import { HarborClient } from "../../../src/harbor/client.ts";
import { budget } from "../../env/budget.ts";
import { remoteControl } from "../../env/emulator/index.ts";
import { systemRobot } from "../../env/harbor.ts";

const root = join(import.meta.dirname, "..", "..", "..");
let child: ChildProcess | undefined;
afterAll(() => {
  // The whole group: npm and the node process under it (a failed test never sent SIGTERM).
  if (child?.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** Starts `npm run emulator -- <args>` and resolves with its first line of output. */
function startEmulatorProcess(args: string[]): Promise<string> {
  const proc = spawn("npm", ["run", "--silent", "emulator", "--", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, so that npm and node stop together
  });
  child = proc;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the emulator printed nothing within ${budget.startMs} ms`)),
      budget.startMs,
    );
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).once("line", (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    proc.once("exit", (code) => reject(new Error(`the emulator exited with ${code}`)));
  });
}

/**
 * Sends SIGTERM to the started emulator's process group and resolves once every process holding its
 * output has ended: npm can exit before the node process under it has closed its server.
 */
async function stopEmulatorProcess(): Promise<void> {
  const proc = child as ChildProcess;
  const closed = new Promise((resolve) => proc.once("close", resolve));
  process.kill(-(proc.pid as number), "SIGTERM");
  await closed;
}

// Each test starts npm and a node process under it, which the helper above waits for up to the
// budget's start time: the tests get that time too (the project's default is one request's).
describe("npm run emulator", { timeout: budget.startMs }, () => {
  test("prints URL and credentials first, serves Harbor's API and the control API, stops on SIGTERM", async () => {
    const first = await startEmulatorProcess(["--admin-password", "Demo-Pass-1"]);
    // The newest modelled release unless told otherwise.
    expect(first).toMatch(/ harbor=2\.15\.2$/);
    const m = /url=(\S+) username=(\S+) password=(\S+) control=(\S+)/.exec(first);
    expect(m, first).not.toBeNull();
    const [, url, username, password, controlUrl] = m as unknown as [string, string, string, string, string];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect([username, password]).toEqual(["admin", "Demo-Pass-1"]);
    expect(controlUrl).toBe(`${url}/_emulator`);

    const harbor = new HarborClient({ url, username, password });
    const id = await harbor.projects.create({ project_name: "from-cli" });
    expect((await harbor.projects.get("from-cli")).project_id).toBe(id);
    await harbor.close();

    const control = remoteControl(url);
    expect(await control.counters.total({ op: "createProject", status: 201 })).toBe(1);
    await control.projects.addRepository("from-cli", "app");
    const deletable = await fetch(`${url}/api/v2.0/projects/from-cli/_deletable`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`,
        "x-is-resource-name": "true",
      },
    });
    // Harbor leaves `deletable: false` out (omitempty) and says why.
    const body = (await deletable.json()) as { deletable?: boolean; message?: string };
    expect(body.deletable).toBeUndefined();
    expect(body.message).toContain("repositories");

    await stopEmulatorProcess();
    // Nothing serves this emulator's state any more. (The freed port may already belong to an
    // emulator another test file started, which knows neither these credentials nor the project.)
    const after = await fetch(`${url}/api/v2.0/projects/from-cli`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`,
        "x-is-resource-name": "true",
      },
    }).then(
      (r) => r.status,
      () => "closed",
    );
    expect(after).not.toBe(200);
  });

  test("--harbor-version picks the Harbor release it models", async () => {
    const first = await startEmulatorProcess(["--harbor-version", "2.10.3"]);
    expect(first).toMatch(/ harbor=2\.10\.3$/);
    const url = /url=(\S+)/.exec(first)?.[1] as string;
    const info = (await (await fetch(`${url}/api/v2.0/systeminfo`)).json()) as { harbor_version: string };
    // Up to 2.12 an anonymous caller is told the version.
    expect(info.harbor_version).toMatch(/^v2\.10\.3-[0-9a-f]{8}$/);
    // 2.10 still takes a robot duration of 0 as the 30-day default (2.11 refuses it).
    const harbor = new HarborClient({ url, username: "admin", password: "Harbor12345" });
    const robot = await harbor.robots.create(
      systemRobot("zero", [{ resource: "project", action: "list" }], 0),
    );
    expect((await harbor.robots.get(Number(robot.id))).duration).toBe(30);
    await harbor.close();
    await stopEmulatorProcess();
  });

  test("rejects an unknown Harbor release", async () => {
    const proc = spawn("npm", ["run", "--silent", "emulator", "--", "--harbor-version", "2.9.0"], {
      cwd: root,
    });
    let stderr = "";
    proc.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const code = await new Promise((resolve) => proc.once("close", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain(
      "--harbor-version must be one of 2.15.2, 2.14.4, 2.13.5, 2.12.4, 2.10.3, got 2.9.0",
    );
  });

  test("--replication-adapter-whitelist sets what 2.14+ lists; --webhook-private-addresses refuse needs 2.13+", async () => {
    const first = await startEmulatorProcess([
      "--harbor-version",
      "2.14.4",
      "--replication-adapter-whitelist",
      "harbor,docker-hub",
    ]);
    const url = /url=(\S+)/.exec(first)?.[1] as string;
    const harbor = new HarborClient({ url, username: "admin", password: "Harbor12345" });
    expect(await harbor.registries.listProviderTypes()).toEqual(["docker-hub", "harbor"]);
    await harbor.close();
    await stopEmulatorProcess();

    const refused = spawn(
      "npm",
      [
        "run",
        "--silent",
        "emulator",
        "--",
        "--harbor-version",
        "2.12.4",
        "--webhook-private-addresses",
        "refuse",
      ],
      { cwd: root },
    );
    let stderr = "";
    refused.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    expect(await new Promise((resolve) => refused.once("close", resolve))).toBe(2);
    expect(stderr).toContain(
      "--webhook-private-addresses refuse models the patches 2.13.6, 2.14.5 and 2.15.3",
    );
  });

  test("rejects a bad flag with a clear message", async () => {
    const proc = spawn("npm", ["run", "--silent", "emulator", "--", "--port", "99999"], { cwd: root });
    let stderr = "";
    proc.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const code = await new Promise((resolve) => proc.once("close", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("--port must be an integer between 0 and 65535");
  });
});
