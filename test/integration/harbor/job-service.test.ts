// The job service monitor: queues that fill, pause, resume and empty; worker pools and workers that
// pick up jobs and are freed when a job ends or is stopped; the `all` keyword; Harbor's 422/400
// split for the queue action; system-level permission.
import { beforeAll, describe, expect, test } from "vitest";
import { ALL } from "../../../src/harbor/job-service.ts";
import { harborFailure, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();
// Runs are looked at before their planned end: the world's time moves only when advanced.
beforeAll(() => h.emulator.control.clock.freeze());
const control = () => h.emulator.control.jobservice;

async function queue(jobType: string) {
  return (await h.admin.jobService.listQueues()).find((q) => q.job_type === jobType);
}

describe("queues", () => {
  test("lists exactly the 13 job types of a running 2.12.4, in name order", async () => {
    const types = (await h.admin.jobService.listQueues()).map((q) => q.job_type);
    expect(types).toEqual([
      "AUDIT_LOGS_GDPR_COMPLIANT",
      "EXECUTION_SWEEP",
      "GARBAGE_COLLECTION",
      "IMAGE_SCAN",
      "P2P_PREHEAT",
      "PURGE_AUDIT_LOG",
      "REPLICATION",
      "RETENTION",
      "SCAN_DATA_EXPORT",
      "SCHEDULER",
      "SLACK",
      "SYSTEM_ARTIFACT_CLEANUP",
      "WEBHOOK",
    ]);
  });

  test("paused is always on the wire; an empty count and latency are omitted", async () => {
    const body = (await (await h.api("/jobservice/queues")).json()) as Array<Record<string, unknown>>;
    expect(body.find((q) => q.job_type === "SCHEDULER")).toEqual({ job_type: "SCHEDULER", paused: false });
  });

  test("a paused queue keeps its jobs waiting and their latency grows; resume lets them run", async () => {
    await h.admin.jobService.actOnQueue("retention", "pause"); // Harbor upper-cases the type
    control().enqueue("RETENTION", { count: 3 });
    h.emulator.control.clock.advance(5_000);
    expect(await queue("RETENTION")).toMatchObject({ count: 3, paused: true });
    expect((await queue("RETENTION"))?.latency).toBeGreaterThanOrEqual(5);

    await h.admin.jobService.actOnQueue("RETENTION", "resume");
    expect(await queue("RETENTION")).toEqual({ job_type: "RETENTION", paused: false });
    const running = control()
      .runningJobs()
      .filter((j) => j.name === "RETENTION");
    expect(running).toHaveLength(3);
    await h.admin.jobService.stopJob(ALL);
  });

  test("stop drops the waiting jobs of a type", async () => {
    await h.admin.jobService.actOnQueue("IMAGE_SCAN", "pause");
    control().enqueue("IMAGE_SCAN", { count: 4 });
    expect((await queue("IMAGE_SCAN"))?.count).toBe(4);
    await h.admin.jobService.actOnQueue("IMAGE_SCAN", "stop");
    expect((await queue("IMAGE_SCAN"))?.count).toBeUndefined();
    // Stopping an empty queue, or an unknown type, is fine too.
    await h.admin.jobService.actOnQueue("NO_SUCH_TYPE", "stop");
    await h.admin.jobService.actOnQueue("IMAGE_SCAN", "resume");
  });

  test("`all`, in any case, applies an action to every queue", async () => {
    await h.admin.jobService.actOnQueue("All", "pause");
    expect((await h.admin.jobService.listQueues()).every((q) => q.paused)).toBe(true);
    control().enqueue("WEBHOOK", { count: 2 });
    control().enqueue("SLACK", { count: 1 });
    await h.admin.jobService.actOnQueue("ALL", "stop");
    expect((await h.admin.jobService.listQueues()).every((q) => q.count === undefined)).toBe(true);
    await h.admin.jobService.actOnQueue(ALL, "resume");
    expect((await h.admin.jobService.listQueues()).some((q) => q.paused)).toBe(false);
  });

  test("the action enum is checked by the swagger (422); an empty action reaches the handler (400)", async () => {
    const upper = await h.api("/jobservice/queues/SBOM", {
      method: "PUT",
      body: JSON.stringify({ action: "STOP" }),
    });
    expect(upper.status).toBe(422);
    expect(await upper.json()).toEqual({
      errors: [
        {
          code: "UNPROCESSABLE_ENTITY",
          // The body model's own failure list, inside the binder's.
          message:
            "validation failure list:\nvalidation failure list:\naction in body should be one of [stop pause resume]",
        },
      ],
    });
    const empty = await h.api("/jobservice/queues/SBOM", {
      method: "PUT",
      body: JSON.stringify({ action: "" }),
    });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({
      errors: [{ code: "BAD_REQUEST", message: "bad request: the action is not supported" }],
    });
    const missing = await h.api("/jobservice/queues/SBOM", { method: "PUT" });
    expect(missing.status).toBe(422);
  });

  test("queue actions are audited", async () => {
    await h.admin.jobService.actOnQueue("P2P_PREHEAT", "pause");
    await h.admin.jobService.actOnQueue("P2P_PREHEAT", "resume");
    const entries = h.emulator.control.audit.list().filter((e) => e.resource === "P2P_PREHEAT");
    expect(entries.map((e) => [e.operation, e.username])).toEqual([
      ["update", "admin"],
      ["update", "admin"],
    ]);
  });
});

describe("pools and workers", () => {
  test("a fresh job service has one pool of ten idle workers", async () => {
    const [pool, ...others] = await h.admin.jobService.listPools();
    expect(others).toEqual([]);
    expect(pool).toMatchObject({ pid: 1, concurrency: 10 });
    expect(pool?.worker_pool_id).toMatch(/^[0-9a-f]{24}$/);
    // The job service reports whole seconds.
    expect(pool?.start_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(pool?.heartbeat_at).toMatch(/\.000Z$/);

    const workers = await h.admin.jobService.listWorkers(pool?.worker_pool_id as string);
    expect(workers).toHaveLength(10);
    expect(workers.every((w) => w.pool_id === pool?.worker_pool_id)).toBe(true);
  });

  test("idle workers carry only id and pool_id; busy ones name their job", async () => {
    const [jobId] = control().enqueue("IMAGE_SCAN", { durationMs: 30_000 });
    const raw = (await (await h.api("/jobservice/pools/all/workers")).json()) as Array<
      Record<string, unknown>
    >;
    const busy = raw.find((w) => w.job_id === jobId);
    expect(busy).toMatchObject({ job_name: "IMAGE_SCAN", job_id: jobId });
    expect(Object.keys(busy ?? {}).sort()).toEqual(["id", "job_id", "job_name", "pool_id", "start_at"]);
    const idle = raw.find((w) => w.job_id === undefined);
    expect(Object.keys(idle ?? {}).sort()).toEqual(["id", "pool_id"]);

    // The job ends after its duration and frees the worker.
    h.emulator.control.clock.advance(30_000);
    const after = await h.admin.jobService.listWorkers("ALL");
    expect(after.some((w) => w.job_id === jobId)).toBe(false);
  });

  test("workers of an unknown pool: an empty list, not 404", async () => {
    expect(await h.admin.jobService.listWorkers("no-such-pool")).toEqual([]);
  });

  test("workers of every pool with `all`; a new pool adds its workers", async () => {
    const poolId = control().addPool(2);
    expect(await h.admin.jobService.listWorkers(poolId)).toHaveLength(2);
    expect(await h.admin.jobService.listWorkers("all")).toHaveLength(12);
    expect((await h.admin.jobService.listPools()).map((p) => p.pid)).toEqual([1, 2]);
  });
});

describe("stopping running jobs", () => {
  test("stopping a job frees its worker; an unknown id is a no-op", async () => {
    const [a, b] = control().enqueue("SYSTEM_ARTIFACT_CLEANUP", { count: 2 });
    await h.admin.jobService.stopJob(a as string);
    const jobIds = (await h.admin.jobService.listWorkers(ALL)).map((w) => w.job_id);
    expect(jobIds).not.toContain(a);
    expect(jobIds).toContain(b);
    await h.admin.jobService.stopJob("0123456789abcdef01234567");
    await h.admin.jobService.stopJob(b as string);
  });

  test("`all` stops every running job", async () => {
    control().enqueue("EXECUTION_SWEEP", { count: 5 });
    expect(control().runningJobs().length).toBeGreaterThanOrEqual(5);
    await h.admin.jobService.stopJob("ALL");
    expect(control().runningJobs()).toEqual([]);
    expect((await h.admin.jobService.listWorkers(ALL)).every((w) => w.job_id === undefined)).toBe(true);
  });

  test("jobs wait for a free worker", async () => {
    control().enqueue("SCAN_DATA_EXPORT", { count: 14, durationMs: 1_000 });
    expect(control().runningJobs()).toHaveLength(12);
    expect((await queue("SCAN_DATA_EXPORT"))?.count).toBe(2);
    h.emulator.control.clock.advance(1_000); // the first ones end, the last two start
    expect((await queue("SCAN_DATA_EXPORT"))?.count).toBeUndefined();
    expect(control().runningJobs()).toHaveLength(2);
    await h.admin.jobService.stopJob(ALL);
  });
});

describe("permissions", () => {
  test("the job service is system-level: 403 with the username for users, 401 for anonymous", async () => {
    const jan = h.client(h.addUser("jan"));
    for (const call of [
      () => jan.jobService.listQueues(),
      () => jan.jobService.actOnQueue("SBOM", "pause"),
      () => jan.jobService.listPools(),
      () => jan.jobService.listWorkers(ALL),
      () => jan.jobService.stopJob(ALL),
    ]) {
      const err = await harborFailure(call());
      expect(err).toMatchObject({ kind: "forbidden", status: 403, code: "FORBIDDEN", harborMessage: "jan" });
    }
    const anonymous = await fetch(`${h.emulator.url}/api/v2.0/jobservice/pools`);
    expect(anonymous.status).toBe(401);
  });
});
