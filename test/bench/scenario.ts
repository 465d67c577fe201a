// One benchmark run, phase by phase:
// 1. convergence — the driver creates the whole workload through the Kubernetes API and waits until
//    every object is Ready; the operator runs with its default drift interval, as users run it;
// 2. update wave — a tenth of each kind is edited; until each shows Ready for its new generation;
// 3. restart — a new operator process; until it has looked at every object once and its queues
//    are empty (what a rollout of the operator costs);
// 4. steady state — an operator with a short drift interval, for several intervals in which nothing
//    changes: Harbor must see no writes and only the drift sweeps' reads;
// 5. delete wave — back on the default interval, everything is deleted; until every object is gone
//    (Harbor cleaned up first).
// Each phase records Harbor's requests (emulator counters), the operator's Kubernetes requests
// (audit log), and CPU seconds of every process.
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { KubeClient } from "../../src/kube/client.ts";
import { type AuditEvent, isWrite } from "../env/controlplane/audit.ts";
import { freePorts } from "../env/controlplane/net.ts";
import { AuditReader, kubeCost } from "./audit.ts";
import { Driver } from "./driver.ts";
import { type Environment, type ExistingCluster, startEnvironment } from "./environment.ts";
import { delta, harborCost, isPeriodic, leftInHarbor, type Snapshot, snapshot, writesIn } from "./harbor.ts";
import { machine, revision } from "./machine.ts";
import {
  buildOperator,
  heapOf,
  type OperatorProcess,
  resynced,
  STATUS_REFRESH_RATIO,
  startFloorProcess,
  startOperatorProcess,
} from "./processes.ts";
import { cpuDelta, readProc, Sampler } from "./sampler.ts";
import { latencies, latency, latest, ratio, round } from "./stats.ts";
import { sampleSweeps, steadyKind } from "./steady.ts";
import { checkTargets } from "./targets.ts";
import { Tracker } from "./tracker.ts";
import {
  type BenchConfig,
  type BenchResult,
  type CpuAndMemory,
  type FloorPhase,
  KIND_NAMES,
  type SteadyKind,
  type WavePhase,
} from "./types.ts";
import {
  type BenchObject,
  buildWorkload,
  keyOf,
  mixFor,
  pickForUpdate,
  prepareHarbor,
  TYPES,
} from "./workload.ts";

/** The kinds whose drift sweep lists per project. */
const PER_PROJECT = new Set<string>([
  "HarborRobot",
  "HarborWebhookPolicy",
  "HarborLabel",
  "HarborProjectMember",
  "HarborRetentionPolicy",
  "HarborImmutableTagRule",
  "HarborPreheatPolicy",
]);

export interface RunOptions extends BenchConfig {
  /** Longest wait for one phase to converge. */
  timeoutMs: number;
  /** Logs, kubeconfig and profiles of this run. */
  workDir: string;
  /** Write V8 CPU profiles of the operator into workDir. */
  profile?: boolean;
  /** Shortest restart phase (default 20 s: long enough to see the operator's 15 s retries). */
  restartMinMs?: number;
  cluster?: ExistingCluster;
  log: (line: string) => void;
}

const CONNECTION = "harbor";
/** A restart's follow-ups: resources that waited for the connection retry after 15 s. */
const RESTART_MIN_MS = 20_000;
const MiB = 1024 * 1024;

/** Cleanups of the runs under way, for an interrupted benchmark (Ctrl-C). */
const running = new Set<() => Promise<void>>();

/** Stops every process the runs under way started (operator, emulator, control plane). */
export async function stopRuns(): Promise<void> {
  await Promise.all([...running].map((stop) => stop().catch(() => undefined)));
}

interface Mark {
  harbor: Snapshot;
  cpu: Record<string, number>;
  at: number;
}

export async function runBenchmark(o: RunOptions): Promise<BenchResult> {
  const began = performance.now();
  const startedAt = new Date().toISOString();
  const machineNow = machine();
  const env = await startEnvironment({
    latencyMs: o.latencyMs,
    workDir: o.workDir,
    log: o.log,
    ...(o.cluster ? { cluster: o.cluster } : {}),
  });
  const sampler = new Sampler();
  let operator: OperatorProcess | undefined;
  let tracker: Tracker | undefined;
  const cleanup = async () => {
    sampler.stop();
    await tracker?.stop().catch(() => undefined);
    await operator?.stop().catch(() => undefined);
    await env.stop();
  };
  running.add(cleanup);
  try {
    for (const c of env.components()) sampler.track(c.name, c.pid);
    sampler.track("emulator", env.emulator.pid);
    sampler.start();

    const objects = buildWorkload(o.projects, CONNECTION);
    const workload = mixFor(o.projects);
    const kindByName = new Map<string, string>(objects.map((b) => [b.name, b.kind]));
    kindByName.set(CONNECTION, "HarborConnection");
    const kindOf = (name: string) => kindByName.get(name);
    const keys = objects.map((b) => keyOf(b.kind, b.name));
    const driver = new Driver(env.kube, env.namespace, o.createConcurrency);
    const control = env.emulator.control;

    await env.connect(CONNECTION, o.connection);
    await prepareHarbor(control, objects);
    // 0. the limit: the same creates with no operator running, then deleted again (no finalizers
    // yet, so they are gone at once) before the operator starts.
    o.log(`the limit: creating ${workload.total} objects with no operator running`);
    const baselineStart = performance.now();
    await driver.create(objects);
    const baselineCreateSeconds = round((performance.now() - baselineStart) / 1000);
    o.log(`created in ${baselineCreateSeconds} s with no operator; deleting them`);
    await driver.delete([...objects].reverse());
    await waitEmpty(env.kube, env.namespace, o.timeoutMs);
    // The tracker watches from here on, as `kubectl get -w` would, through the floor and the
    // operator's phases alike.
    tracker = new Tracker(env.kube, env.namespace);
    await tracker.start(60_000);
    const track = tracker;
    const floor = await measureFloor({
      o,
      env,
      driver,
      sampler,
      track,
      objects,
      keys,
      workload: workload.total,
    });
    // Operator processes, one after another: 1 converges, 2 is the measured restart, 3 runs the
    // steady state with the short interval, 4 deletes (back on the defaults).
    const ports = await freePorts(["m1", "p1", "m2", "p2", "m3", "p3", "m4", "p4"]);
    const entry = buildOperator(join(o.workDir, "operator"));
    // The code measured is the code built now (the tree may change while a long run goes on).
    const measured = revision();
    const startOperator = (n: 1 | 2 | 3 | 4, driftIntervalMs: number) => {
      const p = startOperatorProcess({
        entry,
        kubeconfig: env.operatorKubeconfig,
        namespace: env.namespace,
        workers: o.workers,
        driftIntervalMs,
        ...(driftIntervalMs !== o.convergeDriftIntervalMs
          ? { statusRefreshIntervalMs: driftIntervalMs * STATUS_REFRESH_RATIO }
          : {}),
        metricsPort: ports[`m${n}`],
        probePort: ports[`p${n}`],
        logPath: join(o.workDir, `operator-${n}.log`),
        nodeOptions: o.operatorNodeOptions,
        ...(o.profile ? { cpuProfileDir: o.workDir } : {}),
      });
      sampler.track("operator", p.pid);
      return p;
    };
    if (o.finalizerAtAdmission) {
      o.log("installing the finalizer's admission policy");
      await env.installFinalizerPolicy();
    }
    o.log("environment ready; starting the operator");
    operator = startOperator(1, o.convergeDriftIntervalMs);
    let stopping = false;
    /** Fails the wait as soon as the operator dies (e.g. out of memory) instead of at its deadline. */
    const guard = <T>(wait: Promise<T>): Promise<T> => {
      const current = operator;
      if (!current) return wait;
      const died = current.exited.then((code) => {
        if (stopping || current !== operator) return new Promise<T>(() => {});
        throw new Error(`the operator exited (code ${code}) during the run; see ${o.workDir}/operator-*.log`);
      });
      return Promise.race([wait, died]);
    };
    /** Replaces the operator process and waits until the new one has looked at everything. */
    const restartAs = async (n: 2 | 3 | 4, driftIntervalMs: number, minMs: number) => {
      sampler.sample();
      stopping = true;
      await operator?.stop();
      stopping = false;
      const p = startOperator(n, driftIntervalMs);
      operator = p;
      await guard(p.waitReady(120_000));
      const startSeconds = (performance.now() - p.startedAt) / 1000;
      const resync = await guard(resynced(p, workload.total, minMs, o.timeoutMs));
      return { startSeconds, resyncSeconds: (resync.lastReconcileAt - p.startedAt) / 1000, resync };
    };
    await guard(operator.waitReady(60_000));
    o.log("operator ready; waiting for its HarborConnection");
    await env.kubectl.wait("harborconnection", CONNECTION, "condition=Ready", 60_000);
    // The fixed cost: the operator started, its caches synced, nothing to do yet.
    await sleep(2000);
    const fixedRssMiB = round((readProc(operator.pid ?? -1)?.rssBytes ?? 0) / MiB, 1);
    o.log(`operator idle at ${fixedRssMiB} MiB RSS`);

    // Each phase starts with a mark and ends with its costs: what Harbor and the audit log saw
    // in between, and the CPU every process used.
    const audit = new AuditReader(env.auditLogPath, env.operatorUser);
    await audit.skip();
    let pendingAudit: AuditEvent[] = [];
    const collectAudit = async () => {
      const events = await audit.read();
      pendingAudit.push(...events);
      return events;
    };
    const mark = async (): Promise<Mark> => {
      await collectAudit();
      pendingAudit = [];
      return { harbor: await snapshot(control), cpu: sampler.cpu(), at: performance.now() };
    };
    const costs = async (from: Mark, n: number) => {
      const rows = delta(from.harbor, await snapshot(control));
      await collectAudit();
      const events = pendingAudit;
      pendingAudit = [];
      const resources: CpuAndMemory = {
        cpuSeconds: cpuDelta(from.cpu, sampler.cpu()),
        operatorPeakRssMiB: round(sampler.peakRss("operator") / MiB, 1),
        operatorHeapMiB: await heapOf(operator),
      };
      return { rows, harbor: harborCost(rows, n), kube: kubeCost(events, n, kindOf), resources };
    };
    /**
     * Waits until the operator has stopped writing to Kubernetes and calling Harbor (Events are
     * written one after another and may trail the last Ready), so that the phase's costs are
     * whole. Its periodic reads (connection checks, drift sweeps) do not count as activity.
     */
    const settle = async (maxMs: number): Promise<number> => {
      const start = performance.now();
      const activity = async () => {
        let n = 0;
        for (const r of (await snapshot(control)).values()) if (!isPeriodic(r.op)) n += r.count;
        return n;
      };
      let last = await activity();
      let quiet = 0;
      while (performance.now() - start < maxMs && quiet < 2) {
        await sleep(1000);
        const writes = (await collectAudit()).filter(isWrite).length;
        const now = await activity();
        quiet = writes === 0 && now === last ? quiet + 1 : 0;
        last = now;
      }
      return round((performance.now() - start) / 1000 - (quiet >= 2 ? 2 : 0));
    };

    /** A wave's figures: until when its last object was done, latencies, the phase's costs. */
    const wave = async (
      from: Mark,
      waveKeys: readonly string[],
      startedAt: Map<string, number>,
      doneAt: Map<string, number>,
    ): Promise<WavePhase> => {
      const seconds = (latest(from.at, doneAt.values()) - from.at) / 1000;
      await settle(30_000);
      const c = await costs(from, waveKeys.length);
      return {
        objects: waveKeys.length,
        seconds: round(seconds),
        done: doneAt.size,
        latencySeconds: latency(latencies(waveKeys, startedAt, doneAt)),
        harbor: c.harbor,
        kube: c.kube,
        resources: c.resources,
        notDone: track.reasons(waveKeys.filter((k) => !doneAt.has(k))),
      };
    };

    // 1. convergence
    o.log(`creating ${workload.total} objects`);
    const m1 = await mark();
    const readyWait = track.waitReady(keys, o.timeoutMs);
    const createdAt = await driver.create(objects);
    const createSeconds = (performance.now() - m1.at) / 1000;
    const readyAt = await guard(readyWait);
    const lastReady = latest(m1.at, readyAt.values());
    o.log(`${readyAt.size}/${keys.length} Ready after ${round((lastReady - m1.at) / 1000)} s`);
    const settleSeconds = await settle(60_000);
    const c1 = await costs(m1, workload.total);
    const byKind: BenchResult["convergence"]["byKind"] = {};
    for (const kind of KIND_NAMES) {
      const ks = keys.filter((k) => k.startsWith(`${kind}/`));
      const times = ks.map((k) => readyAt.get(k)).filter((t): t is number => t !== undefined);
      byKind[kind] = {
        objects: ks.length,
        readySeconds: round((latest(m1.at, times) - m1.at) / 1000),
        latencySeconds: latency(latencies(ks, createdAt, readyAt)),
      };
    }
    const convergence: BenchResult["convergence"] = {
      baselineCreateSeconds,
      createSeconds: round(createSeconds),
      readySeconds: round((lastReady - m1.at) / 1000),
      ready: readyAt.size,
      latencySeconds: latency(latencies(keys, createdAt, readyAt)),
      byKind,
      settleSeconds,
      harbor: c1.harbor,
      kube: c1.kube,
      resources: c1.resources,
      notReady: track.reasons(keys.filter((k) => !readyAt.has(k))),
    };

    // 2. update wave
    const edited = pickForUpdate(objects, o.updateFraction);
    const editedKeys = edited.map((b) => keyOf(b.kind, b.name));
    o.log(`editing ${edited.length} objects`);
    const m2 = await mark();
    // The generation an edit produces is known from the patch's answer; until then, one more.
    const generation = new Map(editedKeys.map((k) => [k, (track.get(k)?.metadata.generation ?? 1) + 1]));
    const updateWait = track.waitReady(editedKeys, o.timeoutMs, generation);
    const editedAt = await driver.edit(edited, generation);
    const update = await wave(m2, editedKeys, editedAt, await guard(updateWait));

    // 3. restart, with the same settings
    o.log("restarting the operator");
    const m3 = await mark();
    const r3 = await restartAs(2, o.convergeDriftIntervalMs, o.restartMinMs ?? RESTART_MIN_MS);
    const c3 = await costs(m3, workload.total);
    const restart: BenchResult["restart"] = {
      startSeconds: round(r3.startSeconds),
      resyncSeconds: round(r3.resyncSeconds),
      reconciles: r3.resync.reconciles,
      harbor: c3.harbor,
      kube: c3.kube,
      resources: c3.resources,
    };
    o.log(`restarted: every object checked after ${restart.resyncSeconds} s`);

    // 4. steady state, on an operator with the short interval (its restart is not measured)
    o.log(`restarting the operator with a ${o.steadyDriftIntervalMs / 1000} s drift interval`);
    await restartAs(3, o.steadyDriftIntervalMs, o.restartMinMs ?? RESTART_MIN_MS);
    o.log(`steady state for ${o.steadyIntervals} × ${o.steadyDriftIntervalMs / 1000} s or more`);
    const m4 = await mark();
    const swept = KIND_NAMES.filter((k) => workload.perKind[k] > 0);
    const series = await sampleSweeps(
      control,
      swept,
      o.steadyDriftIntervalMs * o.steadyIntervals,
      o.timeoutMs,
    );
    const windowSeconds = (performance.now() - m4.at) / 1000;
    const c4 = await costs(m4, workload.total);
    const intervals = windowSeconds / (o.steadyDriftIntervalMs / 1000);
    const steadyByKind: Record<string, SteadyKind> = {};
    for (const kind of KIND_NAMES) {
      // Robots, webhook policies, labels, members, retention policies, immutable tag rules and
      // preheat policies are read per project; each lives in one of the workload's (the global labels, listed once, count as one more place).
      const perProject = PER_PROJECT.has(kind);
      const projects = perProject
        ? new Set(objects.filter((b) => b.kind === kind).map((b) => b.project)).size
        : 0;
      const requests = c4.harbor.byKind[kind] ?? 0;
      steadyByKind[kind] = steadyKind(
        kind,
        c4.rows,
        requests,
        workload.perKind[kind],
        projects,
        series,
        intervals,
      );
    }
    const steady: BenchResult["steady"] = {
      intervalSeconds: o.steadyDriftIntervalMs / 1000,
      intervals: round(intervals, 2),
      windowSeconds: round(windowSeconds),
      harborWrites: writesIn(c4.rows),
      harbor: c4.harbor,
      byKind: steadyByKind,
      kube: c4.kube,
      resources: c4.resources,
    };

    // 5. delete wave, back on the default interval (so that no sweep runs meanwhile): dependents
    // first, as `kubectl delete -f` of the same manifests in reverse
    o.log("restarting the operator with its default drift interval");
    await restartAs(4, o.convergeDriftIntervalMs, 0);
    o.log(`deleting ${workload.total} objects`);
    const m5 = await mark();
    const goneWait = track.waitGone(keys, o.timeoutMs);
    const deletedAt = await driver.delete([...objects].reverse());
    const deleted = await wave(m5, keys, deletedAt, await guard(goneWait));
    o.log(`${deleted.done}/${keys.length} gone after ${deleted.seconds} s`);
    const del: BenchResult["delete"] = { ...deleted, leftInHarbor: await leftInHarbor(env.emulator) };

    o.log("done; stopping");
    const cpu = sampler.cpu();
    const operatorCpu = cpu.operator ?? 0;
    const result: BenchResult = {
      version: 1,
      startedAt,
      revision: measured,
      machine: machineNow,
      config: pickConfig(o),
      workload,
      floor,
      convergence,
      update,
      restart,
      steady,
      delete: del,
      operator: {
        fixedRssMiB,
        peakRssMiB: round(sampler.peakRss("operator") / MiB, 1),
        cpuSeconds: round(operatorCpu),
        cpuSecondsPerObject: ratio(operatorCpu, workload.total, 4),
      },
      driverCpuSeconds: round(cpu.driver ?? 0),
      totalSeconds: round((performance.now() - began) / 1000),
      targets: [],
    };
    result.targets = checkTargets(result);
    return result;
  } finally {
    running.delete(cleanup);
    await cleanup();
  }
}

/**
 * The floor: the reference controller started (a process of its own, under the operator's
 * identity), the workload created until every object shows Ready, then deleted until every object
 * is gone, and the controller stopped. The namespace is empty again afterwards.
 */
async function measureFloor(a: {
  o: RunOptions;
  env: Environment;
  driver: Driver;
  sampler: Sampler;
  track: Tracker;
  objects: readonly BenchObject[];
  keys: readonly string[];
  workload: number;
}): Promise<FloorPhase> {
  const { o, env, driver, sampler, track, objects, keys } = a;
  const reference = startFloorProcess({
    kubeconfig: env.operatorKubeconfig,
    namespace: env.namespace,
    workers: o.workers,
    logPath: join(o.workDir, "floor.log"),
  });
  const stop = async () => {
    await reference.stop().catch(() => undefined);
  };
  running.add(stop);
  try {
    sampler.track("floor", reference.pid);
    await reference.ready;
    o.log(`the floor: creating ${a.workload} objects with the reference controller running`);
    const cpu = sampler.cpu();
    const start = performance.now();
    const readyWait = track.waitReady(keys, o.timeoutMs);
    const createdAt = await driver.create(objects);
    const createSeconds = (performance.now() - start) / 1000;
    const readyAt = await readyWait;
    const readySeconds = (latest(start, readyAt.values()) - start) / 1000;
    const cpuSeconds = cpuDelta(cpu, sampler.cpu());
    o.log(`the floor: ${readyAt.size}/${keys.length} Ready after ${round(readySeconds)} s; deleting them`);
    const deleteStart = performance.now();
    const goneWait = track.waitGone(keys, o.timeoutMs);
    await driver.delete([...objects].reverse());
    const goneAt = await goneWait;
    const deleteSeconds = (latest(deleteStart, goneAt.values()) - deleteStart) / 1000;
    const statusWrites = await reference.finish();
    await waitEmpty(env.kube, env.namespace, o.timeoutMs);
    return {
      createSeconds: round(createSeconds),
      readySeconds: round(readySeconds),
      ready: readyAt.size,
      latencySeconds: latency(latencies(keys, createdAt, readyAt)),
      deleteSeconds: round(deleteSeconds),
      statusWrites,
      cpuSeconds,
    };
  } finally {
    running.delete(stop);
    await stop();
  }
}

/** Waits until the namespace holds none of the workload's objects. */
async function waitEmpty(kube: KubeClient, namespace: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    let left = 0;
    for (const type of Object.values(TYPES)) left += (await kube.list(type, { namespace })).items.length;
    if (left === 0) return;
    if (performance.now() > deadline) throw new Error(`${left} objects of the no-operator creates left`);
    await sleep(500);
  }
}

function pickConfig(o: RunOptions): BenchConfig {
  return {
    label: o.label,
    operatorNodeOptions: o.operatorNodeOptions,
    projects: o.projects,
    latencyMs: o.latencyMs,
    workers: o.workers,
    convergeDriftIntervalMs: o.convergeDriftIntervalMs,
    steadyDriftIntervalMs: o.steadyDriftIntervalMs,
    steadyIntervals: o.steadyIntervals,
    createConcurrency: o.createConcurrency,
    connection: o.connection,
    updateFraction: o.updateFraction,
    finalizerAtAdmission: o.finalizerAtAdmission,
  };
}
