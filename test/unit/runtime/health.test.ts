// The HTTP endpoints, over real HTTP on loopback: /metrics in Prometheus' format, /healthz and
// /readyz answering from their checks, one server or two, and a clean close.
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type HealthServer, startHealthServer } from "../../../src/runtime/health.ts";
import { Metrics } from "../../../src/runtime/metrics.ts";
import { budget } from "../../env/budget.ts";

const loopback = { host: "127.0.0.1", port: 0 };
const open: HealthServer[] = [];

async function start(o: Partial<Parameters<typeof startHealthServer>[0]> = {}) {
  const metrics = new Metrics({ processMetrics: false });
  metrics.leaderStatus.set({ name: "test-lease" }, 1);
  const server = await startHealthServer({ metrics, metricsAddress: loopback, probeAddress: loopback, ...o });
  open.push(server);
  return server;
}

async function get(url: string, init?: RequestInit) {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(budget.requestMs) });
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

describe("startHealthServer", () => {
  it("serves metrics and probes from one server when the addresses match", async () => {
    const s = await start({ ready: () => true });
    expect(s.metricsUrl).toBeDefined();
    expect(s.probeUrl).toBe(s.metricsUrl);

    const metrics = await get(`${s.metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.type).toBe(new Metrics({ processMetrics: false }).contentType);
    expect(metrics.body).toContain('leader_election_master_status{name="test-lease"} 1');
    expect(metrics.body).toContain("# TYPE controller_runtime_reconcile_total counter");

    expect(await get(`${s.probeUrl}/healthz`)).toMatchObject({ status: 200, body: "ok\n" });
    expect(await get(`${s.probeUrl}/readyz`)).toMatchObject({ status: 200, body: "ok\n" });
  });

  it("serves them apart on two addresses, each only its own paths", async () => {
    const probePort = await freePort();
    const apart = await start({
      metricsAddress: loopback,
      probeAddress: { host: "127.0.0.1", port: probePort },
    });
    expect(apart.probeUrl).toBe(`http://127.0.0.1:${probePort}`);
    expect(apart.metricsUrl).not.toBe(apart.probeUrl);

    expect((await get(`${apart.metricsUrl}/metrics`)).status).toBe(200);
    expect((await get(`${apart.metricsUrl}/healthz`)).status).toBe(404);
    expect((await get(`${apart.probeUrl}/readyz`)).status).toBe(200);
    expect((await get(`${apart.probeUrl}/metrics`)).status).toBe(404);
  });

  it("answers /readyz from the readiness check, with the reason when not ready", async () => {
    let synced = false;
    const s = await start({ ready: () => synced || "caches not synced" });
    expect(await get(`${s.probeUrl}/readyz`)).toMatchObject({
      status: 503,
      body: "not ready: caches not synced\n",
    });
    // liveness does not depend on readiness
    expect((await get(`${s.probeUrl}/healthz`)).status).toBe(200);
    synced = true;
    expect(await get(`${s.probeUrl}/readyz`)).toMatchObject({ status: 200, body: "ok\n" });
  });

  it("fails a check that returns false, throws, or does not answer", async () => {
    const s = await start({
      healthy: () => false,
      ready: async () => {
        throw new Error("apiserver unreachable");
      },
    });
    expect(await get(`${s.probeUrl}/healthz`)).toMatchObject({
      status: 503,
      body: "unhealthy: check failed\n",
    });
    expect(await get(`${s.probeUrl}/readyz`)).toMatchObject({
      status: 503,
      body: "not ready: apiserver unreachable\n",
    });

    const hanging = await start({ ready: () => new Promise<boolean>(() => {}), checkTimeoutMs: 100 });
    const r = await get(`${hanging.probeUrl}/readyz`);
    expect(r.status).toBe(503);
    expect(r.body).toContain("did not answer within 100 ms");
  });

  it("answers HEAD, refuses other methods and unknown paths", async () => {
    const s = await start();
    const head = await fetch(`${s.probeUrl}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await fetch(`${s.probeUrl}/healthz`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await get(`${s.probeUrl}/nothing`)).status).toBe(404);
    expect((await get(`${s.probeUrl}/readyz?verbose=1`)).status).toBe(200);
  });

  it("serves nothing for a disabled address", async () => {
    const s = await start({ metricsAddress: undefined });
    expect(s.metricsUrl).toBeUndefined();
    expect((await get(`${s.probeUrl}/metrics`)).status).toBe(404);
    const none = await start({ metricsAddress: undefined, probeAddress: undefined });
    expect(none.metricsUrl).toBeUndefined();
    expect(none.probeUrl).toBeUndefined();
  });

  it("closes cleanly, even with a keep-alive connection open", async () => {
    const s = await start();
    const agent = new http.Agent({ keepAlive: true });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http
        .get(`${s.probeUrl}/healthz`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        })
        .on("error", reject);
    });
    expect(status).toBe(200);
    await s.close();
    await expect(fetch(`${s.probeUrl}/healthz`)).rejects.toThrow();
    agent.destroy();
  });

  it("reports an address already in use, naming it", async () => {
    const s = await start();
    const port = Number(new URL(s.metricsUrl ?? "").port);
    await expect(
      startHealthServer({
        metrics: new Metrics({ processMetrics: false }),
        metricsAddress: { host: "127.0.0.1", port },
        probeAddress: undefined,
      }),
    ).rejects.toThrow(`cannot serve metrics on 127.0.0.1:${port}`);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = http.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
