// HarborGarbageCollectionRun end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator, whose GCs run on its world clock as Harbor 2.12.4's do: the job, then about 25 s more
// shown Running, one GC job at a time; the tests move that clock instead of waiting). A run starts
// exactly one GC, is followed to its end, waits for or queues behind another GC, stops its GC when
// deleted, goes after its TTL, holds its connection only while it runs, and after a crash between
// starting a GC and recording it, takes that GC over instead of starting another. The run lifecycle
// itself (every decision, Orphan included) is proven in test/unit/runtime/run-lifecycle.test.ts;
// what kubectl refuses, in test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { FINALIZER } from "../../src/api/common.ts";
import { budget } from "../env/budget.ts";
import { armedAt, startDisarmed, untilCrashed } from "../env/crash.ts";
import { useOperator } from "../env/operator.ts";
import {
  type ConnectionCR,
  condition,
  connection,
  credentials,
  eventOf,
  type GcRunCR,
  gcRun,
  harborIdOf,
} from "../env/resources.ts";

// Armed: the operator dies the first time it has started a GC (the first test), before recording it.
const op = useOperator({ namespacePrefix: "gcrun", ...armedAt("after-gc-run-start") });
const KIND = "harborgarbagecollectionrun";
/** How long Harbor 2.12.4 still shows a GC Running after its job ended (world time). */
const LAG = 25_000;
const gc = () => op.emulator.control.gc;
const advance = (ms: number) => op.emulator.control.clock.advance(ms);
const count = (o: string) => op.emulator.counters.total({ op: o });
const run = (id: number | undefined) =>
  gc()
    .runs()
    .find((r) => r.id === id);
const gone = (kind: string, name: string) => op.kubectl.wait(kind, name, "delete", budget.operatorMs);

/** Lets every GC in the emulator end: running jobs now, waiting ones after them, then the lag. */
function settle(): void {
  for (
    let i = 0;
    i < 10 &&
    gc()
      .runs()
      .some((r) => r.status === "Running");
    i++
  ) {
    for (const r of gc().runs()) if (r.jobStatus === "Running") gc().complete(r.id);
    advance(LAG + 5_000);
  }
}

const started = (name: string) =>
  op.waitFor<GcRunCR>(KIND, name, (o) => o.status?.harborId !== undefined && o.status.phase === "Running");

describe("HarborGarbageCollectionRun", () => {
  // First: the operator is armed to die here.
  test("killed between starting a GC and recording it, the restarted operator takes that GC over: one GC", async () => {
    settle();
    // Running until settled, however long the restart takes.
    gc().plan({ durationMs: 60 * 60_000 });
    const before = gc().runs().length;
    await op.kubectl.apply(gcRun("crashy", { workers: 3 }));
    await untilCrashed(op);
    expect(gc().runs()).toHaveLength(before + 1);
    const lost = gc().runs().at(-1);
    expect(lost?.parameters).toMatchObject({ workers: 3 });
    const unrecorded = await op.kubectl.get<GcRunCR>(KIND, "crashy");
    expect(unrecorded.status?.harborId).toBeUndefined();
    expect(unrecorded.status?.startRequest).toBeDefined();

    await startDisarmed(op);
    const taken = await started("crashy");
    expect(taken.status?.harborId).toBe(lost?.id);
    expect(gc().runs()).toHaveLength(before + 1);
    await eventOf(op.kubectl, "crashy", "HarborGarbageCollectionRun", "ExecutionFound");
    settle();
    await op.waitReady(KIND, "crashy");
    expect(gc().runs()).toHaveLength(before + 1);
  });

  test("apply → one GC in Harbor, Running with its id → Succeeded with what it freed, its log and Events; kubectl get shows it", async () => {
    settle();
    gc().plan({ durationMs: 2_000, freedSpace: 5 * 1024 * 1024, purgedBlobs: 7, purgedManifests: 2 });
    const before = gc().runs().length;
    await op.kubectl.apply(gcRun("first", { deleteUntagged: true, workers: 2 }));

    const running = await started("first");
    const id = harborIdOf(running);
    expect(gc().runs()).toHaveLength(before + 1);
    expect(run(id)).toMatchObject({
      trigger: "MANUAL",
      status: "Running",
      parameters: { delete_untagged: true, dry_run: false, workers: 2 },
    });
    expect(condition(running, "Ready")).toMatchObject({ status: "False", reason: "Running" });
    expect(condition(running, "Reconciling")?.status).toBe("True");
    expect(running.metadata.finalizers).toContain(FINALIZER);
    expect(running.status?.startRequest?.afterId).toBeLessThan(id);

    // Harbor ends it: the job's 2 s, then the 25 s it still shows the run Running.
    advance(2_000 + LAG);
    expect((await op.harbor.gc.get(id)).job_status).toBe("Success");
    // Ended: Ready, and the finalizer (written after the final status) gone.
    const done = await op.waitFor<GcRunCR>(
      KIND,
      "first",
      (o) =>
        condition(o, "Ready")?.status === "True" &&
        !((o.metadata.finalizers as string[] | undefined) ?? []).includes(FINALIZER),
    );
    expect(done.status).toMatchObject({
      phase: "Succeeded",
      harborId: id,
      freedBytes: 5 * 1024 * 1024,
      freedSpace: "5 MiB",
      purgedBlobs: 7,
      purgedManifests: 2,
    });
    expect(done.status?.completionTime).toBeDefined();
    expect(done.status?.logTail?.at(-1)).toContain("success to run gc in job.");
    expect(done.status?.logTail?.join("\n")).toContain("7 blobs and 2 manifests are actually deleted");
    expect(condition(done, "Ready")).toMatchObject({ status: "True", reason: "Succeeded" });
    expect(condition(done, "Ready")?.message).toContain("freed 5 MiB");
    expect(condition(done, "Stalled")).toBeUndefined();
    expect(condition(done, "Reconciling")).toBeUndefined();
    // Nothing runs any more: a finished run goes without the operator.
    expect(gc().runs()).toHaveLength(before + 1);

    const table = await op.kubectl.run(["get", "harborgarbagecollectionruns"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+PHASE\s+DRY RUN\s+FREED\s+STARTED\s+AGE/);
    expect(table).toMatch(
      new RegExp(`first\\s+True\\s+Succeeded\\s+${id}\\s+Succeeded\\s+false\\s+5 MiB\\s`),
    );
    await eventOf(op.kubectl, "first", "HarborGarbageCollectionRun", "Started");
    await eventOf(op.kubectl, "first", "HarborGarbageCollectionRun", "Succeeded");
  });

  test("concurrencyPolicy Wait stays Pending while a GC runs; Queue starts at once, queued in Harbor", async () => {
    settle();
    gc().plan({ durationMs: 60 * 60_000 });
    const other = await op.harbor.gc.createSchedule({ schedule: { type: "Manual" } });
    const starts = count("createGCSchedule");
    await op.kubectl.apply([gcRun("patient"), gcRun("eager", { concurrencyPolicy: "Queue", dryRun: true })]);

    const eager = await started("eager");
    // Harbor took it and keeps its job waiting behind the running one.
    expect(run(harborIdOf(eager))?.jobStatus).toBe("Pending");
    const waiting = await op.waitFor<GcRunCR>(
      KIND,
      "patient",
      (o) => condition(o, "Ready")?.reason === "WaitingForGC",
    );
    expect(waiting.status?.phase).toBe("Pending");
    expect(waiting.status?.harborId).toBeUndefined();
    expect(condition(waiting, "Ready")?.message).toContain(`GC ${other}`);
    expect(condition(waiting, "Stalled")).toBeUndefined();
    expect(count("createGCSchedule") - starts).toBe(1);

    // The other GC ends, then the queued one (2 s) and their 25 s: now the patient run starts.
    gc().complete(other);
    advance(LAG + 5_000);
    expect(run(harborIdOf(eager))?.status).toBe("Success");
    const patient = await started("patient");
    expect(harborIdOf(patient)).toBeGreaterThan(harborIdOf(eager));
    expect(count("createGCSchedule") - starts).toBe(2);
    settle();
    await op.waitReady(KIND, "patient");
    const dry = await op.waitReady<GcRunCR>(KIND, "eager");
    expect(condition(dry, "Ready")?.message).toContain("would free");
  });

  test("deleting a running GC run stops the GC", async () => {
    settle();
    gc().plan({ durationMs: 60 * 60_000 });
    await op.kubectl.apply(gcRun("doomed"));
    const id = harborIdOf(await started("doomed"));
    const stops = count("stopGC");
    await op.kubectl.delete(KIND, "doomed", { wait: true });
    expect((await op.harbor.gc.get(id)).job_status).toBe("Stopped");
    expect(count("stopGC") - stops).toBe(1);
    await eventOf(op.kubectl, "doomed", "HarborGarbageCollectionRun", "StopRequested");
    settle();
  });

  test("ttlSecondsAfterFinished: the operator deletes the run once it has ended, and only then", async () => {
    settle();
    gc().plan({ durationMs: 60 * 60_000 });
    await op.kubectl.apply(gcRun("brief", { dryRun: true, ttlSecondsAfterFinished: 0 }));
    // Recorded Running by a reconcile that saw the TTL, and kept.
    await started("brief");
    settle();
    await gone(KIND, "brief");
    await eventOf(op.kubectl, "brief", "HarborGarbageCollectionRun", "Succeeded");
    await eventOf(op.kubectl, "brief", "HarborGarbageCollectionRun", "Expired");
    // Without a TTL, a finished run stays.
    expect((await op.kubectl.get<GcRunCR>(KIND, "first")).status?.phase).toBe("Succeeded");
  });

  test("a deleted connection waits for the runs that still run through it, not for finished ones", async () => {
    settle();
    await op.kubectl.apply([
      credentials("second-login", {
        username: op.emulator.adminUsername,
        password: op.emulator.adminPassword,
      }),
      connection("second", op.emulator.url, "second-login"),
    ]);
    await op.waitReady("harborconnection", "second");
    const through = { connectionRef: { name: "second" } };
    await op.kubectl.apply(gcRun("done-before", { ...through, dryRun: true }));
    await started("done-before");
    settle();
    await op.waitReady(KIND, "done-before");

    gc().plan({ durationMs: 60 * 60_000 });
    await op.kubectl.apply(gcRun("holding", through));
    await started("holding");
    await op.kubectl.delete("harborconnection", "second");
    const pending = await op.waitFor<ConnectionCR>(
      "harborconnection",
      "second",
      (o) => condition(o, "DeletionPending")?.status === "True",
    );
    const message = condition(pending, "DeletionPending")?.message ?? "";
    expect(message).toContain(`HarborGarbageCollectionRun ${op.namespace}/holding`);
    expect(message).not.toContain("done-before");

    // The GC ends: nothing uses the connection any more, and it goes.
    settle();
    await op.waitReady(KIND, "holding");
    await gone("harborconnection", "second");
  });
});
