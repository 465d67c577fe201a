// Garbage collection: the schedule, and runs that progress on the world clock, as Harbor 2.12.4
// shows them. A run's execution is Running while its job runs (on a job service worker when one is
// free; 2 s of world time unless a plan says otherwise) and for another 25 s after the job ended
// (core refreshes the execution's status asynchronously); only then is it Success or Error, and a
// successful run's job_parameters gain freed_space, purged_blobs and purged_manifests. The job's log
// is 404 "object is not found" until the job has run, then text/plain. A stopped job stops the run
// at once. A cron schedule starts a run whenever its next time passes on the world clock.
// The job service runs one GC job at a time (Harbor's GC job has MaxCurrency 1), and the API does not
// refuse a second run: its job waits in the queue (the execution shows Running, its log is 404)
// and starts when the one before it has ended, in world time.
// By release: `workers` 1–5 up to 2.12 and 1–10 from 2.13; from 2.13 the schedule's job_parameters
// also say "delete_tag": false.
import { badRequest, internal, notFound } from "../errors.ts";
import type { World } from "../world.ts";
import { defineArea } from "./area.ts";
import { type CronSpec, parseCron } from "./cron.ts";
import {
  type JobScheduleRecord,
  JobStoreBase,
  jobControl,
  jobRoutes,
  renderSchedule,
  type ScheduleBody,
  type Trigger,
} from "./system-job.ts";

// ---------------------------------------------------------------------------------------------
// runs and the schedule

export type GcStatus = "Running" | "Success" | "Error" | "Stopped";

export interface GcPlan {
  /** How the job ends (Error: as without registryctl). Default Success. */
  status?: "Success" | "Error";
  /** World time the job takes. Default 2000 ms. */
  durationMs?: number;
  /** What a successful job reports it removed (bytes, blobs, manifests). Default nothing. */
  freedSpace?: number;
  purgedBlobs?: number;
  purgedManifests?: number;
}

type JobStatus = "Pending" | "Running" | "Success" | "Error" | "Stopped";

interface GcPolicy {
  deleteUntagged: boolean;
  dryRun: boolean;
  workers: number;
}

export interface GcRunRecord {
  id: number;
  trigger: Trigger;
  /** The execution's status, as the API shows it. */
  status: GcStatus;
  /** Harbor's execution extra attributes, printed as job_parameters. */
  parameters: Record<string, unknown>;
  startTime: number;
  updateTime: number;
  /** The job's own status, ahead of the execution's: Pending while another GC job runs. */
  job: JobStatus;
  /** Whether the job has started (a job stopped while it waited never ran). */
  jobStarted: boolean;
  /** When the job ends (as planned) or ended; for a waiting job, its planned duration from now. */
  jobEnd: number;
  plan: Required<GcPlan>;
  log: string[];
  /** The job service job it occupies, if a worker was free. */
  jobId?: string;
}

export type GcScheduleRecord = JobScheduleRecord<GcPolicy>;

/** What the server adds to every GC's parameters. */
const REDIS_URL_REG = "redis://redis:6379/1?idle_timeout_seconds=30";
const TIME_WINDOW_HOURS = 2;
/** How long core still shows a finished GC job's execution as Running. */
export const GC_STATUS_LAG_MS = 25_000;

export class GcStore extends JobStoreBase<GcRunRecord, GcPlan, GcPolicy> {
  /** When the last GC job ended or was stopped (world time): a waiting job starts from then. */
  #freeSince = 0;

  constructor(world: World) {
    super(world, {
      what: "gc",
      logSource: "/jobservice/job/impl/gc/garbage_collection.go",
      defaultPlan: { status: "Success", durationMs: 2000, freedSpace: 0, purgedBlobs: 0, purgedManifests: 0 },
    });
  }

  start(policy: GcPolicy, trigger: Trigger): GcRunRecord {
    const now = this.world.now();
    const plan = this.nextPlan();
    const run: GcRunRecord = {
      id: this.world.ids.next("execution"),
      trigger,
      status: "Running",
      parameters: {
        delete_untagged: policy.deleteUntagged,
        dry_run: policy.dryRun,
        redis_url_reg: REDIS_URL_REG,
        time_window: TIME_WINDOW_HOURS,
        workers: policy.workers,
      },
      startTime: now,
      updateTime: now,
      job: "Pending",
      jobStarted: false,
      jobEnd: now + plan.durationMs,
      plan,
      log: [],
    };
    this.runsById.set(run.id, run);
    this.#dispatch(now);
    this.sweep();
    return run;
  }

  /** The job starts on a worker (at `at`, world time): its first log lines are written. */
  #beginJob(run: GcRunRecord, at: number): void {
    Object.assign(run, { job: "Running", jobStarted: true, jobEnd: at + run.plan.durationMs });
    run.jobId = this.world.jobservice.startJob("GARBAGE_COLLECTION", () => this.stop(run));
    const { delete_untagged, dry_run, workers } = run.parameters;
    if (run.plan.status === "Error") {
      this.log(
        run,
        'failed to start gc as registry controller is unreachable: Get "http://registryctl:8080/api/health": dial tcp: lookup registryctl: no such host',
        "ERROR",
      );
    } else {
      this.log(
        run,
        `Garbage Collection parameters: [delete_untagged: ${delete_untagged}, dry_run: ${dry_run}, time_window: ${TIME_WINDOW_HOURS}, workers: ${(workers as number) || 1}]`,
      );
      this.log(run, "start to run gc in job.");
    }
  }

  /**
   * One GC job at a time: ends the running job when its time has come, then starts the oldest
   * waiting one when the worker came free (in world time), and so on up to `now`.
   */
  #dispatch(now: number): void {
    for (;;) {
      const running = this.runs().find((r) => r.job === "Running");
      if (running) {
        if (now < running.jobEnd) return;
        this.#endJob(running, running.plan.status, running.jobEnd);
        continue;
      }
      const next = this.runs()
        .filter((r) => r.job === "Pending")
        .sort((a, b) => a.id - b.id)[0];
      if (!next) return;
      this.#beginJob(next, Math.min(now, Math.max(next.startTime, this.#freeSince)));
    }
  }

  /**
   * Stops a waiting or running job, and with it the run (the next waiting job may start); once the
   * job has ended, nothing changes.
   */
  stop(run: GcRunRecord): void {
    if (run.job !== "Running" && run.job !== "Pending") return;
    if (run.jobId) this.world.jobservice.finishJob(run.jobId);
    const now = this.world.now();
    const ran = run.job === "Running";
    Object.assign(run, { job: "Stopped", jobEnd: now, status: "Stopped", updateTime: now });
    if (ran) {
      this.#freeSince = now;
      this.log(run, "received the stop signal, quit GC job.");
    }
    this.#dispatch(now);
  }

  /** Ends a running job now with the given status (or its planned one); the run follows later. */
  complete(run: GcRunRecord, status?: "Success" | "Error"): void {
    if (run.job !== "Running") return;
    const now = this.world.now();
    this.#endJob(run, status ?? run.plan.status, now);
    this.#dispatch(now);
  }

  /** Whether the job has run, so that its log can be read. */
  hasLog(run: GcRunRecord): boolean {
    return run.jobStarted && run.job !== "Running";
  }

  /** Replaces the schedule (Harbor deletes the old one, then creates the new one). */
  setSchedule(cronType: string, cron: string, spec: CronSpec, policy: GcPolicy): void {
    this.jobSchedule.set(cronType, cron, spec, policy);
  }

  /** The job ends: its log is complete; the execution shows it GC_STATUS_LAG_MS later. */
  #endJob(run: GcRunRecord, status: "Success" | "Error", at: number): void {
    if (run.jobId) this.world.jobservice.finishJob(run.jobId);
    Object.assign(run, { job: status, jobEnd: at });
    this.#freeSince = Math.max(this.#freeSince, at);
    if (status === "Error") return;
    const { freedSpace, purgedBlobs, purgedManifests } = run.plan;
    if (purgedBlobs + purgedManifests === 0) {
      this.log(run, "no removed artifacts.", "WARNING");
      this.log(run, "no need to execute GC as there is no non referenced artifacts.");
    } else {
      this.log(run, `${purgedBlobs} blobs and ${purgedManifests} manifests eligible for deletion`);
      this.log(
        run,
        `The GC could free up ${Math.floor(freedSpace / 1024 / 1024)} MB space, the size is a rough estimation.`,
      );
      if (run.parameters.dry_run !== true) {
        this.log(run, `${purgedBlobs} blobs and ${purgedManifests} manifests are actually deleted`);
        this.log(run, `The GC job actual frees up ${Math.floor(freedSpace / 1024 / 1024)} MB space.`);
      }
    }
    this.log(run, "success to run gc in job.");
  }

  /** The execution takes the job's status; a successful one gains what the job reported. */
  #settle(run: GcRunRecord, at: number): void {
    // Only an ended job is settled: its status is one an execution has.
    run.status = run.job as GcStatus;
    run.updateTime = at;
    if (run.job !== "Success") return;
    Object.assign(run.parameters, {
      freed_space: run.plan.freedSpace,
      purged_blobs: run.plan.purgedBlobs,
      purged_manifests: run.plan.purgedManifests,
    });
  }

  protected tick(now: number): void {
    this.#dispatch(now);
    for (const run of this.runsById.values()) {
      const ended = run.job !== "Running" && run.job !== "Pending";
      if (run.status === "Running" && ended && now >= run.jobEnd + GC_STATUS_LAG_MS) {
        this.#settle(run, run.jobEnd + GC_STATUS_LAG_MS);
      }
    }
    this.jobSchedule.tick(now);
  }
}

// ---------------------------------------------------------------------------------------------
// API

/** Reads the policy out of the parameters the way Harbor's handler does (workers 1–5, from 2.13 1–10). */
function gcPolicy(world: World, parameters: Record<string, unknown>): GcPolicy {
  const policy: GcPolicy = {
    deleteUntagged: parameters.delete_untagged === true,
    dryRun: parameters.dry_run === true,
    workers: 0,
  };
  const workers = parameters.workers;
  if (typeof workers === "number") {
    if (!Number.isInteger(workers)) throw badRequest("bad request: workers should be integer format");
    const max = world.version.has("gcTenWorkers") ? 10 : 5;
    if (workers <= 0 || workers > max) {
      throw badRequest(
        `Error: Invalid number of workers:${workers}. Workers must be greater than 0 and less than or equal to ${max}.`,
      );
    }
    policy.workers = workers;
  }
  return policy;
}

/** Applies a schedule request; returns the execution id for Manual, else 0. */
function kick(world: World, body: ScheduleBody): number {
  // Harbor dereferences `schedule` without a nil check.
  if (!body.schedule) throw internal("nil schedule");
  const { type, cron } = body.schedule;
  const parameters = body.parameters ?? {};
  switch (type) {
    case "Manual":
      return world.gc.start(gcPolicy(world, parameters), "MANUAL").id;
    case "None":
      world.gc.deleteSchedule();
      return 0;
    case "Hourly":
    case "Daily":
    case "Weekly":
    case "Custom": {
      const policy = gcPolicy(world, parameters);
      let spec: CronSpec;
      try {
        spec = parseCron(cron ?? "");
      } catch (e) {
        throw badRequest(
          `invalid cron string for scheduled gc: ${cron ?? ""}, error: ${(e as Error).message}`,
        );
      }
      // The scheduled runs get the policy without dry_run (Harbor reads dry_run for Manual only):
      // a schedule never dry-runs.
      world.gc.setSchedule(type, cron ?? "", spec, { ...policy, dryRun: false });
      return 0;
    }
    default:
      // "Schedule" (and no type) is accepted and does nothing.
      return 0;
  }
}

const routes = jobRoutes({
  base: "/system/gc",
  idParam: "gc_id",
  permission: "garbage-collection",
  ops: {
    list: "getGCHistory",
    getSchedule: "getGCSchedule",
    create: "createGCSchedule",
    update: "updateGCSchedule",
    get: "getGC",
    stop: "stopGC",
    log: "getGCLog",
  },
  audit: { resource: "garbage collection", resource_type: "gc" },
  jobName: "GARBAGE_COLLECTION",
  store: (world) => world.gc,
  renderSchedule: (s: GcScheduleRecord, world: World) =>
    renderSchedule(s, {
      delete_untagged: s.policy.deleteUntagged,
      ...(world.version.has("gcDeleteTag") ? { delete_tag: false } : {}),
      workers: s.policy.workers,
    }),
  kick,
  // The request path with its last segment replaced by the id (…/schedule → …/<id>).
  location: (ctx, id) => `${ctx.url.pathname.slice(0, ctx.url.pathname.lastIndexOf("/"))}/${id}`,
  unknownRun: (id) => notFound(`garbage collection execution ${id} not found`),
  unknownLog: (id) => `garbage collection ${id} log is not found`,
});

export const area = defineArea({
  routes,
  control: (world: World) => ({
    ...jobControl(world.gc, "gc"),
    /** Every GC execution: id, trigger, status, parameters and times (ms). */
    runs: () =>
      world.gc.runs().map((r) => ({
        id: r.id,
        trigger: r.trigger,
        status: r.status,
        jobStatus: r.job,
        parameters: r.parameters,
        startTime: r.startTime,
        updateTime: r.updateTime,
        jobId: r.jobId,
      })),
  }),
});
