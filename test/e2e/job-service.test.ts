// HarborJobService end to end: the listed queues paused or running as declared (unlisted ones left
// alone), a pause or resume made in Harbor reverted within one drift interval and named, queue
// counts, workers and the scheduler in status, pausing SCHEDULER holding a GC schedule until it is
// resumed, one per Harbor, bad input refused, deletion resuming what it kept paused, and the tenancy
// of a shared connection.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  type JobServiceCR as JobsCR,
  jobService,
  readyForSpec,
  stalled,
} from "../env/resources.ts";
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

  test("steady state: no writes, and three reads per drift interval (queues, pools, workers)", async () => {
    const before = op.emulator.counters.list();
    const writes = op.emulator.counters.writes();
    await new Promise((r) => setTimeout(r, 12_000));
    expect(op.emulator.counters.writes()).toBe(writes);
    const spent = op.emulator.counters.since(before);
    // Besides the connection's own periodic check (systeminfo, current user), only these.
    const own = Object.keys(spent).filter((o) => !["getSystemInfo", "getCurrentUserInfo"].includes(o));
    expect(own.sort()).toEqual(["getWorkerPools", "getWorkers", "listJobQueues"]);
    expect(spent.listJobQueues).toBe(spent.getWorkerPools);
    expect(spent.listJobQueues).toBeGreaterThanOrEqual(3);
    expect(spent.listJobQueues).toBeLessThanOrEqual(5);
  });

  test("waiting jobs show in status within a drift interval", async () => {
    op.emulator.control.jobservice.enqueue("REPLICATION", { count: 3 });
    const cr = await op.waitFor<JobsCR>(
      KIND,
      "jobs",
      (o) => o.status?.queues?.find((q) => q.jobType === "REPLICATION")?.count === 3,
      10_000,
    );
    expect(cr.status?.workers?.busy).toBe(0);
  });

  test("a pause or resume made in Harbor is reverted within one drift interval and named in status", async () => {
    await op.harbor.jobService.actOnQueue("REPLICATION", "resume");
    await op.harbor.jobService.actOnQueue("SCHEDULER", "pause");
    const changed = Date.now();
    await until("the queues to be put back", async () =>
      (await paused("REPLICATION")) === true && (await paused("SCHEDULER")) === false ? true : undefined,
    );
    expect(Date.now() - changed).toBeLessThan(5_000);
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
      10_000,
    );

    await op.kubectl.apply(maintenance(true, false));
    await op.waitFor<JobsCR>(KIND, "jobs", (o) => readyForSpec(o) && o.status?.schedulerPaused === false);
    expect(scheduled()).toBe(before + 1);
    await op.harbor.gc.updateSchedule({ schedule: { type: "None" } });
    op.emulator.control.clock.advance(30_000);
  });

  test("one per Harbor; bad input is refused by kubectl", async () => {
    await op.kubectl.apply(jobService("jobs-2", { queues: [{ jobType: "RETENTION", paused: true }] }));
    const conflict = await op.waitFor<JobsCR>(
      KIND,
      "jobs-2",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(conflict, "Ready")?.message).toContain(
      `HarborJobService ${op.namespace}/jobs already manages`,
    );
    expect(await paused("RETENTION")).toBe(false);
    await op.kubectl.delete(KIND, "jobs-2", { wait: true });

    const rejected = async (queues: unknown) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], {
        input: JSON.stringify(jobService("bad", { queues: queues as [] })),
      });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected([{ jobType: "ALL", paused: true }])).toContain(
      "ALL is Harbor's word for every queue",
    );
    expect(await rejected([{ jobType: "replication", paused: true }])).toMatch(/spec\.queues\[0\]\.jobType/);
    expect(
      await rejected([
        { jobType: "RETENTION", paused: true },
        { jobType: "RETENTION", paused: false },
      ]),
    ).toMatch(/Duplicate value/);
    expect(await rejected([])).toMatch(/spec\.queues/);
  });

  test("deletion resumes what it kept paused and leaves other queues as they are", async () => {
    await op.kubectl.delete(KIND, "jobs", { wait: true });
    expect(await paused("REPLICATION")).toBe(false);
    expect(await paused("SCHEDULER")).toBe(false);
    expect(await paused("WEBHOOK")).toBe(true);
  });

  test("a queue someone else paused: Create refuses it by name, CreateOrAdopt takes it over; a typo stalls", async () => {
    await op.kubectl.apply(jobService("theirs", { queues: [{ jobType: "WEBHOOK", paused: true }] }));
    const refused = await op.waitFor<JobsCR>(KIND, "theirs", stalled);
    expect(condition(refused, "Ready")?.reason).toBe("AlreadyExists");
    expect(condition(refused, "Ready")?.message).toContain("(paused: WEBHOOK)");
    await op.kubectl.apply(
      jobService("theirs", {
        creationPolicy: "CreateOrAdopt",
        queues: [{ jobType: "WEBHOOK", paused: false }],
      }),
    );
    await op.waitFor<JobsCR>(KIND, "theirs", readyForSpec);
    expect(await paused("WEBHOOK")).toBe(false);

    await op.kubectl.apply(jobService("theirs", { queues: [{ jobType: "REPLICATON", paused: true }] }));
    const typo = await op.waitFor<JobsCR>(
      KIND,
      "theirs",
      (o) => stalled(o) && o.status?.observedGeneration === o.metadata.generation,
    );
    expect(condition(typo, "Ready")?.reason).toBe("UnknownJobType");
    expect(condition(typo, "Ready")?.message).toContain(
      'spec.queues: "REPLICATON" is not a queue of this Harbor',
    );
    await op.kubectl.delete(KIND, "theirs", { wait: true });
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
