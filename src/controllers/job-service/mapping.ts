// HarborJobService's pure mappings: which listed queues must be paused or resumed, and what status
// shows of the job service (pools, workers, every queue).
import type { HarborJobServiceSpec, HarborJobServiceStatus } from "../../api/job-service.ts";
import type { JobQueue, Worker, WorkerPool } from "../../harbor/job-service.ts";
import { safeText } from "../../kube/text.ts";
import type { UnnamedSpecFields } from "../shared/export.ts";

export interface ObservedJobService {
  queues: JobQueue[];
  pools: WorkerPool[];
  workers: Worker[];
}

/** The queue Harbor's scheduler runs every scheduled task through. */
export const SCHEDULER: string = "SCHEDULER";

const pausedIn = (observed: ObservedJobService, jobType: string) =>
  observed.queues.find((q) => q.job_type === jobType)?.paused === true;

/** The listed queues whose pause state differs from the spec's, with the action that fixes each. */
export function changes(
  spec: HarborJobServiceSpec,
  observed: ObservedJobService,
): Array<{ jobType: string; action: "pause" | "resume" }> {
  return spec.queues
    .filter((q) => pausedIn(observed, q.jobType) !== q.paused)
    .map((q) => ({ jobType: q.jobType, action: q.paused ? "pause" : "resume" }));
}

/** The spec fields whose Harbor value differs, e.g. "queues[RETENTION].paused". */
export function diff(spec: HarborJobServiceSpec, observed: ObservedJobService): string[] {
  return changes(spec, observed).map((c) => `queues[${c.jobType}].paused`);
}

/** Listed job types Harbor does not list (it would take a pause of them and never show it). */
export function unknownJobTypes(spec: HarborJobServiceSpec, observed: ObservedJobService): string[] {
  const known = new Set(observed.queues.map((q) => q.job_type));
  return spec.queues.map((q) => q.jobType).filter((t) => !known.has(t));
}

/** Whether Harbor holds any listed queue paused: a pause someone made, until adopted. */
export function holdsPause(spec: HarborJobServiceSpec, observed: ObservedJobService): boolean {
  return spec.queues.some((q) => pausedIn(observed, q.jobType));
}

/** The listed queues this resource keeps paused: what deletionPolicy Delete resumes. */
export function pausedByResource(spec: HarborJobServiceSpec, observed: ObservedJobService): string[] {
  return spec.queues.filter((q) => q.paused && pausedIn(observed, q.jobType)).map((q) => q.jobType);
}

const byType = (a: { jobType: string }, b: { jobType: string }) =>
  a.jobType < b.jobType ? -1 : a.jobType > b.jobType ? 1 : 0;

export function status(observed: ObservedJobService): Partial<HarborJobServiceStatus> {
  const queues = observed.queues
    .map((q) => ({
      jobType: safeText(q.job_type ?? "", 64),
      count: q.count ?? 0,
      latency: q.latency ?? 0,
      paused: q.paused ?? false,
    }))
    .sort(byType);
  const paused = queues.filter((q) => q.paused).map((q) => q.jobType);
  const busy = observed.workers.filter((w) => (w.job_id ?? "") !== "").length;
  return {
    schedulerPaused: queues.some((q) => q.jobType === SCHEDULER && q.paused),
    // A field set to undefined is removed from status.
    pausedQueues: paused.length ? paused.join(", ") : undefined,
    pools: observed.pools.length,
    workers: { total: observed.workers.length, busy, idle: observed.workers.length - busy },
    queues,
  };
}

/** How Events name the job service's state: "paused: RETENTION, SCHEDULER". */
export function describe(observed: ObservedJobService): string {
  const paused = observed.queues.filter((q) => q.paused).map((q) => q.job_type ?? "");
  return paused.length ? `paused: ${paused.sort().join(", ")}` : "no queue paused";
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of changes; see shared/export.ts)

/**
 * The spec that reproduces the job service's pauses: the paused queues, each paused. Queues that
 * run are Harbor's default and left unlisted; with none paused there is no resource: undefined.
 */
export function specFromJobService(
  queues: readonly JobQueue[],
): { spec: UnnamedSpecFields<typeof HarborJobServiceSpec> } | undefined {
  const paused = queues
    .filter((q) => q.paused === true && q.job_type)
    .map((q) => q.job_type as string)
    .sort();
  if (paused.length === 0) return undefined;
  return { spec: { queues: paused.map((jobType) => ({ jobType, paused: true })) } };
}
