// HarborScanAll end to end: kubectl → apiserver → the operator process → Harbor (the emulator). A
// wait for Harbor's default scanner (NoDefaultScanner) that ends as soon as a scanner registration
// is Ready; the schedule as written, updated, drift made in Harbor reverted within one drift
// interval and named; one per Harbor (Conflict); bad input refused by kubectl; run now by annotation
// with the run's progress in status, Harbor's refusal of a second while one goes, and one scan only
// when the operator is killed on either side of starting it; "exists" meaning a schedule is set
// (AlreadyExists, adoption), deletion to None or kept with Orphan; tenancy.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  eventReasons,
  invalid,
  readyForSpec,
  type ScanAllCR,
  scanAll,
  scannerRegistration,
  stalled,
} from "../env/resources.ts";
import { onlyWithSystemSettings } from "../env/tenancy.ts";

const op = useOperator({ namespacePrefix: "scanall" });
const KIND = "harborscanall";
const ANNOTATION = "harborconfig.io/runRequestedAt";

const count = (o: string) => op.emulator.counters.total({ op: o });
const schedule = async () => (await op.harbor.scanAll.getSchedule())?.schedule;
const manualRuns = () => op.emulator.control.scanAll.runs().filter((r) => r.trigger === "MANUAL");
const annotate = (name: string, value: string) =>
  op.kubectl.run(["annotate", "--overwrite", KIND, name, `${ANNOTATION}=${value}`]);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("HarborScanAll", () => {
  test("waits for a default scanner, then Harbor holds the schedule as written; kubectl get shows it", async () => {
    await op.kubectl.apply(scanAll("scan", { schedule: { type: "Weekly" } }));
    const waiting = await op.waitFor<ScanAllCR>(
      KIND,
      "scan",
      (o) => condition(o, "Ready")?.reason === "NoDefaultScanner",
    );
    expect(condition(waiting, "Ready")?.message).toContain("no scanner is configured");

    // A scanner registration turning Ready queues the waiting resource at once (no 15 s retry).
    op.emulator.control.scanners.addAdapter("http://trivy-adapter:8080");
    await op.kubectl.apply(scannerRegistration("trivy", { url: "http://trivy-adapter:8080" }));
    await op.waitReady("harborscannerregistration", "trivy");
    const registered = Date.now();
    const cr = await op.waitReady<ScanAllCR>(KIND, "scan");
    expect(Date.now() - registered).toBeLessThan(8_000);
    expect(await schedule()).toMatchObject({ type: "Weekly", cron: "0 0 0 * * 0" });
    expect(cr.status?.harborId).toBe(0);
    expect(cr.status?.lastRun).toBeUndefined();
    expect(await eventReasons(op.kubectl, "scan", "HarborScanAll")).toContain("Created");

    const table = await op.kubectl.run(["get", "harborscanalls"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+SCHEDULE\s+SCANNING\s+SCANNED\s+AGE/);
    expect(table).toMatch(/scan\s+True\s+Synced\s+Weekly\s/);
  });

  test("a spec change is applied; a change made in Harbor is reverted within one drift interval and named", async () => {
    await op.kubectl.apply(scanAll("scan", { schedule: { type: "Custom", cron: "0 30 2 * * *" } }));
    await op.waitFor<ScanAllCR>(KIND, "scan", readyForSpec);
    expect(await schedule()).toMatchObject({ type: "Custom", cron: "0 30 2 * * *" });

    await op.harbor.scanAll.updateSchedule({ schedule: { type: "Daily", cron: "0 0 4 * * *" } });
    const changed = Date.now();
    await until("the schedule to be reverted", async () =>
      (await schedule())?.cron === "0 30 2 * * *" ? true : undefined,
    );
    expect(Date.now() - changed).toBeLessThan(5_000);
    const cr = await op.waitFor<ScanAllCR>(KIND, "scan", (o) => o.status?.lastDriftCorrection !== undefined);
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["schedule.type", "schedule.cron"]);

    // A schedule removed in Harbor is put back too.
    await op.harbor.scanAll.updateSchedule({ schedule: { type: "None" } });
    await until("the schedule to come back", async () => ((await schedule()) ? true : undefined), 6_000);
    await op.waitFor<ScanAllCR>(
      KIND,
      "scan",
      (o) => o.status?.lastDriftCorrection?.fields.join() === "schedule.type",
    );
  });

  test("a second resource for the same Harbor gets Conflict and writes nothing", async () => {
    const writes = count("updateScanAllSchedule");
    await op.kubectl.apply(scanAll("scan-2", { schedule: { type: "Hourly" } }));
    const cr = await op.waitFor<ScanAllCR>(
      KIND,
      "scan-2",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(cr, "Ready")?.message).toBe(
      `HarborScanAll ${op.namespace}/scan already manages this Harbor object; only one resource may own it`,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(count("updateScanAllSchedule")).toBe(writes);
    expect((await schedule())?.type).toBe("Custom");
    await op.kubectl.delete(KIND, "scan-2", { wait: true });
  });

  test("bad input is refused by kubectl, naming the field", async () => {
    const rejected = async (name: string, spec: Record<string, unknown>) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], { input: JSON.stringify(scanAll(name, spec)) });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected("manual", { schedule: { type: invalid("Manual") } })).toContain(
      "type Manual is not a schedule: Harbor would start a run at every apply",
    );
    expect(await rejected("custom", { schedule: { type: "Custom" } })).toContain(
      "a Custom schedule needs a cron",
    );
    expect(await rejected("cron", { schedule: { type: "Custom", cron: "0 0 25 * * *" } })).toContain(
      "spec.schedule.cron",
    );
  });

  test("run now: one scan of everything per new value, its progress in status; Harbor's 409 while one goes is recorded", async () => {
    op.emulator.control.scanAll.setArtifacts(3);
    op.emulator.control.scanAll.plan({ durationMs: 60_000 });
    await annotate("scan", "first");
    const cr = await op.waitFor<ScanAllCR>(KIND, "scan", (o) => o.status?.lastHandledRunAt === "first");
    expect(manualRuns()).toHaveLength(1);
    expect(cr.status?.runRequest).toMatchObject({
      requestedAt: "first",
      executionId: 0,
      afterExecutionId: 0,
    });
    expect(cr.status?.lastRun).toMatchObject({ trigger: "Manual", ongoing: true, total: 3 });
    expect(await eventReasons(op.kubectl, "scan", "HarborScanAll")).toContain("RunStarted");

    // Harbor refuses another while the first goes: recorded, not retried.
    await annotate("scan", "second");
    const refused = await op.waitFor<ScanAllCR>(KIND, "scan", (o) => o.status?.lastHandledRunAt === "second");
    expect(refused.status?.runRequest?.refused).toContain("a previous scan all job aleady exits");
    expect(manualRuns()).toHaveLength(1);
    expect(await eventReasons(op.kubectl, "scan", "HarborScanAll")).toContain("RunNotStarted");

    // Its end shows in kubectl get within seconds (followed every 2 s while it goes).
    op.emulator.control.clock.advance(60_000);
    const ended = Date.now();
    await until("SCANNING false in kubectl get", async () =>
      /scan\s+True\s+Synced\s+Custom\s+false\s+3\s/.test(await op.kubectl.run(["get", KIND, "scan"]))
        ? true
        : undefined,
    );
    expect(Date.now() - ended).toBeLessThan(5_000);
    // The same value again starts nothing.
    await annotate("scan", "second");
    await new Promise((r) => setTimeout(r, 1_500));
    expect(manualRuns()).toHaveLength(1);
  });

  test.each([
    ["between starting the run and recording it", "after-run-start"],
    ["between recording the request and starting the run", "after-run-request-recorded"],
  ])("the operator killed %s starts exactly one scan", async (_when, point) => {
    const value = `crash-${point}`;
    op.emulator.control.scanAll.plan({ durationMs: 120_000 });
    const runs = manualRuns().length;
    await op.stop();
    await op.start({ HCO_TEST_CRASH_POINT: point });
    await op.waitReady<ScanAllCR>(KIND, "scan");
    await annotate("scan", value);
    const code = await Promise.race([
      op.exited(),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the operator did not reach the crash point")), 30_000),
      ),
    ]);
    expect(code).toBeNull(); // SIGKILL
    const recorded = await op.kubectl.get<ScanAllCR>(KIND, "scan");
    expect(recorded.status?.runRequest).toMatchObject({ requestedAt: value });
    expect(recorded.status?.runRequest?.executionId).toBeUndefined();
    expect(manualRuns()).toHaveLength(point === "after-run-start" ? runs + 1 : runs);

    await op.start();
    const cr = await op.waitFor<ScanAllCR>(
      KIND,
      "scan",
      (o) => o.status?.lastHandledRunAt === value && o.status.runRequest?.executionId === 0,
      60_000,
    );
    expect(manualRuns()).toHaveLength(runs + 1);
    expect(cr.status?.runRequest?.refused).toBeUndefined();
    expect(cr.status?.lastRun).toMatchObject({ trigger: "Manual", ongoing: true });
    op.emulator.control.clock.advance(120_000);
  });

  test("a schedule someone else set: Create refuses it, CreateOrAdopt takes it over; Delete sets None, Orphan keeps it", async () => {
    await op.kubectl.delete(KIND, "scan", { wait: true });
    expect(await schedule()).toBeUndefined();

    await op.harbor.scanAll.updateSchedule({ schedule: { type: "Daily", cron: "0 0 4 * * *" } });
    await op.kubectl.apply(scanAll("theirs", { schedule: { type: "Hourly" } }));
    const refused = await op.waitFor<ScanAllCR>(KIND, "theirs", stalled);
    expect(condition(refused, "Ready")).toMatchObject({ reason: "AlreadyExists" });
    expect(condition(refused, "Ready")?.message).toContain("(schedule Daily, 0 0 4 * * *)");
    expect((await schedule())?.type).toBe("Daily");

    await op.kubectl.apply(
      scanAll("theirs", {
        schedule: { type: "Hourly" },
        creationPolicy: "CreateOrAdopt",
        deletionPolicy: "Orphan",
      }),
    );
    await op.waitFor<ScanAllCR>(KIND, "theirs", readyForSpec);
    expect(await schedule()).toMatchObject({ type: "Hourly", cron: "0 0 * * * *" });
    expect(await eventReasons(op.kubectl, "theirs", "HarborScanAll")).toContain("Adopted");
    await op.kubectl.delete(KIND, "theirs", { wait: true });
    expect((await schedule())?.type).toBe("Hourly");
    await op.harbor.scanAll.updateSchedule({ schedule: { type: "None" } });
  });

  test("through a ClusterHarborConnection, only a tenancy with allowSystemSettings may manage the scan-all schedule", async () => {
    await onlyWithSystemSettings(op, {
      kind: KIND,
      resource: (connectionRef) => scanAll("tenant", { connectionRef }),
      whileRefused: async () => expect(await schedule()).toBeUndefined(),
      whenReady: async () => expect((await schedule())?.type).toBe("Daily"),
      afterDelete: async () => expect(await schedule()).toBeUndefined(),
    });
  });
});
