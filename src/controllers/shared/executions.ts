// What kinds read of Harbor's executions of a system job (GC, audit-log purge): their parameters,
// which Harbor sends as a JSON string, how soon to look again at one that is still running, their
// schedule as a spec writes it (for the export), and the mapping every per-Harbor schedule kind
// shares (schedule, diff, run status, status, description).
import { DEFAULT_CRON, effectiveCron, ScheduleType } from "../../api/schedule.ts";
import { safeText } from "../../kube/text.ts";

/** spec.schedule of a per-Harbor schedule kind. */
type ScheduleSpec = Parameters<typeof effectiveCron>[0];

/** job_parameters is a JSON string; anything unreadable counts as no parameters. */
export function jobParameters(h: { job_parameters?: string | undefined }): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(h.job_parameters ?? "{}");
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The final statuses of an execution as Harbor's GC and purge history show them. */
export const FINAL_STATUSES: readonly string[] = ["Success", "Error", "Stopped"];

/** How long to wait before looking at a running execution again: a quarter of its age, 1 to 5 s. */
export function followDelayMs(startTime: string | undefined, nowMs: number): number {
  const started = Date.parse(startTime ?? "");
  const age = Number.isNaN(started) ? 0 : Math.max(0, nowMs - started);
  return Math.min(5000, Math.max(1000, Math.round(age / 4)));
}

/**
 * spec.schedule for a schedule Harbor holds (the inverse of effectiveCron): its type, and the cron
 * unless it is the one the type defaults to. Harbor's Manual and Schedule are no schedule a spec
 * can hold.
 */
export function specSchedule(s: {
  type: string;
  cron?: string | undefined;
}): { schedule: { type: ScheduleType; cron?: string } } | { skip: string } {
  const type = ScheduleType.safeParse(s.type);
  if (!type.success || type.data === "None")
    return { skip: `Harbor holds a schedule of type "${s.type}", which a spec cannot hold` };
  const t = type.data;
  const implied = t === "Custom" ? undefined : DEFAULT_CRON[t];
  return { schedule: { type: t, ...(s.cron === undefined || s.cron === implied ? {} : { cron: s.cron }) } };
}

// -------------------------------------------------------------------------------------------
// A per-Harbor schedule of a system job (GC, audit-log purge): what every kind of it maps alike.
// Each kind adds its own parameters to these.

/** Harbor prints a time that was never set like this. */
const ZERO_TIME = "0001-01-01T00:00:00.000Z";

/** What a system job's schedule and run look like to the mappings (Harbor's ExecHistory). */
export interface JobHistory {
  id?: number | undefined;
  job_kind?: string | undefined;
  job_parameters?: string | undefined;
  job_status?: string | undefined;
  creation_time?: string | undefined;
  update_time?: string | undefined;
  schedule?: {
    type?: string | undefined;
    cron?: string | undefined;
    next_scheduled_time?: string | undefined;
  };
}

/** The part of an observed schedule every system job has. */
export interface ObservedScheduleBase {
  type: string;
  cron?: string;
  nextScheduledTime?: string;
}

/** Harbor's schedule and newest run of one system job. */
export interface ObservedJob<S extends ObservedScheduleBase, H extends JobHistory = JobHistory> {
  schedule?: S;
  lastRun?: H;
}

/**
 * GET /system/<job>/schedule's answer as compared: its type, cron and next time (a schedule of
 * type None is none: undefined), with the kind's own fields read from its job_parameters.
 */
export function scheduleFromHistory<Own extends object>(
  h: JobHistory | undefined,
  own: (parameters: Record<string, unknown>) => Own,
): (ObservedScheduleBase & Own) | undefined {
  const type = h?.schedule?.type;
  if (!h || !type || type === "None") return undefined;
  const next = h.schedule?.next_scheduled_time;
  return {
    type,
    ...(h.schedule?.cron ? { cron: h.schedule.cron } : h.job_kind ? { cron: h.job_kind } : {}),
    ...own(jobParameters(h)),
    ...(next && next !== ZERO_TIME ? { nextScheduledTime: next } : {}),
  };
}

/** The schedule part of a request that makes Harbor's schedule the spec's. */
export function requestSchedule(schedule: ScheduleSpec): { type: ScheduleType; cron?: string } {
  const cron = effectiveCron(schedule);
  return { type: schedule.type, ...(cron === undefined ? {} : { cron }) };
}

/**
 * The spec fields whose Harbor value differs: the schedule's type and cron, then the kind's own
 * fields (`own`), compared only when both sides have a schedule.
 */
export function scheduleDiff<S extends ObservedScheduleBase>(
  schedule: ScheduleSpec,
  observed: S | undefined,
  own: (observed: S) => string[],
): string[] {
  if (schedule.type === "None") return observed ? ["schedule.type"] : [];
  if (!observed) return ["schedule.type"];
  const out: string[] = [];
  if (observed.type !== schedule.type) out.push("schedule.type");
  if (observed.cron !== effectiveCron(schedule)) out.push("schedule.cron");
  return [...out, ...own(observed)];
}

/** What status shows of every system job's run. */
export interface JobRunStatus {
  id: number;
  status: string;
  trigger?: string;
  dryRun?: boolean;
  startTime?: string;
  endTime?: string;
}

/** One execution as status shows it: id, status, trigger, dry run, start and (once final) end. */
export function jobRunStatus(h: JobHistory & { id: number }): JobRunStatus {
  const p = jobParameters(h);
  const running = !FINAL_STATUSES.includes(h.job_status ?? "");
  return {
    id: h.id,
    status: safeText(h.job_status ?? "Unknown", 32),
    ...(h.job_kind ? { trigger: safeText(h.job_kind, 32) } : {}),
    ...(typeof p.dry_run === "boolean" ? { dryRun: p.dry_run } : {}),
    ...(h.creation_time ? { startTime: h.creation_time } : {}),
    ...(!running && h.update_time ? { endTime: h.update_time } : {}),
  };
}

/** Whether a run has not reached a final status yet. */
export function isRunning(run: { status: string } | undefined): boolean {
  return run !== undefined && !FINAL_STATUSES.includes(run.status);
}

/** The status fields of a schedule kind for what Harbor has. */
export function scheduleStatus<R>(
  observed: ObservedJob<ObservedScheduleBase>,
  runStatus: (h: JobHistory & { id: number }) => R,
): { nextScheduledTime?: string; lastRun?: R } {
  const run = observed.lastRun;
  return {
    // A field set to undefined is removed from status.
    nextScheduledTime: observed.schedule?.nextScheduledTime,
    lastRun: run?.id === undefined ? undefined : runStatus({ ...run, id: run.id }),
  };
}

/** How Events name the schedule: "schedule Daily, 0 0 0 * * *", or "no schedule". */
export function describeSchedule(observed: ObservedJob<ObservedScheduleBase>): string {
  const s = observed.schedule;
  return s ? `schedule ${s.type}${s.cron ? `, ${s.cron}` : ""}` : "no schedule";
}
