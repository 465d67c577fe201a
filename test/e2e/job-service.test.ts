// HarborJobService end to end: the listed queues paused or running as declared (unlisted ones left
// alone), steady state costing three reads per drift sweep and no write, a pause or resume made in
// Harbor reverted and named, queue counts, workers and the scheduler in status, pausing SCHEDULER
// holding a GC schedule until it is resumed, deletion resuming what it kept paused, and the tenancy
// of a shared ClusterHarborConnection (kept end to end for this kind only: the other per-Harbor
// kinds' tenancy check is proven in the unit tables, test/unit/controllers/per-harbor-mapping.test.ts
// and scan-all-preheat-mapping.test.ts, as is this kind's). One per Harbor, "exists" (a queue someone
// else paused) and a job type Harbor does not list are proven in per-harbor-mapping.test.ts; what
// kubectl refuses, in test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import { requestsOverSweeps } from "../env/operator-log.ts";
import { type JobServiceCR as JobsCR, jobService, readyForSpec } from "../env/resources.ts";
import { onlyWithSystemSettings } from "../env/tenancy.ts";
import { until } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "jobs" });
const KIND = "harborjobservice";

const paused = async (jobType: string) =>
  (await op.harbor.jobService.listQueues()).find((q) => q.job_type === jobType)?.paused;
const maintenance = (replication: boolean, scheduler = false) =>
  jobService("jobs", {
    queues: [
      { jobType: "REPLICATION", paused: replication },
      { jobType: "SCHEDULER", paused: scheduler },
    ],
  });

describe("HarborJobService", () => {
  test("apply → the listed queues as declared, unlisted ones left alone; status shows the job service", async () => {
    // Someone paused WEBHOOK: not listed, so never touched.
    await op.harbor.jobService.actOnQueue("WEBHOOK", "pause");
    await op.kubectl.apply(maintenance(true));
    const cr = await op.waitReady<JobsCR>(KIND, "jobs");
    expect(await paused("REPLICATION")).toBe(true);
    expect(await paused("SCHEDULER")).toBe(false);
    expect(await paused("WEBHOOK")).toBe(true);
    expect(cr.status).toMatchObject({
      harborId: 0,
      schedulerPaused: false,
      pausedQueues: "REPLICATION, WEBHOOK",
      pools: 1,
      workers: { total: 10, busy: 0, idle: 10 },
    });
    expect(cr.status?.queues?.map((q) => q.jobType)).toContain("GARBAGE_COLLECTION");
    const table = await op.kubectl.run(["get", "harborjobservices"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+PAUSED\s+SCHEDULER PAUSED\s+BUSY\s+AGE/);
    expect(table).toMatch(/jobs\s+True\s+Synced\s+REPLICATION, WEBHOOK\s+false\s+0\s/);
  });

  test("steady state: no writes, and three reads per drift sweep (queues, pools, workers)", async () => {
    const { writes, requests } = await requestsOverSweeps(op, "HarborJobService", 2);
    expect(writes).toBe(0);
    expect(requests).toEqual({ listJobQueues: 2, getWorkerPools: 2, getWorkers: 2 });
  });

  test("waiting jobs show in status", async () => {
    op.emulator.control.jobservice.enqueue("REPLICATION", { count: 3 });
    const cr = await op.waitFor<JobsCR>(
      KIND,
      "jobs",
      (o) => o.status?.queues?.find((q) => q.jobType === "REPLICATION")?.count === 3,
    );
    expect(cr.status?.workers?.busy).toBe(0);
  });

  test("a pause or resume made in Harbor is reverted and named in status", async () => {
    // Both at once, in Harbor's own records (the emulator serves requests on this process's event
    // loop, so no read falls in between): a drift sweep that listed the queues between two API calls
    // would put them back in two passes, and the first correction would name one queue only.
    op.emulator.world.jobservice.resume("REPLICATION");
    op.emulator.world.jobservice.pause("SCHEDULER");
    await until("the queues to be put back", async () =>
      (await paused("REPLICATION")) === true && (await paused("SCHEDULER")) === false ? true : undefined,
    );
    const cr = await op.waitFor<JobsCR>(KIND, "jobs", (o) => o.status?.lastDriftCorrection !== undefined);
    expect(cr.status?.lastDriftCorrection?.fields).toEqual([
      "queues[REPLICATION].paused",
      "queues[SCHEDULER].paused",
    ]);
  });

  test("pausing SCHEDULER holds a GC schedule until it is resumed", async () => {
    await op.harbor.gc.updateSchedule({
      schedule: { type: "Hourly", cron: "0 0 * * * *" },
      parameters: { workers: 1 },
    });
    const scheduled = () => op.emulator.control.gc.runs().filter((r) => r.trigger === "SCHEDULE").length;
    await op.kubectl.apply(maintenance(true, true));
    const held = await op.waitFor<JobsCR>(
      KIND,
      "jobs",
      (o) => readyForSpec(o) && o.status?.schedulerPaused === true,
    );
    expect(held.status?.pausedQueues).toBe("REPLICATION, SCHEDULER, WEBHOOK");
    const before = scheduled();
    op.emulator.control.clock.advance(3_600_000);
    expect(scheduled()).toBe(before);
    await op.waitFor<JobsCR>(
      KIND,
      "jobs",
      (o) => o.status?.queues?.find((q) => q.jobType === "SCHEDULER")?.count === 1,
    );

    await op.kubectl.apply(maintenance(true, false));
    await op.waitFor<JobsCR>(KIND, "jobs", (o) => readyForSpec(o) && o.status?.schedulerPaused === false);
    expect(scheduled()).toBe(before + 1);
    await op.harbor.gc.updateSchedule({ schedule: { type: "None" } });
    op.emulator.control.clock.advance(30_000);
  });

  test("deletion resumes what it kept paused and leaves other queues as they are", async () => {
    await op.kubectl.delete(KIND, "jobs", { wait: true });
    expect(await paused("REPLICATION")).toBe(false);
    expect(await paused("SCHEDULER")).toBe(false);
    expect(await paused("WEBHOOK")).toBe(true);
  });

  test("through a ClusterHarborConnection, only a tenancy with allowSystemSettings may manage the job queues", async () => {
    await onlyWithSystemSettings(op, {
      kind: KIND,
      resource: (connectionRef) =>
        jobService("tenant", { connectionRef, queues: [{ jobType: "RETENTION", paused: true }] }),
      whileRefused: async () => expect(await paused("RETENTION")).toBe(false),
      whenReady: async () => expect(await paused("RETENTION")).toBe(true),
      afterDelete: async () => expect(await paused("RETENTION")).toBe(false),
    });
  });
});
