// The job service monitor: worker pools and their workers, one queue per job type, and jobs that
// wait in their queue, run on a free worker for a planned time and then finish. Pausing a queue
// keeps its jobs waiting; stopping it drops them; stopping a running job frees its worker.
//
// Harbor's handlers never answer 404 here, although the swagger lists it: an unknown pool lists no
// workers, and stopping an unknown job (or the pending jobs of an unknown type) is a silent no-op.
import { z } from "zod";
import { auditWrite } from "../audit.ts";
import { requireSystem } from "../auth.ts";
import { badRequest } from "../errors.ts";
import { omitEmpty } from "../json.ts";
import { ok, type RouteSpec } from "../router.ts";
import { harborTime, type World } from "../world.ts";
import { defineArea } from "./area.ts";

/** The queue list of a running 2.12.4, exactly: these 13 job types (no SBOM, no SCAN_ALL). */
export const JOB_TYPES = [
  "AUDIT_LOGS_GDPR_COMPLIANT",
  "EXECUTION_SWEEP",
  "GARBAGE_COLLECTION",
  "IMAGE_SCAN",
  "P2P_PREHEAT",
  "PURGE_AUDIT_LOG",
  "REPLICATION",
  "RETENTION",
  "SCAN_DATA_EXPORT",
  "SCHEDULER",
  "SLACK",
  "SYSTEM_ARTIFACT_CLEANUP",
  "WEBHOOK",
] as const;
/** Job names Harbor knows but the queue list leaves out. */
export const HIDDEN_JOB_TYPES = [
  "DEMO",
  "IMAGE_GC",
  "IMAGE_REPLICATE",
  "IMAGE_SCAN_ALL",
  "PURGE_AUDIT",
  "SBOM",
  "SCAN_ALL",
];

const ALL = "all";
const DEFAULT_JOB_MS = 60_000;

interface PendingJob {
  id: string;
  enqueuedAt: number;
  durationMs: number;
  /** What the job does when a worker takes it (a scheduled task's callback). */
  onStart?: () => void;
}

interface QueueRecord {
  jobType: string;
  pending: PendingJob[];
}

interface RunningJob {
  id: string;
  name: string;
  startedAt: number;
  /** Undefined for jobs whose owner (e.g. a GC run) decides when they end. */
  finishAt?: number;
  onStop?: () => void;
}

interface WorkerRecord {
  id: string;
  poolId: string;
  job?: RunningJob;
}

interface PoolRecord {
  id: string;
  pid: number;
  startAt: number;
  heartbeatAt: number;
  concurrency: number;
  workers: WorkerRecord[];
}

export class JobServiceStore {
  readonly #world: World;
  readonly #pools: PoolRecord[] = [];
  readonly #queues = new Map<string, QueueRecord>();
  /** Paused flags by job type; Harbor keeps them for any type name it is given. */
  readonly #paused = new Set<string>();

  constructor(world: World) {
    this.#world = world;
    for (const t of [...JOB_TYPES, ...HIDDEN_JOB_TYPES]) this.#queues.set(t, { jobType: t, pending: [] });
    this.addPool(10);
    world.clock.onTick(() => this.#tick());
  }

  get world(): World {
    return this.#world;
  }

  addPool(concurrency: number): PoolRecord {
    const now = this.#world.now();
    const id = this.#hexId();
    const pool: PoolRecord = {
      id,
      pid: this.#pools.length + 1,
      startAt: now,
      heartbeatAt: now,
      concurrency,
      workers: Array.from({ length: concurrency }, () => ({ id: this.#hexId(), poolId: id })),
    };
    this.#pools.push(pool);
    return pool;
  }

  pools(): PoolRecord[] {
    return [...this.#pools];
  }

  /** Workers of one pool, or of every pool for "all" (any case); an unknown pool has none. */
  workers(poolId: string): WorkerRecord[] {
    const all = this.#pools.flatMap((p) => p.workers);
    return poolId.toLowerCase() === ALL ? all : all.filter((w) => w.poolId === poolId);
  }

  /** The visible queues, by job type. */
  queues(): Array<{ job_type: string; count: number; latency: number; paused: boolean }> {
    const now = this.#world.now();
    return [...this.#queues.values()]
      .filter((q) => !HIDDEN_JOB_TYPES.includes(q.jobType))
      .sort((a, b) => a.jobType.localeCompare(b.jobType))
      .map((q) => ({
        job_type: q.jobType,
        count: q.pending.length,
        latency: q.pending[0] ? Math.floor((now - q.pending[0].enqueuedAt) / 1000) : 0,
        paused: this.#paused.has(q.jobType),
      }));
  }

  /** Adds jobs to a queue; they start when a worker is free and their queue is not paused. */
  enqueue(jobType: string, count: number, durationMs: number): string[] {
    const queue = this.#queue(jobType.toUpperCase());
    const ids = Array.from({ length: count }, () => this.#hexId());
    for (const id of ids) queue.pending.push({ id, enqueuedAt: this.#world.now(), durationMs });
    this.#dispatch();
    return ids;
  }

  pause(jobType: string): void {
    for (const t of this.#typesFor(jobType)) this.#paused.add(t);
  }

  resume(jobType: string): void {
    for (const t of this.#typesFor(jobType)) this.#paused.delete(t);
    this.#dispatch();
  }

  /** Drops the waiting jobs of a type (or of every type). */
  stopPending(jobType: string): void {
    for (const t of this.#typesFor(jobType)) {
      const q = this.#queues.get(t);
      if (q) q.pending = [];
    }
  }

  /**
   * A schedule's time has come (GC, audit-log purge): Harbor's scheduler runs it as a SCHEDULER
   * job. The callback runs at once, unless the SCHEDULER queue is paused: then the job waits there
   * (the queue's count and latency grow) until the queue is resumed, and a stop of the queue's
   * pending jobs drops it. So pausing SCHEDULER pauses every scheduled task.
   */
  runScheduled(fire: () => void): void {
    if (!this.#paused.has("SCHEDULER")) {
      fire();
      return;
    }
    this.#queue("SCHEDULER").pending.push({
      id: this.#hexId(),
      enqueuedAt: this.#world.now(),
      durationMs: 0,
      onStart: fire,
    });
  }

  /** Stops a running job (or every running one for "all"); unknown ids are ignored. */
  stopRunning(jobId: string): void {
    for (const w of this.workers(ALL)) {
      if (w.job && (jobId.toLowerCase() === ALL || w.job.id === jobId)) {
        const job = w.job;
        w.job = undefined;
        job.onStop?.();
      }
    }
    this.#dispatch();
  }

  /**
   * Occupies a free worker with a job whose end the caller decides (finishJob); `onStop` runs if
   * the job is stopped through the job service. Undefined when every worker is busy.
   */
  startJob(name: string, onStop: () => void): string | undefined {
    const worker = this.workers(ALL).find((w) => !w.job);
    if (!worker) return undefined;
    const id = this.#hexId();
    worker.job = { id, name, startedAt: this.#world.now(), onStop };
    return id;
  }

  finishJob(jobId: string): void {
    for (const w of this.workers(ALL)) if (w.job?.id === jobId) w.job = undefined;
    this.#dispatch();
  }

  runningJobs(): Array<{ id: string; name: string; workerId: string; poolId: string }> {
    return this.workers(ALL).flatMap((w) =>
      w.job ? [{ id: w.job.id, name: w.job.name, workerId: w.id, poolId: w.poolId }] : [],
    );
  }

  /** Job types an action applies to: every registered type for "all", else the one given. */
  #typesFor(jobType: string): string[] {
    return jobType.toLowerCase() === ALL ? [...this.#queues.keys()] : [jobType];
  }

  #queue(jobType: string): QueueRecord {
    let q = this.#queues.get(jobType);
    if (!q) {
      q = { jobType, pending: [] };
      this.#queues.set(jobType, q);
    }
    return q;
  }

  #tick(): void {
    const now = this.#world.now();
    for (const p of this.#pools) p.heartbeatAt = now;
    for (const w of this.workers(ALL)) {
      if (w.job?.finishAt !== undefined && now >= w.job.finishAt) w.job = undefined;
    }
    this.#dispatch();
  }

  /** Moves waiting jobs of unpaused queues onto free workers, oldest queue entry first. */
  #dispatch(): void {
    const now = this.#world.now();
    const free = this.workers(ALL).filter((w) => !w.job);
    const started: Array<() => void> = [];
    for (const q of [...this.#queues.values()].sort((a, b) => a.jobType.localeCompare(b.jobType))) {
      if (this.#paused.has(q.jobType)) continue;
      while (free.length > 0 && q.pending.length > 0) {
        const job = q.pending.shift() as PendingJob;
        const worker = free.shift() as WorkerRecord;
        worker.job = { id: job.id, name: q.jobType, startedAt: now, finishAt: now + job.durationMs };
        if (job.onStart) started.push(job.onStart);
      }
    }
    // Once every worker is handed out: a callback may take a worker of its own (a GC run does).
    for (const fire of started) fire();
  }

  /** gocraft/work style ids: 24 hex digits, from the world's seeded random source. */
  #hexId(): string {
    let s = "";
    for (let i = 0; i < 24; i++) s += Math.floor(this.#world.random() * 16).toString(16);
    return s;
  }
}

/** The job service reports Unix seconds; Harbor prints them as date-times. */
const seconds = (ms: number) => harborTime(Math.floor(ms / 1000) * 1000);

const ActionRequest = z
  .object({
    // go-swagger skips the enum check for an empty value, which then reaches the handler.
    action: z.preprocess((v) => (v === "" ? undefined : v), z.enum(["stop", "pause", "resume"]).nullish()),
  })
  .meta({ goType: "ActionRequest" });

const routes: RouteSpec[] = [
  {
    op: "listJobQueues",
    method: "GET",
    path: "/jobservice/queues",
    handle(ctx) {
      requireSystem(ctx, "jobservice-monitor", "list");
      return ok(ctx.world.jobservice.queues().map((q) => omitEmpty(q, ["paused"])));
    },
  },
  {
    op: "actionPendingJobs",
    method: "PUT",
    path: "/jobservice/queues/{job_type}",
    body: { name: "action_request", schema: ActionRequest },
    handle(ctx) {
      requireSystem(ctx, "jobservice-monitor", "stop");
      const jobType = String(ctx.params.job_type).toUpperCase();
      const action = ((ctx.body as z.output<typeof ActionRequest>).action ?? "").toLowerCase();
      const store = ctx.world.jobservice;
      if (action === "stop") store.stopPending(jobType);
      else if (action === "pause") store.pause(jobType);
      else if (action === "resume") store.resume(jobType);
      else throw badRequest("bad request: the action is not supported");
      auditWrite(ctx, {
        project_id: 0,
        resource: jobType,
        resource_type: "job_queue",
        operation: action === "stop" ? "delete" : "update",
      });
      return ok();
    },
  },
  {
    op: "getWorkerPools",
    method: "GET",
    path: "/jobservice/pools",
    handle(ctx) {
      requireSystem(ctx, "jobservice-monitor", "list");
      return ok(
        ctx.world.jobservice.pools().map((p) =>
          omitEmpty({
            pid: p.pid,
            worker_pool_id: p.id,
            start_at: seconds(p.startAt),
            heartbeat_at: seconds(p.heartbeatAt),
            concurrency: p.concurrency,
          }),
        ),
      );
    },
  },
  {
    op: "getWorkers",
    method: "GET",
    path: "/jobservice/pools/{pool_id}/workers",
    handle(ctx) {
      requireSystem(ctx, "jobservice-monitor", "list");
      return ok(
        ctx.world.jobservice.workers(String(ctx.params.pool_id)).map((w) =>
          // Idle workers carry only their id and pool.
          w.job
            ? {
                id: w.id,
                pool_id: w.poolId,
                job_name: w.job.name,
                job_id: w.job.id,
                start_at: seconds(w.job.startedAt),
              }
            : { id: w.id, pool_id: w.poolId },
        ),
      );
    },
  },
  {
    op: "stopRunningJob",
    method: "PUT",
    path: "/jobservice/jobs/{job_id}",
    handle(ctx) {
      requireSystem(ctx, "jobservice-monitor", "stop");
      const jobId = String(ctx.params.job_id);
      ctx.world.jobservice.stopRunning(jobId);
      auditWrite(ctx, { project_id: 0, resource: jobId, resource_type: "job", operation: "update" });
      return ok();
    },
  },
];

export const area = defineArea({
  routes,
  control: (world: World) => ({
    /** Adds a worker pool with `concurrency` idle workers; returns its worker_pool_id. */
    addPool(concurrency = 10): string {
      return world.jobservice.addPool(concurrency).id;
    },
    /**
     * Queues `count` jobs of a type (upper-cased). Each starts on a free worker unless its queue is
     * paused, runs for `durationMs` of world time (default 60 s), then frees its worker.
     * Returns the job ids.
     */
    enqueue(jobType: string, options: { count?: number; durationMs?: number } = {}): string[] {
      return world.jobservice.enqueue(jobType, options.count ?? 1, options.durationMs ?? DEFAULT_JOB_MS);
    },
    /** The jobs on workers right now, with the worker and pool they run on. */
    runningJobs: () => world.jobservice.runningJobs(),
  }),
});
