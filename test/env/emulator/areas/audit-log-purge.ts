// Audit-log purge (/system/purgeaudit) as Harbor's handler runs it: the schedule (a cron type
// replaces it, None deletes it, Manual starts a run, "Schedule" does nothing; every request, None
// included, must carry audit_retention_hour and the list of what to purge), runs that progress on
// the world clock and really purge the emulator's audit log, history, log and stop.
//
// What to purge: up to 2.12 `include_operations`, operations (create, delete and pull only; other
// values are ignored); from 2.13 `include_event_types`, event types as GET /auditlog-exts/events
// lists them (create_artifact, delete_project, …), not checked: a name that is no event type
// (`create`, an operation of 2.12) matches nothing. A request without the release's key is a 400
// "<key> should provide"; the other release's key is not read.
//
// A run occupies a job service worker (job PURGE_AUDIT) for its planned time (1 s of world time
// unless a plan says otherwise); the job then removes the audit records older than
// audit_retention_hour that the list names (none purges nothing; 0 or -1 hours end the job without
// purging), or with dry_run only counts them, and logs the number. The execution shows the job's end
// PURGE_STATUS_LAG_MS later, as a GC run does (core refreshes a task-based execution's status
// asynchronously; observed for GC on a real 2.12.4 and modelled the same way here).
//
// Harbor's quirks kept: a cron type deletes the old schedule before it checks the new cron, so a
// request with a bad cron leaves no schedule; GET of an unknown run id is a masked 500 (the handler
// dereferences the missing execution); a cron schedule fires through the job service's SCHEDULER
// queue, so it waits while that queue is paused.
import { type AuditEntry, eventType } from "../audit.ts";
import { badRequest, internal } from "../errors.ts";
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

export type PurgeStatus = "Running" | "Success" | "Error" | "Stopped";

export interface PurgePlan {
  /** How the job ends. Default Success. */
  status?: "Success" | "Error";
  /** World time the job takes. Default 1000 ms. */
  durationMs?: number;
}

interface PurgePolicy {
  retentionHour: number;
  /** include_operations (up to 2.12) or include_event_types (2.13 on), as sent. */
  include: string;
  dryRun: boolean;
}

export interface PurgeRunRecord {
  id: number;
  trigger: Trigger;
  status: PurgeStatus;
  /** The execution's extra attributes, printed as job_parameters. */
  parameters: Record<string, unknown>;
  policy: PurgePolicy;
  startTime: number;
  updateTime: number;
  /** The job's own status, ahead of the execution's. */
  job: PurgeStatus;
  jobEnd: number;
  plan: Required<PurgePlan>;
  log: string[];
  /** Audit records the job removed (or, dry, would have removed). */
  purged?: number;
  jobId?: string;
}

interface PurgeScheduleRecord extends JobScheduleRecord<PurgePolicy> {
  /** The parameters as sent: GET shows them as they came. */
  parameters: Record<string, unknown>;
}

/** How long core still shows a finished purge job's execution as Running. */
export const PURGE_STATUS_LAG_MS = 25_000;
/** The operations the 2.12 purge can remove; anything else in include_operations is ignored. */
const PERMITTED_OPERATIONS = ["create", "delete", "pull"];

/** The parameter that says what to purge in this release. */
export function includeKey(world: World): "include_event_types" | "include_operations" {
  return world.version.has("purgeEventTypes") ? "include_event_types" : "include_operations";
}

export class PurgeStore extends JobStoreBase<PurgeRunRecord, PurgePlan, PurgePolicy, PurgeScheduleRecord> {
  constructor(world: World) {
    super(world, {
      what: "purge",
      logSource: "/jobservice/job/impl/purge/purge.go",
      defaultPlan: { status: "Success", durationMs: 1000 },
    });
  }

  start(policy: PurgePolicy, trigger: Trigger): PurgeRunRecord {
    const now = this.world.now();
    const plan = this.nextPlan();
    const run: PurgeRunRecord = {
      id: this.world.ids.next("execution"),
      trigger,
      status: "Running",
      parameters: {
        audit_retention_hour: policy.retentionHour,
        dry_run: policy.dryRun,
        [includeKey(this.world)]: policy.include,
      },
      policy,
      startTime: now,
      updateTime: now,
      job: "Running",
      jobEnd: now + plan.durationMs,
      plan,
      log: [],
    };
    this.runsById.set(run.id, run);
    run.jobId = this.world.jobservice.startJob("PURGE_AUDIT", () => this.stop(run));
    this.log(run, "Purge audit job start");
    this.sweep();
    return run;
  }

  /** Stops a running job, and with it the run; once the job has ended, nothing changes. */
  stop(run: PurgeRunRecord): void {
    if (run.job !== "Running") return;
    if (run.jobId) this.world.jobservice.finishJob(run.jobId);
    const now = this.world.now();
    Object.assign(run, { job: "Stopped", jobEnd: now, status: "Stopped", updateTime: now });
    this.log(run, "received the stop signal, stop the purge job");
  }

  /** Ends a running job now with the given status (or its planned one); the run follows later. */
  complete(run: PurgeRunRecord, status?: "Success" | "Error"): void {
    if (run.job !== "Running") return;
    this.#endJob(run, status ?? run.plan.status, this.world.now());
  }

  hasLog(run: PurgeRunRecord): boolean {
    return run.job !== "Running";
  }

  /** Replaces the schedule (the old one is already gone: Harbor deletes it first). */
  setSchedule(
    cronType: string,
    cron: string,
    spec: CronSpec,
    parameters: Record<string, unknown>,
    policy: PurgePolicy,
  ): void {
    this.jobSchedule.set(cronType, cron, spec, policy, { parameters });
  }

  #endJob(run: PurgeRunRecord, status: "Success" | "Error", at: number): void {
    if (run.jobId) this.world.jobservice.finishJob(run.jobId);
    Object.assign(run, { job: status, jobEnd: at });
    if (status === "Error") {
      this.log(run, "failed to purge audit log, error: the database is unreachable", "ERROR");
      return;
    }
    const { retentionHour, include, dryRun } = run.policy;
    if (retentionHour === -1 || retentionHour === 0) {
      this.log(run, `quit purge job, retentionHour:${retentionHour} `);
      return;
    }
    const named = include === "" ? [] : include.split(",");
    const byEventType = this.world.version.has("purgeEventTypes");
    // 2.13 on: event types, compared as sent; up to 2.12: the three operations it knows.
    const wanted = byEventType
      ? named.map((t) => t.trim().toLowerCase())
      : named.map((o) => o.toLowerCase()).filter((o) => PERMITTED_OPERATIONS.includes(o));
    const cutoff = at - retentionHour * 3_600_000;
    const matches = (e: AuditEntry) =>
      wanted.includes(byEventType ? eventType(e) : e.operation) && Date.parse(e.op_time) < cutoff;
    const n =
      wanted.length === 0
        ? 0
        : dryRun
          ? this.world.audit.all().filter(matches).length
          : this.world.audit.purge(matches);
    run.purged = n;
    this.log(
      run,
      `Purge operation parameter, renention_hour=${retentionHour}, ${includeKey(this.world)}:[${named.join(" ")}], dry_run:${dryRun}`,
    );
    this.log(run, `${dryRun ? "[DRYRUN]" : ""}Purged ${n} rows of audit logs`);
  }

  protected tick(now: number): void {
    for (const run of this.runsById.values()) {
      if (run.job === "Running" && now >= run.jobEnd) this.#endJob(run, run.plan.status, run.jobEnd);
      if (run.status === "Running" && run.job !== "Running" && now >= run.jobEnd + PURGE_STATUS_LAG_MS) {
        run.status = run.job;
        run.updateTime = run.jobEnd + PURGE_STATUS_LAG_MS;
      }
    }
    this.jobSchedule.tick(now);
  }
}

// ---------------------------------------------------------------------------------------------
// API

/** The handler's checks before anything happens (verifyCreateRequest / verifyUpdateRequest). */
function verify(body: ScheduleBody, world: World): void {
  if (!body.schedule) throw badRequest("schedule cann't be empty");
  const parameters = body.parameters ?? {};
  if (Object.keys(parameters).length === 0) throw badRequest("schedule parameter cann't be empty");
  if (!("audit_retention_hour" in parameters)) throw badRequest("audit_retention_hour should provide");
  const key = includeKey(world);
  if (!(key in parameters)) throw badRequest(`${key} should provide`);
}

/** Reads the policy out of the parameters the way Harbor's handler does. */
function purgePolicy(world: World, parameters: Record<string, unknown>): PurgePolicy {
  const policy: PurgePolicy = { retentionHour: 0, include: "", dryRun: false };
  if (typeof parameters.dry_run === "boolean") policy.dryRun = parameters.dry_run;
  const include = parameters[includeKey(world)];
  if (typeof include === "string") policy.include = include;
  const hours = parameters.audit_retention_hour;
  // Only a JSON number is read (a string leaves 0: the job then ends without purging).
  if (typeof hours === "number") {
    if (!Number.isInteger(hours)) {
      throw badRequest(
        `failed to convert audit_retention_hour, error: strconv.ParseInt: parsing "${hours}": invalid syntax`,
      );
    }
    policy.retentionHour = hours;
  }
  return policy;
}

/** Applies a schedule request; returns the execution id for Manual, else 0. */
function kick(world: World, body: ScheduleBody): number {
  const schedule = body.schedule ?? {};
  const parameters = body.parameters ?? {};
  const policy = purgePolicy(world, parameters);
  switch (schedule.type) {
    case "Manual":
      return world.purge.start(policy, "MANUAL").id;
    case "None":
      world.purge.deleteSchedule();
      return 0;
    case "Hourly":
    case "Daily":
    case "Weekly":
    case "Custom": {
      // The old schedule goes first; only then is the new cron looked at.
      world.purge.deleteSchedule();
      const cron = schedule.cron ?? "";
      if (cron === "") throw badRequest("empty cron string for schedule");
      let spec: CronSpec;
      try {
        spec = parseCron(cron);
      } catch (e) {
        throw badRequest(`invalid cron ${cron}: ${(e as Error).message}`);
      }
      world.purge.setSchedule(schedule.type, cron, spec, parameters, policy);
      return 0;
    }
    default:
      // "Schedule" (and no type) is accepted and does nothing.
      return 0;
  }
}

const routes = jobRoutes({
  base: "/system/purgeaudit",
  idParam: "purge_id",
  permission: "purge-audit",
  ops: {
    list: "getPurgeHistory",
    getSchedule: "getPurgeSchedule",
    create: "createPurgeSchedule",
    update: "updatePurgeSchedule",
    get: "getPurgeJob",
    stop: "stopPurge",
    log: "getPurgeJobLog",
  },
  audit: { resource: "purge audit", resource_type: "purge_audit" },
  jobName: "PURGE_AUDIT",
  store: (world) => world.purge,
  renderSchedule: (s: PurgeScheduleRecord) => renderSchedule(s, s.parameters),
  verify,
  kick,
  // Harbor reads the execution's vendor type before it checks the error: a nil dereference.
  unknownRun: () => internal("runtime error: invalid memory address or nil pointer dereference"),
  unknownLog: (id) => `purge job with execution ID: ${id} taskLog is not found`,
});

export const area = defineArea({
  routes,
  control: (world: World) => ({
    ...jobControl(world.purge, "purge"),
    /** The schedule as stored: type, cron, the parameters as sent, the next run (ms); undefined when none. */
    schedule: () => {
      const s = world.purge.schedule;
      return s ? { type: s.cronType, cron: s.cron, parameters: s.parameters, nextRun: s.nextRun } : undefined;
    },
    /** Every purge execution: id, trigger, status, parameters, times (ms) and the records purged. */
    runs: () =>
      world.purge.runs().map((r) => ({
        id: r.id,
        trigger: r.trigger,
        status: r.status,
        jobStatus: r.job,
        parameters: r.parameters,
        startTime: r.startTime,
        updateTime: r.updateTime,
        purged: r.purged,
      })),
  }),
});
