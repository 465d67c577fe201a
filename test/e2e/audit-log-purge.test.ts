// HarborAuditLogPurge end to end, on the newest Harbor the emulator models: the purge schedule and
// its event types as written (checked against Harbor's list first: a name it does not list is
// Stalled and nothing is sent), drift reverted and named, a purge run from the annotation to its
// final phase in `kubectl get` once the emulator finishes it (and the audit log really purged by
// event type), and deletion to None with the parameters Harbor requires. One per Harbor, "exists",
// the tenancy check, what each release is sent (operations up to 2.12) and what it refuses, and run
// now's decisions are proven in unit tables (test/unit/controllers/per-harbor-mapping.test.ts,
// test/unit/controllers/run-now.test.ts); what kubectl refuses, in
// test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  auditLogPurge,
  condition,
  eventOf,
  type AuditLogPurgeCR as PurgeCR,
  readyForSpec,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "purge" });
const KIND = "harborauditlogpurge";
const ANNOTATION = "harborconfig.io/runRequestedAt";
const LAG = 25_000;
const HOUR = 3_600_000;

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
        includeEventTypes: ["pull_artifact", "delete_artifact"],
      }),
    );
    const cr = await op.waitReady<PurgeCR>(KIND, "purge");
    expect((await schedule())?.schedule).toMatchObject({ type: "Custom", cron: "0 30 1 * * *" });
    expect(await parameters()).toEqual({
      audit_retention_hour: 720,
      include_event_types: "delete_artifact,pull_artifact",
      dry_run: false,
    });
    expect(cr.status?.harborId).toBe(0);
    expect(cr.status?.nextScheduledTime).toMatch(/T01:30:00/);
    const table = await op.kubectl.run(["get", "harborauditlogpurges"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+SCHEDULE\s+RETENTION\s+NEXT RUN\s+LAST RUN\s+AGE/);
    expect(table).toMatch(/purge\s+True\s+Synced\s+Custom\s+720\s+\d{4}-/);
  });

  test("an event type Harbor does not list is Stalled, naming it and Harbor's list; nothing is sent", async () => {
    const written = op.emulator.counters.total({ op: "updatePurgeSchedule" });
    await op.kubectl.apply(
      auditLogPurge("purge", {
        schedule: { type: "Custom", cron: "0 30 1 * * *" },
        retentionHours: 720,
        includeEventTypes: ["pull_artifact", "push_artifact"],
      }),
    );
    const stalled = await op.waitFor<PurgeCR>(
      KIND,
      "purge",
      (o) => condition(o, "Ready")?.reason === "UnknownEventType",
    );
    expect(condition(stalled, "Ready")?.message).toMatch(
      /^spec\.includeEventTypes: "push_artifact" is not an event type of this Harbor; it lists create_artifact, delete_artifact, pull_artifact, /,
    );
    expect(op.emulator.counters.total({ op: "updatePurgeSchedule" })).toBe(written);
    expect((await parameters()).include_event_types).toBe("delete_artifact,pull_artifact");
    await op.kubectl.apply(
      auditLogPurge("purge", {
        schedule: { type: "Custom", cron: "0 30 1 * * *" },
        retentionHours: 720,
        includeEventTypes: ["pull_artifact", "delete_artifact"],
      }),
    );
    await op.waitFor<PurgeCR>(KIND, "purge", readyForSpec);
  });

  test("a change made in Harbor is reverted and named in status", async () => {
    await op.harbor.purge.updateSchedule({
      schedule: { type: "Custom", cron: "0 30 1 * * *" },
      parameters: { audit_retention_hour: 1, include_event_types: "create_project", dry_run: true },
    });
    await until("the retention to be reverted", async () =>
      (await parameters()).audit_retention_hour === 720 ? true : undefined,
    );
    expect(await parameters()).toEqual({
      audit_retention_hour: 720,
      include_event_types: "delete_artifact,pull_artifact",
      dry_run: false,
    });
    const cr = await op.waitFor<PurgeCR>(KIND, "purge", (o) => o.status?.lastDriftCorrection !== undefined);
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["retentionHours", "includeEventTypes", "dryRun"]);
  });

  test("a purge run goes from the annotation to its final phase in kubectl get once Harbor finishes it", async () => {
    // No schedule (it would purge first when the clock moves on), two days kept.
    const spec = {
      schedule: { type: "None" as const },
      retentionHours: 48,
      includeEventTypes: ["pull_artifact", "delete_project"],
    };
    await op.kubectl.apply(auditLogPurge("purge", spec));
    await op.waitFor<PurgeCR>(KIND, "purge", readyForSpec);
    expect(await schedule()).toBeUndefined();
    // Audit records of three days ago: an artifact's pull and a project's deletion go, a project's
    // creation stays (its event type is not listed).
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
      include_event_types: "delete_project,pull_artifact",
      dry_run: false,
    });

    // The emulator finishes the job (1 s) and shows it final after Harbor's lag.
    op.emulator.control.clock.advance(1_000 + LAG);
    await op.waitFor<PurgeCR>(KIND, "purge", (o) => o.status?.lastRun?.status === "Success");
    expect(await op.kubectl.run(["get", KIND, "purge"])).toMatch(
      /purge\s+True\s+Synced\s+None\s+48\s+Success/,
    );
    expect(op.emulator.control.purge.runs().find((r) => r.id === run?.id)?.purged).toBe(2);
    expect(
      audit
        .all()
        .filter((e) => e.username === "old")
        .map((e) => e.operation),
    ).toEqual(["create"]);
    expect(await op.harbor.purge.getLog(run?.id as number)).toContain("Purged 2 rows of audit logs");
    await eventOf(op.kubectl, "purge", "HarborAuditLogPurge", "RunStarted");

    // The value handled starts nothing more, whatever else changes: the reconcile of the new
    // generation, which ends with its status written, saw it.
    await op.kubectl.apply(auditLogPurge("purge", { ...spec, schedule: { type: "Daily" } }));
    await op.waitFor<PurgeCR>(KIND, "purge", readyForSpec);
    expect((await schedule())?.schedule).toMatchObject({ type: "Daily", cron: "0 0 0 * * *" });
    expect(manualRuns()).toHaveLength(runs + 1);
  });

  test("deletionPolicy Delete removes the schedule (sending the parameters Harbor requires)", async () => {
    await op.kubectl.delete(KIND, "purge", { wait: true });
    expect(await schedule()).toBeUndefined();
  });
});
