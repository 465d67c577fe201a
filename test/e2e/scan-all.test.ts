// HarborScanAll end to end: kubectl → apiserver → the operator process → Harbor (the emulator). A
// wait for Harbor's default scanner (NoDefaultScanner) that ends once a scanner registration is
// Ready; the schedule as written, a spec edit reaching Harbor, a change made in Harbor (a removed
// schedule included) reverted and named; run now by annotation with the run's progress in status,
// Harbor's refusal of a second while one goes, and one scan only when the operator is killed between
// starting it and recording it; deletion setting the schedule to None. One per Harbor, "exists",
// adoption, Orphan, the tenancy check and run now's other decisions are proven in unit tables
// (test/unit/controllers/scan-all-preheat-mapping.test.ts, test/unit/controllers/run-now.test.ts,
// test/unit/runtime/managed-lifecycle.test.ts); what kubectl refuses, in
// test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { armedAt, startDisarmed, untilCrashed } from "../env/crash.ts";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  eventOf,
  readyForSpec,
  type ScanAllCR,
  scanAll,
  scannerRegistration,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

// Armed: the operator dies the first time it has started a scan for a value (the crash test, the
// first to ask for one), before recording it.
const op = useOperator({ namespacePrefix: "scanall", ...armedAt("after-run-start") });
const KIND = "harborscanall";
const ANNOTATION = "harborconfig.io/runRequestedAt";

const schedule = async () => (await op.harbor.scanAll.getSchedule())?.schedule;
const manualRuns = () => op.emulator.control.scanAll.runs().filter((r) => r.trigger === "MANUAL");
const annotate = (name: string, value: string) =>
  op.kubectl.run(["annotate", "--overwrite", KIND, name, `${ANNOTATION}=${value}`]);

describe("HarborScanAll", () => {
  test("waits for a default scanner, then Harbor holds the schedule as written; kubectl get shows it", async () => {
    await op.kubectl.apply(scanAll("scan", { schedule: { type: "Weekly" } }));
    const waiting = await op.waitFor<ScanAllCR>(
      KIND,
      "scan",
      (o) => condition(o, "Ready")?.reason === "NoDefaultScanner",
    );
    expect(condition(waiting, "Ready")?.message).toContain("no scanner is configured");

    // A scanner registration turning Ready queues the waiting resource.
    op.emulator.control.scanners.addAdapter("http://trivy-adapter:8080");
    await op.kubectl.apply(scannerRegistration("trivy", { url: "http://trivy-adapter:8080" }));
    await op.waitReady("harborscannerregistration", "trivy");
    const cr = await op.waitReady<ScanAllCR>(KIND, "scan");
    expect(await schedule()).toMatchObject({ type: "Weekly", cron: "0 0 0 * * 0" });
    expect(cr.status?.harborId).toBe(0);
    expect(cr.status?.lastRun).toBeUndefined();

    const table = await op.kubectl.run(["get", "harborscanalls"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+SCHEDULE\s+SCANNING\s+SCANNED\s+AGE/);
    expect(table).toMatch(/scan\s+True\s+Synced\s+Weekly\s/);
  });

  test("a spec change is applied; a change made in Harbor is reverted and named, a removed schedule put back", async () => {
    await op.kubectl.apply(scanAll("scan", { schedule: { type: "Custom", cron: "0 30 2 * * *" } }));
    await op.waitFor<ScanAllCR>(KIND, "scan", readyForSpec);
    expect(await schedule()).toMatchObject({ type: "Custom", cron: "0 30 2 * * *" });

    await op.harbor.scanAll.updateSchedule({ schedule: { type: "Daily", cron: "0 0 4 * * *" } });
    await until("the schedule to be reverted", async () =>
      (await schedule())?.cron === "0 30 2 * * *" ? true : undefined,
    );
    const cr = await op.waitFor<ScanAllCR>(KIND, "scan", (o) => o.status?.lastDriftCorrection !== undefined);
    expect(cr.status?.lastDriftCorrection?.fields).toEqual(["schedule.type", "schedule.cron"]);

    // A schedule removed in Harbor is put back too.
    await op.harbor.scanAll.updateSchedule({ schedule: { type: "None" } });
    await until("the schedule to come back", async () => ((await schedule()) ? true : undefined));
    await op.waitFor<ScanAllCR>(
      KIND,
      "scan",
      (o) => o.status?.lastDriftCorrection?.fields.join() === "schedule.type",
    );
  });

  test("the operator killed between starting a scan and recording it starts exactly one scan", async () => {
    const value = "crash-after-run-start";
    op.emulator.control.scanAll.setArtifacts(3);
    op.emulator.control.scanAll.plan({ durationMs: 120_000 });
    const runs = manualRuns().length;
    await annotate("scan", value);
    await untilCrashed(op);
    const recorded = await op.kubectl.get<ScanAllCR>(KIND, "scan");
    expect(recorded.status?.runRequest).toMatchObject({ requestedAt: value });
    expect(recorded.status?.runRequest?.executionId).toBeUndefined();
    expect(manualRuns()).toHaveLength(runs + 1);

    await startDisarmed(op);
    const cr = await op.waitFor<ScanAllCR>(
      KIND,
      "scan",
      (o) => o.status?.lastHandledRunAt === value && o.status.runRequest?.executionId === 0,
    );
    expect(manualRuns()).toHaveLength(runs + 1);
    expect(cr.status?.runRequest?.refused).toBeUndefined();
    expect(cr.status?.lastRun).toMatchObject({ trigger: "Manual", ongoing: true });
    op.emulator.control.clock.advance(120_000);
  });

  test("run now: one scan of everything per new value, its progress in status; Harbor's 409 while one goes is recorded", async () => {
    op.emulator.control.scanAll.plan({ durationMs: 60_000 });
    const runs = manualRuns().length;
    await annotate("scan", "first");
    const cr = await op.waitFor<ScanAllCR>(KIND, "scan", (o) => o.status?.lastHandledRunAt === "first");
    expect(manualRuns()).toHaveLength(runs + 1);
    expect(cr.status?.runRequest).toMatchObject({
      requestedAt: "first",
      executionId: 0,
      afterExecutionId: 0,
    });
    expect(cr.status?.lastRun).toMatchObject({ trigger: "Manual", ongoing: true, total: 3 });
    await eventOf(op.kubectl, "scan", "HarborScanAll", "RunStarted", `${ANNOTATION} "first"`);

    // Harbor refuses another while the first goes: recorded, not retried.
    await annotate("scan", "second");
    const refused = await op.waitFor<ScanAllCR>(KIND, "scan", (o) => o.status?.lastHandledRunAt === "second");
    expect(refused.status?.runRequest?.refused).toContain("a previous scan all job aleady exits");
    expect(manualRuns()).toHaveLength(runs + 1);
    await eventOf(op.kubectl, "scan", "HarborScanAll", "RunNotStarted", `${ANNOTATION} "second"`);

    // Its end shows in kubectl get (followed every 2 s while it goes); the looks that followed it,
    // with "second" handled and no scan going any more, started nothing.
    op.emulator.control.clock.advance(60_000);
    await op.waitFor<ScanAllCR>(KIND, "scan", (o) => o.status?.lastRun?.ongoing === false);
    expect(await op.kubectl.run(["get", KIND, "scan"])).toMatch(
      /scan\s+True\s+Synced\s+Custom\s+false\s+3\s/,
    );
    expect(manualRuns()).toHaveLength(runs + 1);
  });

  test("deletion (deletionPolicy Delete) sets the schedule to None", async () => {
    await op.kubectl.delete(KIND, "scan", { wait: true });
    expect(await schedule()).toBeUndefined();
  });
});
