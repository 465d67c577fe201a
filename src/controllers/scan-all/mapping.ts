// HarborScanAll's pure mappings: spec → Harbor's schedule request, Harbor's schedule and metrics →
// what is compared and what status shows.
//
// What Harbor 2.12 keeps of a scan-all schedule (GET /system/scanAll/schedule): type and cron only,
// no next time and no parameters. A schedule of type None is no schedule: GET answers 200 with an
// empty body. The metrics (Harbor's Stats) name no run: they describe the newest one.
import type { HarborScanAllSpec, ScanAllRunStatus } from "../../api/scan-all.ts";
import type { ScanAllSchedule, ScanAllScheduleReq, ScanAllStats } from "../../harbor/scan-all.ts";
import { safeText } from "../../kube/text.ts";
import {
  describeSchedule,
  type ObservedScheduleBase,
  requestSchedule,
  scheduleDiff,
  scheduleFromHistory,
  specSchedule,
} from "../shared/executions.ts";
import type { UnnamedSpecFields } from "../shared/export.ts";

/** The schedule as compared (Harbor keeps no next time for it): undefined when Harbor has none. */
export type ObservedScanAllSchedule = ObservedScheduleBase;

export interface ObservedScanAll {
  schedule?: ObservedScanAllSchedule;
  lastRun?: ScanAllStats;
  lastScheduledRun?: ScanAllStats;
}

export function scheduleFrom(s: ScanAllSchedule | undefined): ObservedScanAllSchedule | undefined {
  return scheduleFromHistory(s, () => ({}));
}

/** The request that makes Harbor's schedule the spec's. */
export function scheduleRequest(spec: HarborScanAllSpec): ScanAllScheduleReq {
  return { schedule: requestSchedule(spec.schedule) };
}

/** The spec fields whose Harbor value differs. */
export function diff(spec: HarborScanAllSpec, observed: ObservedScanAll): string[] {
  return scheduleDiff(spec.schedule, observed.schedule, () => []);
}

/** Harbor's Stats as status shows them; undefined for Harbor's {} (no run yet). */
export function runStatus(stats: ScanAllStats | undefined): ScanAllRunStatus | undefined {
  if (!stats || (stats.trigger === undefined && stats.total === undefined)) return undefined;
  const m = stats.metrics ?? {};
  return {
    ...(stats.trigger ? { trigger: safeText(stats.trigger, 32) } : {}),
    ongoing: stats.ongoing ?? false,
    total: stats.total ?? 0,
    completed: stats.completed ?? 0,
    ...(m.Success === undefined ? {} : { succeeded: m.Success }),
    ...(m.Error === undefined ? {} : { failed: m.Error }),
    ...(m.Stopped === undefined ? {} : { stopped: m.Stopped }),
  };
}

/** The kind's status fields for what Harbor has (a field set to undefined is removed). */
export function status(observed: ObservedScanAll): {
  lastRun?: ScanAllRunStatus;
  lastScheduledRun?: ScanAllRunStatus;
} {
  return { lastRun: runStatus(observed.lastRun), lastScheduledRun: runStatus(observed.lastScheduledRun) };
}

/** How Events name the schedule: "schedule Daily, 0 0 0 * * *", or "no schedule". */
export function describe(observed: ObservedScanAll): string {
  return describeSchedule({ schedule: observed.schedule });
}

/** The spec that reproduces Harbor's schedule (see shared/export.ts); undefined without one. */
export function specFromScanAll(
  s: ObservedScanAllSchedule | undefined,
): { spec: UnnamedSpecFields<typeof HarborScanAllSpec> } | { skip: string } | undefined {
  if (!s) return undefined;
  const schedule = specSchedule(s);
  return "skip" in schedule ? schedule : { spec: schedule };
}
