import { afterEach, describe, expect, test } from "vitest";
import { HarborClient } from "../../../src/harbor/client.ts";
import { harborError, harborFailure, systemRobot, useEmulator } from "../../env/harbor.ts";
import { listenOnLoopback } from "../../env/http.ts";
import { untilTrue } from "../../env/until.ts";

const h = useEmulator();

afterEach(() => {
  h.emulator.control.faults.clear();
});

function calls(op: string): number {
  return h.emulator.counters.total({ op });
}

describe("every call", () => {
  test("carries a fresh X-Request-Id that Harbor echoes and errors keep", async () => {
    const err = await harborFailure(h.admin.labels.get(999_999));
    expect(err.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(err.message).toContain(err.requestId);
    expect(err.message).toContain("GetLabelByID");
    const again = await harborFailure(h.admin.labels.get(999_999));
    expect(again.requestId).not.toBe(err.requestId);
  });

  test("sends basic auth and never a cookie, so writes pass Harbor's CSRF check", async () => {
    // Every emulator response sets a session cookie, and a write that sends it back is refused
    // with 403 "CSRF token invalid". Reads and writes in a row must therefore all succeed.
    await h.admin.labels.list({ scope: "g" });
    const id = await h.admin.labels.create({ name: "csrf-check", scope: "g" });
    await h.admin.labels.update(id, { name: "csrf-check-2" });
    await h.admin.labels.delete(id);

    const cookieRes = await fetch(`${h.emulator.url}/api/v2.0/labels`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from("admin:Harbor12345").toString("base64")}`,
        "content-type": "application/json",
        cookie: "sid=abc",
      },
      body: JSON.stringify({ name: "with-cookie", scope: "g" }),
    });
    expect(cookieRes.status).toBe(403);
  });

  test("wrong credentials are an unauthorized error, after one more try past Harbor's login freeze", async () => {
    const c = h.client({ password: "wrong-password" });
    const before = h.emulator.counters.total({ op: "CreateLabel", status: 401 });
    await expect(c.labels.create({ name: "x", scope: "g" })).rejects.toMatchObject({
      kind: "unauthorized",
      status: 401,
      code: "UNAUTHORIZED",
      retryable: false,
    });
    expect(h.emulator.counters.total({ op: "CreateLabel", status: 401 }) - before).toBe(2);
    expect(h.emulator.control.labels.list().some((l) => l.name === "x")).toBe(false);
  });

  test("a 401 while someone else's wrong password freezes the user is retried once, and succeeds", async () => {
    const good = h.client(h.addUser("shared", "Good-pw1"));
    // A stale copy of the password, sent by another client of the same user, freezes it for 1.5 s.
    const stale = fetch(`${h.emulator.url}/api/v2.0/users/current`, {
      headers: { authorization: `Basic ${Buffer.from("shared:Stale-pw1").toString("base64")}` },
    });
    await untilTrue("the stale password to lock the user", () => h.emulator.control.users.locked("shared"));
    const before = h.emulator.counters.total({ op: "getCurrentUserInfo", status: 401 });
    // The good call lands in the freeze (401), waits it out and goes again.
    await expect(good.system.getCurrentUser()).resolves.toMatchObject({ username: "shared" });
    expect(h.emulator.counters.total({ op: "getCurrentUserInfo", status: 401 }) - before).toBe(2);
    expect((await stale).status).toBe(401);
  });

  test("a robot's 401 is not retried: robots log in without Harbor's freeze", async () => {
    const robot = await h.admin.robots.create(
      systemRobot("no-freeze", [{ resource: "label", action: "create" }]),
    );
    const wrong = h.client({ username: robot.name, password: "Wrong-secret-1" });
    const before = h.emulator.counters.total({ op: "CreateLabel", status: 401 });
    await expect(wrong.labels.create({ name: "by-robot", scope: "g" })).rejects.toMatchObject({
      kind: "unauthorized",
    });
    expect(h.emulator.counters.total({ op: "CreateLabel", status: 401 }) - before).toBe(1);
  });

  test("an id Harbor cannot hold (beyond int4) is refused before it is sent", async () => {
    const before = h.emulator.counters.total();
    const err = await harborFailure(h.admin.labels.get(2 ** 31));
    expect(err).toMatchObject({ kind: "invalid", operation: "GetLabelByID", status: undefined });
    expect(err.message).toContain("id 2147483648 is beyond Harbor's ids (at most 2147483647)");
    await expect(h.admin.replication.listExecutions({ policyId: 2 ** 33 })).rejects.toMatchObject({
      kind: "invalid",
    });
    await expect(h.admin.projects.get(2 ** 31)).rejects.toMatchObject({ kind: "invalid" });
    expect(h.emulator.counters.total() - before).toBe(0);
    // A project *named* with those digits is a name, and goes out.
    await expect(h.admin.projects.get(String(2 ** 31))).rejects.toMatchObject({ kind: "notFound" });
    // The largest id is sent (Harbor answers 404).
    await expect(h.admin.labels.get(2 ** 31 - 1)).rejects.toMatchObject({ kind: "notFound", status: 404 });
  });

  test("an anonymous call leaves the credentials out", async () => {
    const seen: Array<string | undefined> = [];
    const server = await listenOnLoopback((req, res) => {
      seen.push(req.headers.authorization);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ harbor_version: "v2.12.4" }));
    });
    const c = new HarborClient({ url: server.url, username: "u", password: "maybe-stale" });
    try {
      await c.system.getSystemInfo({ anonymous: true });
      await c.system.getSystemInfo();
      expect(seen).toEqual([undefined, `Basic ${Buffer.from("u:maybe-stale").toString("base64")}`]);
    } finally {
      await c.close();
      await server.close();
    }
  });

  test("a closed client sends nothing more", async () => {
    const c = h.client();
    await c.labels.list({ scope: "g" });
    await c.close();
    const before = h.emulator.counters.total();
    await expect(c.labels.list({ scope: "g" })).rejects.toMatchObject({ kind: "aborted" });
    expect(h.emulator.counters.total() - before).toBe(0);
  });
});

describe("error classes", () => {
  test("404, 409, 400 and 422 map to notFound, conflict and invalid", async () => {
    await expect(h.admin.labels.delete(424_242)).rejects.toMatchObject({
      kind: "notFound",
      code: "NOT_FOUND",
    });
    await h.admin.labels.create({ name: "cls", scope: "g" });
    await expect(h.admin.labels.create({ name: "cls", scope: "g" })).rejects.toMatchObject({
      kind: "conflict",
    });
    await expect(h.admin.labels.list({ scope: "p" })).rejects.toMatchObject({ kind: "invalid", status: 400 });
    // A label id that is not an int64 never reaches the handler: go-swagger answers 422.
    await expect(
      h.admin.transport.send({ operation: "GetLabelByID", method: "GET", path: "/labels/not-a-number" }),
    ).rejects.toMatchObject({ kind: "invalid", status: 422, code: "UNPROCESSABLE_ENTITY" });
  });

  test("a 2xx body that does not fit the model is an error naming the operation", async () => {
    const server = await listenOnLoopback((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ id: "not-a-number", name: 42 }));
    });
    const c = new HarborClient({ url: server.url, username: "u", password: "p" });
    try {
      const err = await harborFailure(c.labels.get(1));
      expect(err).toMatchObject({ kind: "invalidResponse", operation: "GetLabelByID" });
      expect(err.message).toContain("GetLabelByID");
      expect(err.message).toContain("id: invalid_type");
      expect(err.message).not.toContain("not-a-number"); // values may be secrets; only paths are named
    } finally {
      await c.close();
      await server.close();
    }
  });

  test("a stored object without its id is an error where it is read, naming the id", async () => {
    // Harbor always sends the id of what it has stored; an answer without one is not Harbor's.
    const server = await listenOnLoopback((req, res) => {
      res.setHeader("content-type", "application/json");
      res.setHeader("x-total-count", "1");
      const item = { name: "team", creation_time: "2025-03-01T10:00:00Z" };
      res.end(JSON.stringify(/\/robots|\/executions|\/jobs/.test(req.url ?? "") ? [item] : item));
    });
    const c = new HarborClient({ url: server.url, username: "u", password: "p" });
    try {
      const calls: Array<[string, string, () => Promise<unknown>]> = [
        ["getProject", "project_id", () => c.projects.get("team")],
        ["ListRobot", "0.id", () => c.robots.list()],
        ["GetWebhookPolicyOfProject", "id", () => c.webhooks.getPolicy("team", 1)],
        ["ListWebhookJobs", "0.id", () => c.webhooks.listJobs("team", 1)],
        ["getReplicationPolicy", "id", () => c.replication.getPolicy(1)],
        ["listReplicationExecutions", "0.id", () => c.replication.listExecutions({ policyId: 1 })],
      ];
      for (const [operation, path, call] of calls) {
        const err = await harborFailure(call());
        expect(err).toMatchObject({ kind: "invalidResponse", operation });
        expect(err.message).toContain(`${path}: invalid_type`);
      }
    } finally {
      await c.close();
      await server.close();
    }
  });
});

describe("retries", () => {
  test("idempotent calls are retried through 5xx and dropped connections", async () => {
    h.emulator.control.faults.add({ op: "ListLabels", status: 503, times: 2 });
    const before = calls("ListLabels");
    await h.admin.labels.list({ scope: "g" });
    expect(calls("ListLabels") - before).toBe(3);

    h.emulator.control.faults.add({ op: "GetLabelByID", drop: true, times: 1 });
    const id = await h.admin.labels.create({ name: "retry-drop", scope: "g" });
    await expect(h.admin.labels.get(id)).resolves.toMatchObject({ name: "retry-drop" });
  });

  test("retries stop after maxRetries and surface the last error as retryable", async () => {
    h.emulator.control.faults.add({ op: "ListLabels", status: 500 });
    const c = h.client({ maxRetries: 2 });
    const before = calls("ListLabels");
    const err = await harborFailure(c.labels.list({ scope: "g" }));
    expect(err).toMatchObject(harborError(500, "internal server error"));
    expect(err.retryable).toBe(true);
    expect(calls("ListLabels") - before).toBe(3);
  });

  test("a non-idempotent POST is never retried after Harbor may have processed it", async () => {
    // The handler runs, then the response is lost: a retry would create the label twice.
    h.emulator.control.faults.add({ op: "CreateLabel", status: 500, afterHandler: true, times: 1 });
    const before = calls("CreateLabel");
    await expect(h.admin.labels.create({ name: "once", scope: "g" })).rejects.toMatchObject({
      kind: "server",
    });
    expect(calls("CreateLabel") - before).toBe(1);
    expect(h.emulator.control.labels.list().filter((l) => l.name === "once")).toHaveLength(1);

    h.emulator.control.faults.add({ op: "CreateLabel", drop: true, afterHandler: true, times: 1 });
    await expect(h.admin.labels.create({ name: "once-dropped", scope: "g" })).rejects.toMatchObject({
      kind: "network",
    });
    expect(h.emulator.control.labels.list().filter((l) => l.name === "once-dropped")).toHaveLength(1);
  });

  test("429 is retried for any method after Retry-After, because Harbor did not process it", async () => {
    h.emulator.control.faults.add({ op: "CreateLabel", status: 429, retryAfterSeconds: 1, times: 1 });
    const before = calls("CreateLabel");
    const started = performance.now();
    await h.admin.labels.create({ name: "after-429", scope: "g" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(calls("CreateLabel") - before).toBe(2);
    expect(h.emulator.control.labels.list().filter((l) => l.name === "after-429")).toHaveLength(1);
  });

  test("a Retry-After beyond the in-line limit is handed to the caller with retryAfterMs", async () => {
    h.emulator.control.faults.add({ op: "ListLabels", status: 429, retryAfterSeconds: 120, times: 1 });
    const before = calls("ListLabels");
    const err = await harborFailure(h.admin.labels.list({ scope: "g" }));
    expect(err).toMatchObject({ kind: "rateLimited", status: 429, retryAfterMs: 120_000 });
    expect(calls("ListLabels") - before).toBe(1);
  });
});

describe("deadlines and cancellation", () => {
  test("a call that exceeds its timeout fails as a timeout", async () => {
    h.emulator.control.faults.add({ op: "ListLabels", latencyMs: 500 });
    const c = h.client({ maxRetries: 0 });
    await expect(c.labels.list({ scope: "g" }, { timeoutMs: 100 })).rejects.toMatchObject({
      kind: "timeout",
      retryable: true,
    });
  });

  test("the caller's AbortSignal stops the call and any retries", async () => {
    h.emulator.control.faults.add({ op: "ListLabels", status: 503 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const before = calls("ListLabels");
    await expect(h.admin.labels.list({ scope: "g" }, { signal: controller.signal })).rejects.toMatchObject({
      kind: "aborted",
    });
    // Backoff starts at 100-200 ms, so at most a couple of attempts fit before the abort.
    expect(calls("ListLabels") - before).toBeLessThanOrEqual(2);
  });
});
