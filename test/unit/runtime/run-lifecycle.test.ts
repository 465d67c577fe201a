// The run lifecycle as a table: the real RunReconciler, with the external system, Kubernetes, the
// informer, the Event recorder and the connection replaced by small in-memory fakes and one
// injected clock. Each case asserts what a user can see of a reconcile: the calls made to the
// system (above all: how many executions were started), the writes made to Kubernetes, in order,
// the phase and conditions, the Events and the Result. The end-to-end tests (gc-run, replication-run)
// remain the proof against real peers; this proves every decision of the lifecycle, crash cases
// included, without a cluster.
import pino from "pino";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { FINALIZER, PAUSED_ANNOTATION } from "../../../src/api/common.ts";
import type { KubeClient } from "../../../src/kube/client.ts";
import { KubeError } from "../../../src/kube/errors.ts";
import type { EventRecorder } from "../../../src/kube/events.ts";
import type { Condition, ResourceType } from "../../../src/kube/types.ts";
import { type Result, TerminalError } from "../../../src/runtime/controller.ts";
import {
  type ConnectionResolver,
  type ErrorClassifier,
  type ManagedObject,
  NotReady,
} from "../../../src/runtime/external-client.ts";
import { DEPENDENCY_NOT_READY } from "../../../src/runtime/managed.ts";
import { RunReconciler } from "../../../src/runtime/run.ts";
import type { RunExternal, RunStatus } from "../../../src/runtime/run-external.ts";
import { ConnectionRef, FakeApiServer, FakeCache, finalizersWritten, NS, ONE, START, TWO } from "./fakes.ts";

const type: ResourceType = {
  group: "harborconfig.io",
  version: "v1alpha1",
  plural: "harborjobruns",
  kind: "HarborJobRun",
  namespaced: true,
};

const JobSpec = z.object({
  connectionRef: ConnectionRef,
  deletionPolicy: z.enum(["Delete", "Orphan"]).default("Delete"),
  ttlSecondsAfterFinished: z.number().int().min(0).optional(),
  /** What to run: executions carry it, so that a run finds its own after a crash. */
  param: z.string().default("p"),
});
type JobSpec = z.infer<typeof JobSpec>;

type ExecStatus = "Running" | "Succeeded" | "Failed" | "Stopped" | "Skipped";
interface Execution {
  id: number;
  param: string;
  status: ExecStatus;
}

/** The external system: its executions, numbered from 1 across every kind of execution. */
class FakeSystem {
  readonly executions = new Map<number, Execution>();
  next = 1;
  /** Makes ids advance as if something else had run. */
  skip(n: number): void {
    this.next += n;
  }
  add(param: string, status: ExecStatus = "Running"): Execution {
    const e = { id: this.next++, param, status };
    this.executions.set(e.id, e);
    return e;
  }
  get started(): number {
    return this.executions.size;
  }
}

const errors: ErrorClassifier = { classify: () => undefined };

interface Outcome {
  result?: Result;
  error?: unknown;
  calls: string[];
  events: string[];
}

function setup() {
  let now = START;
  const clock = {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
  const systems = new Map([
    [ONE, new FakeSystem()],
    [TWO, new FakeSystem()],
  ]);
  const one = systems.get(ONE) as FakeSystem;
  const calls: string[] = [];
  const events: Array<{ name: string; type: string; reason: string; message: string }> = [];
  let blocked: { reason: string; message: string } | undefined;
  let prepareWait: NotReady | undefined;
  let startRefused: NotReady | undefined;
  /** The connection "harbor" reaches this system. */
  let reaches = ONE;
  /** Crashes the process right after the system accepted a start (before anything is recorded). */
  let crashAfterStart = false;

  const resolver: Pick<ConnectionResolver<{ url: string }>, "resolve" | "harborOf"> = {
    resolve: async () => ({ url: reaches }),
    harborOf: (c) => c.url,
  };
  const sys = (url: string) => systems.get(url) as FakeSystem;
  const external: RunExternal<JobSpec, Execution, { url: string }, Record<string, never>> = {
    prepare: async () => {
      if (prepareWait) throw prepareWait;
      return {};
    },
    blocker: async () => blocked,
    newestId: async ({ conn }) => {
      calls.push("newestId");
      return Math.max(0, ...sys(conn.url).executions.keys());
    },
    startedAfter: async ({ conn, spec }, afterId) => {
      calls.push(`startedAfter ${afterId}`);
      return [...sys(conn.url).executions.values()].filter((e) => e.id > afterId && e.param === spec.param);
    },
    start: async ({ conn, spec }) => {
      calls.push("start");
      if (startRefused) throw startRefused;
      const e = sys(conn.url).add(spec.param);
      if (crashAfterStart) throw new Error("crashed");
      return e.id;
    },
    get: async ({ conn }, id) => {
      calls.push(`get ${id}`);
      const e = sys(conn.url).executions.get(id);
      return e && { ...e };
    },
    id: (e) => e.id,
    outcome: (_input, e) => ({
      phase: e.status,
      message: `job ${e.id} ${e.status.toLowerCase()}`,
      status: { param: e.param },
    }),
    details: async (_input, e) => {
      calls.push(`details ${e.id}`);
      return { tail: [`job ${e.id} log`] };
    },
    stop: async ({ conn }, e) => {
      calls.push(`stop ${e.id}`);
      const x = sys(conn.url).executions.get(e.id);
      if (x) x.status = "Stopped";
    },
    name: (_input, id) => (id === undefined ? "the job" : `job ${id}`),
  };

  const server = new FakeApiServer({
    kind: type.kind,
    now: clock.now,
    log: (r) => {
      if (r.op === "delete") calls.push(`kube delete ${r.name}${r.uid ? ` uid=${r.uid}` : ""}`);
      else if (r.op === "mergePatch") calls.push(finalizersWritten(r.patch));
      else calls.push(`kube status ${Object.keys(r.patch).sort().join(",")}${r.guarded ? " (guarded)" : ""}`);
    },
  });
  const kube: Pick<KubeClient, "mergePatch" | "patchStatus" | "delete"> = server.client;
  const recorder: EventRecorder = {
    record: (obj, t, reason, message) => events.push({ name: obj.metadata.name, type: t, reason, message }),
    routine: (obj, reason, message) => events.push({ name: obj.metadata.name, type: "log", reason, message }),
  };
  let cache = new FakeCache();
  const make = () =>
    new RunReconciler<JobSpec, Execution, { url: string }, Record<string, never>>({
      type,
      specSchema: JobSpec,
      informer: cache,
      external,
      connections: resolver,
      errors,
      kube,
      events: recorder,
      now: clock.now,
    });
  let reconciler = make();
  const logger = pino({ level: "silent" });

  const env = {
    clock,
    one,
    two: systems.get(TWO) as FakeSystem,
    calls,
    events,
    server,
    block(b: { reason: string; message: string } | undefined) {
      blocked = b;
    },
    /** What prepare waits for (e.g. the referenced policy). */
    needs(e: NotReady | undefined) {
      prepareWait = e;
    },
    refuseStart(e: NotReady | undefined) {
      startRefused = e;
    },
    reach(url: string) {
      reaches = url;
    },
    crashAfterStart(on: boolean) {
      crashAfterStart = on;
    },
    apply(
      name: string,
      spec: Partial<JobSpec> = {},
      meta: { status?: RunStatus; annotations?: Record<string, string> } = {},
    ) {
      server.apply(name, { connectionRef: { name: "harbor" }, ...spec }, meta);
    },
    delete(name: string) {
      server.delete(name);
    },
    get(name: string): ManagedObject | undefined {
      return server.get(name);
    },
    status(name: string): RunStatus {
      return (server.get(name)?.status ?? {}) as RunStatus;
    },
    condition(name: string, t: string): Condition | undefined {
      return env.status(name).conditions?.find((c) => c.type === t);
    },
    /** A reconcile of `name` as the controller runs one: the informer has caught up first. */
    async reconcile(name: string, o: { stale?: boolean } = {}): Promise<Outcome> {
      if (!o.stale) cache.show(server.objects);
      const from = calls.length;
      const fromEvents = events.length;
      const out: Outcome = { calls: [], events: [] };
      try {
        out.result = await reconciler.reconcile({
          key: `${NS}/${name}`,
          reconcileId: "r",
          logger,
          signal: new AbortController().signal,
        });
      } catch (e) {
        out.error = e;
      }
      out.calls = calls.slice(from);
      out.events = events.slice(fromEvents).map((e) => `${e.type} ${e.reason}`);
      return out;
    },
    /** The operator restarts: a new reconciler with an empty memory and a fresh cache. */
    restart() {
      cache = new FakeCache();
      reconciler = make();
    },
  };
  return env;
}

const starts = (o: Outcome) => o.calls.filter((c) => c === "start").length;

describe("starting exactly once", () => {
  test("a new run: finalizer, then the start request (guarded), then the start, then its id, in that order", async () => {
    const env = setup();
    env.apply("nightly");
    env.one.skip(4); // the system has run other things: ids 1-4 are gone, the next is 5
    env.one.add("other"); // id 5
    const out = await env.reconcile("nightly");
    expect(out.error).toBeUndefined();
    expect(out.calls).toEqual([
      `kube finalizers ["${FINALIZER}"]`,
      "newestId",
      "kube status harborUrl,phase,startRequest (guarded)",
      "start",
      // The id, with the phase and conditions that follow from it: one write.
      "kube status conditions,harborId,harborUrl,observedGeneration,phase,startRequest",
      "get 6",
      "kube status conditions,harborId,harborUrl,observedGeneration,param,phase,startRequest",
    ]);
    expect(env.status("nightly")).toMatchObject({
      phase: "Running",
      harborId: 6,
      harborUrl: ONE,
      startRequest: { afterId: 5, time: "2025-06-01T12:00:00Z" },
    });
    expect(env.condition("nightly", "Ready")).toMatchObject({ status: "False", reason: "Running" });
    expect(env.condition("nightly", "Reconciling")?.status).toBe("True");
    expect(out.events).toEqual(["Normal Started"]);
    expect(out.result?.requeueAfterMs).toBe(1_000);
  });

  test("a reconcile whose cache has not caught up with the recorded id does not start again", async () => {
    const env = setup();
    env.apply("nightly");
    await env.reconcile("nightly");
    // The informer still shows the resource as it was before any write of ours.
    const out = await env.reconcile("nightly", { stale: true });
    expect(starts(out)).toBe(0);
    expect(env.one.started).toBe(1);
  });

  test("a start request written against a stale version fails before anything is started", async () => {
    const env = setup();
    env.apply("nightly");
    env.block({ reason: "WaitingForGC", message: "another runs" });
    await env.reconcile("nightly"); // Pending; the cache shows this version
    env.block(undefined);
    // Someone changes the resource meanwhile (an annotation): the cache is one version behind.
    const obj = env.get("nightly") as ManagedObject;
    obj.metadata.resourceVersion = `${obj.metadata.resourceVersion}-changed`;
    const out = await env.reconcile("nightly", { stale: true });
    expect(out.error).toBeInstanceOf(KubeError);
    expect(starts(out)).toBe(0);
    expect(env.one.started).toBe(0);
  });

  test("crash after the start, before the id: the restarted operator takes the execution over", async () => {
    const env = setup();
    env.apply("nightly");
    env.crashAfterStart(true);
    await env.reconcile("nightly");
    env.crashAfterStart(false);
    expect(env.one.started).toBe(1);
    expect(env.status("nightly").harborId).toBeUndefined();
    expect(env.status("nightly").startRequest?.afterId).toBe(0);

    env.restart();
    const out = await env.reconcile("nightly");
    expect(starts(out)).toBe(0);
    expect(out.calls[0]).toBe("startedAfter 0");
    expect(env.status("nightly")).toMatchObject({ phase: "Running", harborId: 1 });
    expect(out.events).toEqual(["Normal ExecutionFound"]);
    expect(env.one.started).toBe(1);
  });

  test("crash between the start request and the start: nothing found, started now with the recorded mark", async () => {
    const env = setup();
    env.apply("nightly");
    env.refuseStart(new NotReady("PolicyDisabled", "disabled")); // the request is written, no execution
    await env.reconcile("nightly");
    env.refuseStart(undefined);
    env.one.add("other"); // something else starts meanwhile, with other parameters
    env.restart();
    const out = await env.reconcile("nightly");
    expect(out.calls).not.toContain("newestId"); // the mark written before the first attempt stands
    expect(out.calls).toContain("startedAfter 0");
    expect(starts(out)).toBe(1);
    expect(env.status("nightly")).toMatchObject({ harborId: 2, startRequest: { afterId: 0 } });
  });

  test("after a crash, an execution another run has recorded is not taken: this run starts its own", async () => {
    const env = setup();
    env.apply("first");
    await env.reconcile("first"); // execution 1, recorded by "first"
    // "second", same parameters, wrote its start request before execution 1 existed, then the
    // operator stopped before it started anything.
    env.apply(
      "second",
      {},
      { status: { phase: "Pending", harborUrl: ONE, startRequest: { time: "t", afterId: 0 } } },
    );
    env.restart();
    const out = await env.reconcile("second");
    expect(out.calls).toContain("startedAfter 0");
    expect(starts(out)).toBe(1);
    expect(env.status("second").harborId).toBe(2);
    expect(env.status("first").harborId).toBe(1);
    expect(out.events).toEqual(["Normal Started"]);
  });

  test("a run that must wait stays Pending with the reason, starts nothing and adds no finalizer", async () => {
    const env = setup();
    env.apply("nightly");
    env.block({ reason: "WaitingForGC", message: "GC 3 is running" });
    const out = await env.reconcile("nightly");
    expect(starts(out)).toBe(0);
    expect(out.calls).toEqual(["kube status conditions,observedGeneration,phase"]);
    expect(env.status("nightly").phase).toBe("Pending");
    expect(env.condition("nightly", "Ready")).toMatchObject({
      reason: "WaitingForGC",
      message: "GC 3 is running",
    });
    expect(env.condition("nightly", "Stalled")).toBeUndefined();
    expect(env.condition("nightly", "Reconciling")?.status).toBe("True");
    expect(env.get("nightly")?.metadata.finalizers).toBeUndefined();
    expect(out.result?.requeueAfterMs).toBe(5_000);
  });

  test("a new run waiting for a resource applied with it shows the wait only after 10 s", async () => {
    const env = setup();
    env.apply("nightly");
    env.needs(new NotReady(DEPENDENCY_NOT_READY, "HarborReplicationPolicy mirror is not Ready"));
    const early = await env.reconcile("nightly");
    expect(early.calls).toEqual([]);
    expect(early.result).toEqual({ requeueAfterMs: 2_000 });
    env.clock.advance(10_000);
    await env.reconcile("nightly");
    expect(env.status("nightly").phase).toBe("Pending");
    expect(env.condition("nightly", "Ready")?.reason).toBe(DEPENDENCY_NOT_READY);
    env.needs(undefined);
    await env.reconcile("nightly");
    expect(env.status("nightly")).toMatchObject({ phase: "Running", harborId: 1 });
  });

  test("the system refusing the start for now (a disabled policy) is a wait, not a failure", async () => {
    const env = setup();
    env.apply("nightly");
    env.refuseStart(new NotReady("PolicyDisabled", 'policy "mirror" is disabled'));
    const out = await env.reconcile("nightly");
    expect(out.error).toBeUndefined();
    expect(env.status("nightly").phase).toBe("Pending");
    expect(env.condition("nightly", "Ready")?.reason).toBe("PolicyDisabled");
    expect(env.condition("nightly", "Stalled")).toBeUndefined();
  });
});

describe("following to a final phase", () => {
  test.each([
    ["Succeeded", "True", undefined, "Normal"],
    ["Failed", "False", "True", "Warning"],
    ["Stopped", "False", "True", "Normal"],
    ["Skipped", "False", "True", "Warning"],
  ] as const)(
    "ended %s: Ready=%s, Stalled=%s, details read once, finalizer removed",
    async (phase, ready, stalled, eventType) => {
      const env = setup();
      env.apply("nightly");
      await env.reconcile("nightly");
      (env.one.executions.get(1) as Execution).status = phase;
      const out = await env.reconcile("nightly");
      expect(out.calls.filter((c) => c.startsWith("details"))).toEqual(["details 1"]);
      expect(env.status("nightly")).toMatchObject({ phase, tail: ["job 1 log"] });
      expect(env.condition("nightly", "Ready")).toMatchObject({ status: ready, reason: phase });
      expect(env.condition("nightly", "Stalled")?.status).toBe(stalled);
      expect(env.condition("nightly", "Reconciling")).toBeUndefined();
      expect(env.get("nightly")?.metadata.finalizers).toEqual([]);
      expect(out.events).toEqual([`${eventType} ${phase}`]);
      expect(out.result).toEqual({});

      // A final phase never changes, and costs no call to the system.
      (env.one.executions.get(1) as Execution).status = "Running";
      const again = await env.reconcile("nightly");
      expect(again.calls).toEqual([]);
      expect(env.status("nightly").phase).toBe(phase);
    },
  );

  test("an execution the system no longer has ends the run Failed, reason ExecutionLost", async () => {
    const env = setup();
    env.apply("nightly");
    await env.reconcile("nightly");
    env.one.executions.delete(1);
    const out = await env.reconcile("nightly");
    expect(env.status("nightly").phase).toBe("Failed");
    expect(env.condition("nightly", "Stalled")).toMatchObject({ status: "True", reason: "ExecutionLost" });
    expect(out.events).toEqual(["Warning ExecutionLost"]);
  });

  test("looks again after a quarter of the running time, from 1 s up to 5 s", async () => {
    const env = setup();
    env.apply("nightly");
    expect((await env.reconcile("nightly")).result?.requeueAfterMs).toBe(1_000);
    env.clock.advance(12_000);
    expect((await env.reconcile("nightly")).result?.requeueAfterMs).toBe(3_000);
    env.clock.advance(100_000);
    expect((await env.reconcile("nightly")).result?.requeueAfterMs).toBe(5_000);
  });

  test("a connection that now reaches another system: the recorded execution is not looked for there", async () => {
    const env = setup();
    env.apply("nightly");
    await env.reconcile("nightly");
    env.reach(TWO);
    const out = await env.reconcile("nightly");
    expect(out.error).toBeInstanceOf(TerminalError);
    expect(out.calls.filter((c) => !c.startsWith("kube"))).toEqual([]);
    expect(env.condition("nightly", "Stalled")).toMatchObject({ status: "True", reason: "HarborChanged" });
    expect(env.two.started).toBe(0);
  });

  test("paused: nothing is started", async () => {
    const env = setup();
    env.apply("nightly", {}, { annotations: { [PAUSED_ANNOTATION]: "true" } });
    const out = await env.reconcile("nightly");
    expect(starts(out)).toBe(0);
    expect(env.condition("nightly", "Ready")?.reason).toBe("Paused");
  });
});

describe("deletion and TTL", () => {
  test("deleting a running run stops its execution (deletionPolicy Delete), then lets it go", async () => {
    const env = setup();
    env.apply("nightly");
    await env.reconcile("nightly");
    env.delete("nightly");
    const out = await env.reconcile("nightly");
    expect(out.calls).toContain("stop 1");
    expect(out.events).toEqual(["Normal StopRequested"]);
    expect(env.get("nightly")).toBeUndefined();
  });

  test("deletionPolicy Orphan lets the execution run on", async () => {
    const env = setup();
    env.apply("nightly", { deletionPolicy: "Orphan" });
    await env.reconcile("nightly");
    env.delete("nightly");
    const out = await env.reconcile("nightly");
    expect(out.calls.filter((c) => c.startsWith("stop"))).toEqual([]);
    expect(out.events).toEqual(["Normal Orphaned"]);
    expect(env.one.executions.get(1)?.status).toBe("Running");
    expect(env.get("nightly")).toBeUndefined();
  });

  test("deleted after a crash between start and record: the execution it may have started is stopped", async () => {
    const env = setup();
    env.apply("nightly");
    env.crashAfterStart(true);
    await env.reconcile("nightly");
    env.crashAfterStart(false);
    env.restart();
    env.delete("nightly");
    const out = await env.reconcile("nightly");
    expect(out.calls).toContain("stop 1");
    expect(env.get("nightly")).toBeUndefined();
  });

  test("a TTL deletes the run once that long has passed since it ended, with its uid", async () => {
    const env = setup();
    env.apply("nightly", { ttlSecondsAfterFinished: 60 });
    await env.reconcile("nightly");
    (env.one.executions.get(1) as Execution).status = "Succeeded";
    const ended = await env.reconcile("nightly");
    expect(ended.result).toEqual({ requeueAfterMs: 60_000 });
    env.clock.advance(60_000);
    const out = await env.reconcile("nightly");
    expect(out.calls).toEqual(["kube delete nightly uid=uid-1"]);
    expect(out.events).toEqual(["Normal Expired"]);
  });

  test("without a TTL a finished run is never deleted; a TTL set later applies (and is a new generation)", async () => {
    const env = setup();
    env.apply("nightly");
    await env.reconcile("nightly");
    (env.one.executions.get(1) as Execution).status = "Failed";
    await env.reconcile("nightly");
    env.clock.advance(3_600_000);
    expect((await env.reconcile("nightly")).calls).toEqual([]);
    env.apply("nightly", { ttlSecondsAfterFinished: 0 });
    const out = await env.reconcile("nightly");
    expect(out.calls[0]).toMatch(/^kube status .*observedGeneration/);
    expect(out.calls.at(-1)).toBe("kube delete nightly uid=uid-1");
  });
});
