// HarborAuditLogPurge end to end: the purge schedule and its parameters as written, drift reverted
// and named, a purge run from the annotation to a final phase in `kubectl get` within seconds of the
// emulator finishing it (and the audit log really purged), one per Harbor, bad input refused by
// kubectl, deletion to None, and a Harbor of 2.13 refused by name before any call.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  auditLogPurge,
  condition,
  connection,
  eventReasons,
  invalid,
  type AuditLogPurgeCR as PurgeCR,
  readyForSpec,
  stalled,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "purge" });
const KIND = "harborauditlogpurge";
const ANNOTATION = "harborconfig.io/runRequestedAt";
const LAG = 25_000;
const HOUR = 3_600_000;

const count = (o: string) => op.emulator.counters.total({ op: o });
const schedule = () => op.harbor.purge.getSchedule();
const manualRuns = () => op.emulator.control.purge.runs().filter((r) => r.trigger === "MANUAL");
const parameters = async () =>
  JSON.parse((await schedule())?.job_parameters ?? "{}") as Record<string, unknown>;

describe("HarborAuditLogPurge", () => {
  test("apply → Harbor's purge schedule and parameters as written, Ready", async () => {
    expect(await schedule()).toBeUndefined();
    await op.kubectl.apply(
      auditLogPurge("purge", {
        schedule: { type: "Custom", cron: "0 30 1 * * *" },
        retentionHours: 720,
        includeOperations: ["pull", "delete"],
      }),
    );
    const cr = await op.waitReady<PurgeCR>(KIND, "purge");
    expect((await schedule())?.schedule).toMatchObject({ type: "Custom", cron: "0 30 1 * * *" });
    expect(await parameters()).toEqual({
      audit_retention_hour: 720,
      include_operations: "delete,pull",
      dry_run: false,
    });
    expect(cr.status?.harborId).toBe(0);
    expect(cr.status?.nextScheduledTime).toMatch(/T01:30:00/);
    const table = await op.kubectl.run(["get", "harborauditlogpurges"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+SCHEDULE\s+RETENTION\s+NEXT RUN\s+LAST RUN\s+AGE/);
    expect(table).toMatch(/purge\s+True\s+Synced\s+Custom\s+720\s+\d{4}-/);
  });

  test("a change made in Harbor is reverted within one drift interval and named in status", async () => {
    await op.harbor.purge.updateSchedule({
      schedule: { type: "Custom", cron: "0 30 1 * * *" },
      parameters: { audit_retention_hour: 1, include_operations: "create,delete,pull", dry_run: true },
    });
    const changed = Date.now();
    await until("the retention to be reverted", async () =>
      (await parameters()).audit_retention_hour === 720 ? true : undefined,
    );
    expect(Date.now() - changed).toBeLessThan(5_000);
    expect(await parameters()).toEqual({
      audit_retention_hour: 720,
      include_operations: "delete,pull",
      dry_run: false,
    });
    const cr = await op.waitFor<PurgeCR>(KIND, "purge", (o) => o.status?.lastDriftCorrection !== undefined);
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["retentionHours", "includeOperations", "dryRun"]);
  });

  test("a purge run goes from the annotation to its final phase in kubectl get within seconds of Harbor finishing it", async () => {
    // No schedule (it would purge first when the clock moves on), two days kept.
    const spec = {
      schedule: { type: "None" as const },
      retentionHours: 48,
      includeOperations: ["pull" as const, "delete" as const],
    };
    await op.kubectl.apply(auditLogPurge("purge", spec));
    await op.waitFor<PurgeCR>(KIND, "purge", readyForSpec);
    expect(await schedule()).toBeUndefined();
    // Audit records of three days ago: a pull and a delete go, a create stays (not included).
    const audit = op.emulator.world.audit;
    audit.record({
      project_id: 0,
      username: "old",
      resource: "a",
      resource_type: "artifact",
      operation: "pull",
    });
    audit.record({
      project_id: 0,
      username: "old",
      resource: "b",
      resource_type: "project",
      operation: "delete",
    });
    audit.record({
      project_id: 0,
      username: "old",
      resource: "c",
      resource_type: "project",
      operation: "create",
    });
    op.emulator.control.clock.advance(72 * HOUR);

    const runs = manualRuns().length;
    await op.kubectl.run(["annotate", "--overwrite", KIND, "purge", `${ANNOTATION}=now`]);
    const started = await op.waitFor<PurgeCR>(
      KIND,
      "purge",
      (o) => o.status?.lastHandledRunAt === "now" && o.status.lastRun?.status === "Running",
    );
    expect(manualRuns()).toHaveLength(runs + 1);
    const run = manualRuns().at(-1);
    expect(started.status?.runRequest?.executionId).toBe(run?.id);
    expect(started.status?.lastRun).toMatchObject({ id: run?.id, trigger: "MANUAL", dryRun: false });
    expect(run?.parameters).toEqual({
      audit_retention_hour: 48,
      include_operations: "delete,pull",
      dry_run: false,
    });

    // The emulator finishes the job (1 s) and shows it final after Harbor's lag.
    op.emulator.control.clock.advance(1_000 + LAG);
    const finished = Date.now();
    await until("LAST RUN Success in kubectl get", async () =>
      /purge\s+True\s+Synced\s+None\s+48\s+Success/.test(await op.kubectl.run(["get", KIND, "purge"]))
        ? true
        : undefined,
    );
    const seconds = (Date.now() - finished) / 1000;
    expect(seconds).toBeLessThan(7);
    expect(op.emulator.control.purge.runs().find((r) => r.id === run?.id)?.purged).toBe(2);
    expect(
      audit
        .all()
        .filter((e) => e.username === "old")
        .map((e) => e.operation),
    ).toEqual(["create"]);
    expect(await op.harbor.purge.getLog(run?.id as number)).toContain("Purged 2 rows of audit logs");
    expect(await eventReasons(op.kubectl, "purge", "HarborAuditLogPurge")).toContain("RunStarted");

    // The value handled starts nothing more, whatever else changes.
    await op.kubectl.apply(auditLogPurge("purge", { ...spec, schedule: { type: "Daily" } }));
    await op.waitFor<PurgeCR>(KIND, "purge", readyForSpec);
    expect((await schedule())?.schedule).toMatchObject({ type: "Daily", cron: "0 0 0 * * *" });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(manualRuns()).toHaveLength(runs + 1);
  });

  test("one per Harbor; bad input refused by kubectl, naming the field", async () => {
    await op.kubectl.apply(auditLogPurge("purge-2"));
    const cr = await op.waitFor<PurgeCR>(
      KIND,
      "purge-2",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(cr, "Ready")?.message).toContain(
      `HarborAuditLogPurge ${op.namespace}/purge already manages`,
    );
    await op.kubectl.delete(KIND, "purge-2", { wait: true });

    const rejected = async (spec: Record<string, unknown>) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], {
        input: JSON.stringify(auditLogPurge("bad", spec)),
      });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected({ schedule: { type: invalid("Manual") } })).toContain(
      "type Manual is not a schedule",
    );
    expect(await rejected({ schedule: { type: invalid("Yearly") } })).toContain(
      'type "Yearly" is not one of Hourly, Daily, Weekly, Custom, None',
    );
    expect(await rejected({ retentionHours: 0 })).toMatch(/spec\.retentionHours/);
    expect(await rejected({ retentionHours: 876_001 })).toMatch(/spec\.retentionHours/);
    expect(await rejected({ includeOperations: invalid(["push"]) })).toMatch(/spec\.includeOperations/);
    expect(await rejected({ includeOperations: ["pull", "pull"] })).toMatch(/Duplicate value/);
  });

  test("deletionPolicy Delete removes the schedule (sending the parameters Harbor requires)", async () => {
    await op.kubectl.delete(KIND, "purge", { wait: true });
    expect(await schedule()).toBeUndefined();
  });

  test("a Harbor of 2.13 or newer is refused by name before any purge call", async () => {
    op.emulator.control.system.setVersion("v2.13.0-6e3a4b2c");
    try {
      await op.kubectl.apply(connection("harbor-213", op.emulator.url, "harbor-credentials"));
      await op.waitReady("harborconnection", "harbor-213");
      const calls = ["getPurgeSchedule", "updatePurgeSchedule", "createPurgeSchedule"].map(count);
      await op.kubectl.apply(auditLogPurge("newer", { connectionRef: { name: "harbor-213" } }));
      const cr = await op.waitFor<PurgeCR>(KIND, "newer", stalled);
      expect(condition(cr, "Ready")?.reason).toBe("UnsupportedByHarbor");
      expect(condition(cr, "Ready")?.message).toContain("this Harbor is v2.13.0-6e3a4b2c");
      expect(condition(cr, "Ready")?.message).toContain("include_event_types");
      expect(["getPurgeSchedule", "updatePurgeSchedule", "createPurgeSchedule"].map(count)).toEqual(calls);
      await op.kubectl.delete(KIND, "newer", { wait: true });
    } finally {
      op.emulator.control.system.setVersion("v2.12.4-emulator");
    }
  });
});
