// HarborGarbageCollectionRun end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator, whose GCs run on its world clock as Harbor 2.12.4's do: the job, then about 25 s more
// shown Running, one GC job at a time). A run starts exactly one GC, is followed to its end, waits
// for or queues behind another GC, stops its GC when deleted, and after a crash between starting a
// GC and recording it, takes that GC over instead of starting another.
import { describe, expect, test } from "vitest";
import { FINALIZER } from "../../src/api/common.ts";
import { useOperator } from "../env/operator.ts";
import {
  type ConnectionCR,
  condition,
  connection,
  credentials,
  eventReasons,
  eventsOf,
  type GcRunCR,
  gcRun,
  invalid,
} from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "gcrun" });
const KIND = "harborgarbagecollectionrun";
/** How long Harbor 2.12.4 still shows a GC Running after its job ended. */
const LAG = 25_000;
const gc = () => op.emulator.control.gc;
const advance = (ms: number) => op.emulator.control.clock.advance(ms);
const count = (o: string) => op.emulator.counters.total({ op: o });
const run = (id: number | undefined) =>
  gc()
    .runs()
    .find((r) => r.id === id);

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

/** Polls until `check` holds; resolves with the time it first did. */
async function when(check: () => Promise<boolean>, timeoutMs: number, everyMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return Date.now();
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const started = (name: string) =>
  op.waitFor<GcRunCR>(KIND, name, (o) => o.status?.harborId !== undefined && o.status.phase === "Running");

describe("HarborGarbageCollectionRun", () => {
  test("apply → one GC in Harbor, Running with its id → Succeeded in kubectl within seconds of Harbor ending it", {
    timeout: 90_000,
  }, async () => {
    settle();
    gc().plan({ durationMs: 2_000, freedSpace: 5 * 1024 * 1024, purgedBlobs: 7, purgedManifests: 2 });
    const before = gc().runs().length;
    await op.kubectl.apply(gcRun("first", { deleteUntagged: true, workers: 2 }));

    const running = await started("first");
    const id = running.status?.harborId as number;
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

    // Harbor ends it in real time: the job's 2 s, then the 25 s it still shows the run Running.
    // When Harbor shows the end and when kubectl does, polled side by side.
    const [harborEnded, kubectlShowed] = await Promise.all([
      when(async () => (await op.harbor.gc.get(id)).job_status === "Success", 60_000, 50),
      op.kubectl.wait(KIND, "first", "condition=Ready", 60_000).then(() => Date.now()),
    ]);
    const lagMs = kubectlShowed - harborEnded;
    console.log(`GC run: kubectl wait --for=condition=Ready returned ${lagMs} ms after Harbor ended the GC`);
    // At most one look (every 5 s at this age) plus kubectl's own start.
    expect(lagMs).toBeLessThan(8_000);

    const done = await op.kubectl.get<GcRunCR>(KIND, "first");
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
    expect(done.metadata.finalizers ?? []).not.toContain(FINALIZER);
    expect(gc().runs()).toHaveLength(before + 1);

    const table = await op.kubectl.run(["get", "harborgarbagecollectionruns"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+PHASE\s+DRY RUN\s+FREED\s+STARTED\s+AGE/);
    expect(table).toMatch(
      new RegExp(`first\\s+True\\s+Succeeded\\s+${id}\\s+Succeeded\\s+false\\s+5 MiB\\s`),
    );
    expect(await eventReasons(op.kubectl, "first", "HarborGarbageCollectionRun")).toEqual(
      expect.arrayContaining(["Started", "Succeeded"]),
    );
  });

  test("concurrencyPolicy Wait stays Pending while a GC runs; Queue starts at once, queued in Harbor", async () => {
    settle();
    gc().plan({ durationMs: 60 * 60_000 });
    const other = await op.harbor.gc.createSchedule({ schedule: { type: "Manual" } });
    const starts = count("createGCSchedule");
    await op.kubectl.apply([gcRun("patient"), gcRun("eager", { concurrencyPolicy: "Queue", dryRun: true })]);

    const eager = await started("eager");
    // Harbor took it and keeps its job waiting behind the running one.
    expect(run(eager.status?.harborId)?.jobStatus).toBe("Pending");
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
    expect(run(eager.status?.harborId)?.status).toBe("Success");
    const patient = await started("patient");
    expect(patient.status?.harborId).toBeGreaterThan(eager.status?.harborId as number);
    expect(count("createGCSchedule") - starts).toBe(2);
    settle();
    await op.waitReady(KIND, "patient", 30_000);
    const dry = await op.waitReady<GcRunCR>(KIND, "eager", 30_000);
    expect(condition(dry, "Ready")?.message).toContain("would free");
  });

  test("deleting a running GC run stops the GC; deletionPolicy Orphan lets it run on", async () => {
    settle();
    gc().plan({ durationMs: 60 * 60_000 });
    await op.kubectl.apply(gcRun("doomed"));
    const id = (await started("doomed")).status?.harborId as number;
    const stops = count("stopGC");
    await op.kubectl.delete(KIND, "doomed", { wait: true });
    expect((await op.harbor.gc.get(id)).job_status).toBe("Stopped");
    expect(count("stopGC") - stops).toBe(1);
    expect(await eventReasons(op.kubectl, "doomed", "HarborGarbageCollectionRun")).toContain("StopRequested");

    gc().plan({ durationMs: 60 * 60_000 });
    await op.kubectl.apply(gcRun("left", { deletionPolicy: "Orphan" }));
    const left = (await started("left")).status?.harborId as number;
    await op.kubectl.delete(KIND, "left", { wait: true });
    expect((await op.harbor.gc.get(left)).job_status).toBe("Running");
    expect(count("stopGC") - stops).toBe(1);
    settle();
  });

  test("bad input is refused by kubectl; a run's parameters never change, its deletionPolicy may", async () => {
    const rejected = async (name: string, spec: Parameters<typeof gcRun>[1]) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], { input: JSON.stringify(gcRun(name, spec)) });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected("many", { workers: 9 })).toMatch(/spec\.workers: Invalid value: 9/);
    expect(await rejected("later", { concurrencyPolicy: invalid("Later") })).toMatch(
      /spec\.concurrencyPolicy: Unsupported value: "Later"/,
    );
    expect(await rejected("negative", { ttlSecondsAfterFinished: -1 })).toMatch(
      /spec\.ttlSecondsAfterFinished: Invalid value: -1/,
    );
    // "first" succeeded with deleteUntagged and 2 workers.
    const first = { deleteUntagged: true, workers: 2 };
    expect(await rejected("first", { ...first, dryRun: true })).toContain(
      "spec.dryRun: Invalid value: dryRun is immutable: a run does what it was created with, so it stays false; create another run instead",
    );
    expect(await rejected("first", { ...first, workers: 3 })).toContain("workers is immutable");
    expect(await rejected("first", { ...first, connectionRef: { name: "elsewhere" } })).toContain(
      "connectionRef is immutable: a run does what it was created with, so it stays harbor",
    );
    const runs = gc().runs().length;
    await op.kubectl.apply(gcRun("first", { ...first, deletionPolicy: "Orphan" }));
    const after = await op.waitFor<GcRunCR>(
      KIND,
      "first",
      (o) => o.status?.observedGeneration === o.metadata.generation && o.metadata.generation === 2,
    );
    expect(after.status?.phase).toBe("Succeeded");
    expect(condition(after, "Ready")).toMatchObject({ status: "True", observedGeneration: 2 });
    expect(gc().runs()).toHaveLength(runs);
  });

  test("ttlSecondsAfterFinished: the operator deletes the run once it has ended, and only then", async () => {
    settle();
    await op.kubectl.apply(gcRun("brief", { dryRun: true, ttlSecondsAfterFinished: 0 }));
    await started("brief");
    settle();
    await op.kubectl.wait(KIND, "brief", "delete", 30_000);
    const events = await eventsOf(op.kubectl, "brief", "HarborGarbageCollectionRun");
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(["Succeeded", "Expired"]));
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
    await op.waitReady(KIND, "done-before", 30_000);

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
    await op.waitReady(KIND, "holding", 30_000);
    await op.kubectl.wait("harborconnection", "second", "delete", 30_000);
  });

  // Last: it restarts the operator.
  test("killed between starting a GC and recording it, the restarted operator takes that GC over: one GC", async () => {
    settle();
    await op.stop();
    await op.start({ HCO_TEST_CRASH_POINT: "after-gc-run-start" });
    const before = gc().runs().length;
    await op.kubectl.apply(gcRun("crashy", { workers: 3 }));
    const code = await Promise.race([
      op.exited(),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the operator did not reach the crash point")), 60_000),
      ),
    ]);
    expect(code).toBeNull(); // killed by SIGKILL
    expect(gc().runs()).toHaveLength(before + 1);
    const lost = gc().runs().at(-1);
    expect(lost?.parameters).toMatchObject({ workers: 3 });
    const unrecorded = await op.kubectl.get<GcRunCR>(KIND, "crashy");
    expect(unrecorded.status?.harborId).toBeUndefined();
    expect(unrecorded.status?.startRequest).toBeDefined();

    await op.start();
    const taken = await started("crashy");
    expect(taken.status?.harborId).toBe(lost?.id);
    expect(gc().runs()).toHaveLength(before + 1);
    expect(await eventReasons(op.kubectl, "crashy", "HarborGarbageCollectionRun")).toContain(
      "ExecutionFound",
    );
    settle();
    await op.waitReady(KIND, "crashy", 30_000);
    expect(gc().runs()).toHaveLength(before + 1);
  });
});
