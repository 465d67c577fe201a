// The network guard (test/env/net-guard.js) that keeps the test run and the demo on loopback: a
// Node process started with it in NODE_OPTIONS, and every Node process under that one, cannot
// connect to or look up anything beyond loopback, by any of Node's ways (net, tls, http, fetch,
// undici, dns), and each attempt is recorded. Nothing here leaves the machine: the guard refuses
// before any name is resolved.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { budget } from "../env/budget.ts";
import { type GuardRecord, guardRecords, withGuard, withoutGuard } from "../env/net-guard-env.ts";

const root = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "hco-net-guard-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** Runs an ES module script in a guarded Node; its stdout (JSON) and the guard's records. */
async function guarded(script: string): Promise<{ out: unknown; records: GuardRecord[]; stderr: string }> {
  const log = join(dir, `log-${++runs}.jsonl`);
  const env = withoutGuard(process.env as Record<string, string>);
  const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script],
      {
        cwd: root,
        env: { ...env, NODE_OPTIONS: withGuard(env.NODE_OPTIONS), HCO_NET_GUARD_LOG: log },
        timeout: budget.startMs,
      },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
  return { out: JSON.parse(stdout), records: guardRecords(log), stderr };
}

/** The script prints, per attempt, the error code and message it failed with (or "ok"). */
const attempts = (body: string) => `
const results = {};
const outcome = async (name, fn) => {
  try { await fn(); results[name] = "ok"; }
  catch (e) { const c = e.cause ?? e; results[name] = (c.code ?? e.code ?? "?") + " " + (c.message ?? e.message); }
};
const failed = (emitter) => new Promise((resolve, reject) => { emitter.on("error", reject); emitter.on("connect", resolve); });
${body}
process.stdout.write(JSON.stringify(results));
`;

describe("network guard", () => {
  test("refuses every way out of loopback, naming the host, before any DNS query", async () => {
    const { out, records, stderr } = await guarded(
      attempts(`
import net from "node:net";
import tls from "node:tls";
import http from "node:http";
import dns from "node:dns";
import { lookup } from "node:dns/promises";
import { request } from "undici";
await outcome("net", () => failed(net.connect(443, "example.com")));
await outcome("ip", () => failed(net.connect({ host: "192.0.2.1", port: 80 })));
await outcome("tls", () => failed(tls.connect({ host: "example.com", port: 443 })));
await outcome("http", () => new Promise((resolve, reject) => http.get("http://ci.example.com/hooks", resolve).on("error", reject)));
await outcome("fetch", () => fetch("https://example.com/"));
await outcome("undici", () => request("https://registry.npmjs.org/"));
await outcome("lookup", () => new Promise((resolve, reject) => dns.lookup("example.com", (e) => (e ? reject(e) : resolve()))));
await outcome("lookupPromise", () => lookup("proxy.golang.org"));
await outcome("resolve", () => dns.promises.resolve4("localhost"));
await outcome("resolver", () => new Promise((resolve, reject) => new dns.Resolver().resolveTxt("example.com", (e) => (e ? reject(e) : resolve()))));
`),
    );
    expect(out).toEqual({
      net: expect.stringMatching(/^ENETGUARD network guard: refused a connection to example\.com:443 /),
      ip: expect.stringContaining("refused a connection to 192.0.2.1:80"),
      tls: expect.stringContaining("refused a connection to example.com:443"),
      http: expect.stringContaining("refused a connection to ci.example.com:80"),
      fetch: expect.stringContaining("refused a connection to example.com:443"),
      undici: expect.stringContaining("refused a connection to registry.npmjs.org:443"),
      lookup: expect.stringMatching(/^ENETGUARD .*refused a DNS lookup of example\.com/),
      lookupPromise: expect.stringContaining("refused a DNS lookup of proxy.golang.org"),
      resolve: expect.stringContaining("refused a DNS query (resolve4) for localhost"),
      resolver: expect.stringContaining("refused a DNS query (resolveTxt) for example.com"),
    });
    expect(stderr).toContain("network guard: refused a connection to example.com:443");
    const refused = records.filter((r) => r.event === "refused");
    expect(refused.map((r) => r.target)).toEqual(
      expect.arrayContaining([
        "example.com:443",
        "ci.example.com:80",
        "registry.npmjs.org:443",
        "example.com",
      ]),
    );
    expect(refused[0]?.stack).toContain("[eval");
    expect(records.filter((r) => r.event === "armed")).toHaveLength(1);
  });

  test("loopback stays open: 127.0.0.1, ::1 and localhost, by name and by address", async () => {
    const { out, records } = await guarded(
      attempts(`
import http from "node:http";
import dns from "node:dns/promises";
const server = http.createServer((req, res) => res.end("hi"));
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const { port } = server.address();
await outcome("address", async () => { if ((await (await fetch("http://127.0.0.1:" + port)).text()) !== "hi") throw new Error("no"); });
await outcome("name", async () => { if ((await (await fetch("http://localhost:" + port)).text()) !== "hi") throw new Error("no"); });
await outcome("lookup", () => dns.lookup("localhost"));
const v6 = http.createServer((req, res) => res.end("v6"));
await outcome("ipv6", async () => {
  await new Promise((r, j) => v6.once("error", j).listen(0, "::1", r));
  await fetch("http://[::1]:" + v6.address().port);
});
server.close(); v6.close();
`),
    );
    expect(out).toMatchObject({ address: "ok", name: "ok", lookup: "ok" });
    // Machines without IPv6 cannot listen on ::1; when they can, the guard lets it through.
    expect(String((out as { ipv6: string }).ipv6)).not.toContain("ENETGUARD");
    expect(records.filter((r) => r.event === "refused")).toEqual([]);
  });

  test("npm does not check for its own updates in this project (the check would ask the npm registry)", async () => {
    const setting = await new Promise<string>((resolve, reject) =>
      execFile(
        "npm",
        ["config", "get", "update-notifier", "--userconfig", "/dev/null"],
        { cwd: root, env: withoutGuard(process.env as Record<string, string>), timeout: budget.startMs },
        (error, stdout) => (error ? reject(error) : resolve(stdout.trim())),
      ),
    );
    expect(setting).toBe("false");
  });

  test("child processes inherit it through NODE_OPTIONS", async () => {
    const { out, records } = await guarded(
      attempts(`
import { execFileSync } from "node:child_process";
await outcome("child", () => execFileSync(process.execPath, ["-e", "require('node:net').connect(80, 'ci.example.com').on('error', (e) => { console.log(e.code); process.exit(3); })"], { stdio: "pipe" }));
`),
    );
    expect(out).toMatchObject({ child: expect.stringContaining("Command failed") });
    const pids = new Set(records.filter((r) => r.event === "armed").map((r) => r.pid));
    expect(pids.size).toBe(2);
    const refused = records.filter((r) => r.event === "refused");
    expect(refused).toHaveLength(1);
    expect(refused[0]?.target).toBe("ci.example.com:80");
    expect(pids.has(refused[0]?.pid as number)).toBe(true);
  });
});
