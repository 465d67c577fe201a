// Bounded input from Harbor, end to end. The operator runs as the Deployment runs it (its
// NODE_OPTIONS, read from deploy/deployment.yaml) and meets what a hostile or broken server sends:
// a 64 MB answer to the connection's first call, answers under the size limit made of millions of
// empty objects, an oversized answer to a resource's call, and an error message full of control
// characters. It reports each on the resource, cleaned and capped, and keeps serving everyone else.
import { readFileSync } from "node:fs";
import type { RequestListener } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { budget } from "../env/budget.ts";
import { type LoopbackServer, listenOnLoopback, streamBody } from "../env/http.ts";
import { useOperator } from "../env/operator.ts";
import {
  type Condition,
  condition as conditionOf,
  connection,
  credentials,
  eventOf,
  project,
  type Resource,
} from "../env/resources.ts";

const MiB = 1024 * 1024;
const FLOOD_BYTES = 64 * MiB;

/** The Deployment's NODE_OPTIONS (the heap limits the operator runs with in a cluster). */
function deploymentNodeOptions(): string {
  const file = join(import.meta.dirname, "..", "..", "deploy", "deployment.yaml");
  const deployment = parse(readFileSync(file, "utf8")) as {
    spec: { template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } } };
  };
  const env = deployment.spec.template.spec.containers.flatMap((c) => c.env ?? []);
  const value = env.find((e) => e.name === "NODE_OPTIONS")?.value;
  if (!value) throw new Error("deploy/deployment.yaml sets no NODE_OPTIONS");
  return value;
}

const nodeOptions = deploymentNodeOptions();
const op = useOperator({ namespacePrefix: "bounded", env: { NODE_OPTIONS: nodeOptions } });

const condition = (o: Resource, type = "Ready") => conditionOf(o, type);

const servers: LoopbackServer[] = [];

async function listen(handler: RequestListener): Promise<string> {
  const server = await listenOnLoopback(handler);
  servers.push(server);
  return server.url;
}

/**
 * A server that answers every request with 200 and a 64 MB JSON body: a valid systeminfo whose
 * padding is millions of small objects. It is streamed in 64 KiB pieces as the client reads and
 * stops when the client hangs up, so this process never holds more than one piece.
 */
let floodUrl = "";
const floodStats = { requests: 0, bytesSent: 0, completeBodies: 0 };

/**
 * A server that logs anyone in like Harbor but answers the job-service calls with a list of
 * empty objects just under the 4 MiB limit, with its Content-Length: 1.4 million objects.
 */
let denseUrl = "";
const DENSE_BYTES = 4 * MiB - 1024;

beforeAll(async () => {
  const head = Buffer.from('{"harbor_version":"v2.12.0","auth_mode":"db_auth","padding":[');
  const tail = Buffer.from('{"a":0}]}');
  const piece = Buffer.from('{"a":0},'.repeat(8192)); // 64 KiB
  floodUrl = await listen((_req, res) => {
    floodStats.requests++;
    res.writeHead(200, { "content-type": "application/json" }); // chunked: no length to judge by
    res.write(head);
    streamBody(res, piece, FLOOD_BYTES - head.length - tail.length, {
      tail,
      onWrite: (n) => {
        floodStats.bytesSent += n;
      },
      onEnd: () => {
        floodStats.completeBodies++;
      },
    });
  });

  const objects = Math.floor((DENSE_BYTES - 2) / 3);
  const dense = Buffer.from(`[${"{},".repeat(objects - 1)}{}]`);
  denseUrl = await listen((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const json = (body: Buffer | string) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
      res.end(body);
    };
    if (path === "/api/v2.0/systeminfo") return json('{"harbor_version":"v2.12.0"}');
    if (path === "/api/v2.0/users/current") return json('{"user_id":3,"username":"someone"}');
    if (path.startsWith("/api/v2.0/jobservice/")) return json(dense);
    res.writeHead(404).end();
  });
});

afterAll(async () => {
  op.emulator.control.faults.clear();
  await Promise.all(servers.map((server) => server.close()));
});

/** Fails at once, with the operator's last words, when the operator process ends during `work`. */
async function whileAlive<T>(work: Promise<T>): Promise<T> {
  const died = op.exited().then((code) => {
    throw new Error(
      `the operator exited (code ${code}) while the test waited\n--- operator output (end) ---\n${op.output().slice(-3000)}`,
    );
  });
  return Promise.race([work, died]);
}

/** Free of control and invisible characters, and at most 1 KiB of characters. */
function expectClean(text: string): void {
  expect(text).not.toMatch(/[\p{Cc}\p{Cf}]/u);
  expect(Array.from(text).length).toBeLessThanOrEqual(1024);
}

describe("bounded input from Harbor", () => {
  test("the operator runs with the Deployment's heap limits", () => {
    expect(nodeOptions).toMatch(/--max-old-space-size=\d+/);
  });

  test("a connection to a server that answers with 64 MB is ResponseTooLarge; the operator stays up and serves the others", async () => {
    await op.kubectl.apply([
      credentials("flood-credentials", { username: "someone", password: "not-a-real-password" }),
      connection("flood", floodUrl, "flood-credentials"),
    ]);
    const conn = await whileAlive(
      op.waitFor<Resource>("harborconnection", "flood", (o) => condition(o)?.reason === "ResponseTooLarge"),
    );
    const ready = condition(conn);
    expect(ready?.status).toBe("False");
    expect(ready?.message).toBe(
      `the answer to getSystemInfo from Harbor at ${new URL(floodUrl).host} is larger than the 4 MiB the operator reads; check that spec.url points at Harbor`,
    );
    expect(
      (await whileAlive(eventOf(op.kubectl, "flood", "HarborConnection", "ResponseTooLarge"))).type,
    ).toBe("Warning");

    // The connection is checked again with backoff; each answer is abandoned after the limit.
    await whileAlive(
      expect.poll(() => floodStats.requests, { timeout: budget.operatorMs }).toBeGreaterThanOrEqual(2),
    );
    expect(floodStats.completeBodies).toBe(0);
    expect(floodStats.bytesSent / floodStats.requests).toBeLessThan(FLOOD_BYTES / 4);

    // Everyone else is still served by the same process.
    await op.kubectl.apply(project("steady"));
    await whileAlive(op.waitReady("harborproject", "steady"));
    expect(op.output()).not.toMatch(/heap out of memory|Allocation failed/);
  });

  test("answers under the size limit made of millions of empty objects are refused before parsing", async () => {
    await op.kubectl.apply(
      connection("dense", denseUrl, "flood-credentials", { checks: { jobService: true } }),
    );
    const conn = await whileAlive(
      op.waitFor<Resource>(
        "harborconnection",
        "dense",
        (o) => condition(o, "ChecksPassed")?.reason === "ResponseTooLarge",
      ),
    );
    // The connection itself works; the check whose answers were refused says so.
    expect(condition(conn)?.status).toBe("True");
    expect(condition(conn, "ChecksPassed")?.status).toBe("False");
    expect(condition(conn, "ChecksPassed")?.message).toMatch(
      /^job-service check: the answer to (getWorkerPools|getWorkers|listJobQueues) from Harbor at 127\.0\.0\.1:\d+ holds more than the 50000 JSON objects and arrays the operator parses; check that spec\.url points at Harbor$/,
    );
    await op.kubectl.apply(project("after-dense"));
    await whileAlive(op.waitReady("harborproject", "after-dense"));
  });

  test("an oversized answer to a resource's call is ResponseTooLarge on the resource, and clears when Harbor answers normally", async () => {
    const fault = op.emulator.control.faults.add({ op: "listQuotas", bodyBytes: 6 * MiB });
    try {
      await op.kubectl.apply(project("swamped"));
      const cr = await whileAlive(
        op.waitFor<Resource>("harborproject", "swamped", (o) => condition(o)?.reason === "ResponseTooLarge"),
      );
      expect(condition(cr)).toMatchObject({
        status: "False",
        message:
          "the answer to listQuotas from Harbor is larger than the 4 MiB the operator reads; check that the connection's URL points at Harbor. Retrying",
      });
      expect(condition(cr, "Stalled")).toBeUndefined(); // retried with backoff, not given up
      expect(
        (await whileAlive(eventOf(op.kubectl, "swamped", "HarborProject", "ResponseTooLarge"))).type,
      ).toBe("Warning");
    } finally {
      op.emulator.control.faults.remove(fault);
    }
    await whileAlive(op.waitReady("harborproject", "swamped"));
  });

  test("a Harbor error message full of control characters reaches the condition and the Event cleaned and capped", async () => {
    const hostile = `name\u0000 is\u001b[31m invalid\r\nReady=True\u202e\u200b\u0085 ${"A".repeat(5000)}\u001b[0m`;
    op.emulator.control.faults.add({ op: "createProject", status: 400, message: hostile, times: 1 });
    await op.kubectl.apply(project("hostile"));
    const cr = await whileAlive(
      op.waitFor<Resource>("harborproject", "hostile", (o) => condition(o)?.reason === "HarborRejected"),
    );
    const ready = condition(cr) as Condition;
    const prefix = "Harbor rejected the request (createProject): name is[31m invalid Ready=True AAAA";
    expect(ready.message.slice(0, prefix.length)).toBe(prefix);
    expect(ready.message.endsWith("A…")).toBe(true);
    expectClean(ready.message);
    expect(Array.from(ready.message)).toHaveLength(1024);
    for (const c of cr.status?.conditions ?? []) expectClean(c.message);

    const warning = await whileAlive(eventOf(op.kubectl, "hostile", "HarborProject", "HarborRejected"));
    expect(warning.type).toBe("Warning");
    expect(warning.message).toBe(ready.message);
    expectClean(warning.message);
  });
});
