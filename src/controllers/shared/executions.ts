// What kinds read of Harbor's executions of a system job (GC, audit-log purge): their parameters,
// which Harbor sends as a JSON string, how soon to look again at one that is still running, and
// their schedule as a spec writes it (for the export).
import { DEFAULT_CRON, ScheduleType } from "../../api/schedule.ts";

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
