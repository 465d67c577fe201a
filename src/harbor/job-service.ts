// The job service monitor (/jobservice): queues, worker pools, workers, stopping jobs. Every call
// needs the system permission jobservice-monitor. "all" (any case) stands for every job type,
// every pool, or every running job.
import { z } from "zod";
import { path } from "./request-url.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

/** The word that makes an action apply to every job type, pool or job. */
export const ALL = "all";

export const JobQueue = z.object({
  job_type: z.string().optional(),
  /** Jobs waiting in the queue. */
  count: z.number().int().optional(),
  /** Seconds the oldest waiting job has waited. */
  latency: z.number().int().optional(),
  paused: z.boolean().optional(),
});
export type JobQueue = z.output<typeof JobQueue>;

export const WorkerPool = z.object({
  pid: z.number().int().optional(),
  worker_pool_id: z.string().optional(),
  start_at: z.string().optional(),
  heartbeat_at: z.string().optional(),
  concurrency: z.number().int().optional(),
  host: z.string().optional(),
});
export type WorkerPool = z.output<typeof WorkerPool>;

/** Idle workers carry only id and pool_id. */
export const Worker = z.object({
  id: z.string().optional(),
  pool_id: z.string().optional(),
  job_name: z.string().optional(),
  job_id: z.string().optional(),
  start_at: z.string().nullish(),
  check_in: z.string().optional(),
  checkin_at: z.string().nullish(),
});
export type Worker = z.output<typeof Worker>;

export const QueueAction = z.enum(["stop", "pause", "resume"]);
export type QueueAction = z.infer<typeof QueueAction>;

const ActionRequest = z.object({ action: QueueAction });

export class JobServiceApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** listJobQueues: every visible job type with its waiting jobs, latency and paused flag. */
  listQueues(opts?: CallOptions): Promise<JobQueue[]> {
    return this.#t.json(
      { ...opts, operation: "listJobQueues", method: "GET", path: "/jobservice/queues" },
      JobQueue.array(),
    );
  }

  /**
   * actionPendingJobs: pauses or resumes a job type's queue, or stops (drops) its waiting jobs.
   * `jobType` is upper-cased by Harbor; ALL applies the action to every type.
   */
  actOnQueue(jobType: string, action: QueueAction, opts?: CallOptions): Promise<void> {
    const body = ActionRequest.parse({ action });
    return this.#t.noContent({
      ...opts,
      operation: "actionPendingJobs",
      method: "PUT",
      path: path`/jobservice/queues/${jobType}`,
      body,
    });
  }

  /** getWorkerPools */
  listPools(opts?: CallOptions): Promise<WorkerPool[]> {
    return this.#t.json(
      { ...opts, operation: "getWorkerPools", method: "GET", path: "/jobservice/pools" },
      WorkerPool.array(),
    );
  }

  /** getWorkers: the workers of one pool, or of every pool for ALL. An unknown pool has none. */
  listWorkers(poolId: string, opts?: CallOptions): Promise<Worker[]> {
    return this.#t.json(
      { ...opts, operation: "getWorkers", method: "GET", path: path`/jobservice/pools/${poolId}/workers` },
      Worker.array(),
    );
  }

  /** stopRunningJob: stops a running job, or every running job for ALL. Unknown ids are ignored. */
  stopJob(jobId: string, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "stopRunningJob",
      method: "PUT",
      path: path`/jobservice/jobs/${jobId}`,
    });
  }
}
