// HarborGarbageCollection's pure mappings: spec → Harbor's schedule request, Harbor's schedule and
// newest run → what is compared and what status shows.
//
// What Harbor 2.12 stores of a schedule (GET /system/gc/schedule): type, cron, the next time, and as
// job_parameters only delete_untagged and workers (dry_run is never part of a schedule; the server
// adds keys such as time_window to runs, which are not compared). A schedule of type None is no
// schedule at all: GET answers 200 with an empty body.
import type { GcRunStatus, HarborGarbageCollectionSpec } from "../../api/garbage-collection.ts";
import { effectiveCron } from "../../api/schedule.ts";
import type { GcHistory, GcSchedule } from "../../harbor/gc.ts";
import { safeText } from "../../kube/text.ts";
import { FINAL_STATUSES, jobParameters, specSchedule } from "../shared/executions.ts";
import type { UnnamedSpecFields } from "../shared/export.ts";

/** The schedule as compared: undefined when Harbor has none. */
export interface ObservedGcSchedule {
  type: string;
  cron?: string;
  deleteUntagged?: boolean;
  workers?: number;
  nextScheduledTime?: string;
}

export interface ObservedGc {
  schedule?: ObservedGcSchedule;
  /** The newest GC execution, whoever started it. */
  lastRun?: GcHistory;
}

/** Harbor prints a time that was never set like this. */
const ZERO_TIME = "0001-01-01T00:00:00.000Z";

/** GET /system/gc/schedule's answer as compared; undefined when there is none. */
export function scheduleFrom(h: GcHistory | undefined): ObservedGcSchedule | undefined {
  const type = h?.schedule?.type;
  if (!h || !type || type === "None") return undefined;
  const p = jobParameters(h);
  const next = h.schedule?.next_scheduled_time;
  return {
    type,
    ...(h.schedule?.cron ? { cron: h.schedule.cron } : h.job_kind ? { cron: h.job_kind } : {}),
    ...(typeof p.delete_untagged === "boolean" ? { deleteUntagged: p.delete_untagged } : {}),
    ...(typeof p.workers === "number" ? { workers: p.workers } : {}),
    ...(next && next !== ZERO_TIME ? { nextScheduledTime: next } : {}),
  };
}

/** The request that makes Harbor's schedule the spec's. */
export function scheduleRequest(spec: HarborGarbageCollectionSpec): GcSchedule {
  const cron = effectiveCron(spec.schedule);
  return {
    schedule: { type: spec.schedule.type, ...(cron === undefined ? {} : { cron }) },
    ...(spec.schedule.type === "None"
      ? {}
      : { parameters: { delete_untagged: spec.deleteUntagged, workers: spec.workers } }),
  };
}

/** The request of a run now: the spec's parameters, dry run included. */
export function runRequest(spec: HarborGarbageCollectionSpec): GcSchedule {
  return {
    schedule: { type: "Manual" },
    parameters: { delete_untagged: spec.deleteUntagged, dry_run: spec.dryRun, workers: spec.workers },
  };
}

/** The spec fields whose Harbor value differs. */
export function diff(spec: HarborGarbageCollectionSpec, observed: ObservedGc): string[] {
  const s = observed.schedule;
  if (spec.schedule.type === "None") return s ? ["schedule.type"] : [];
  if (!s) return ["schedule.type"];
  const out: string[] = [];
  if (s.type !== spec.schedule.type) out.push("schedule.type");
  if (s.cron !== effectiveCron(spec.schedule)) out.push("schedule.cron");
  if (s.deleteUntagged !== spec.deleteUntagged) out.push("deleteUntagged");
  if (s.workers !== spec.workers) out.push("workers");
  return out;
}

const num = (v: unknown) => (typeof v === "number" && Number.isInteger(v) ? v : undefined);

/** One GC execution as status shows it. */
export function runStatus(h: GcHistory & { id: number }): GcRunStatus {
  const p = jobParameters(h);
  const running = !FINAL_STATUSES.includes(h.job_status ?? "");
  const freed = num(p.freed_space);
  const blobs = num(p.purged_blobs);
  const manifests = num(p.purged_manifests);
  return {
    id: h.id,
    status: safeText(h.job_status ?? "Unknown", 32),
    ...(h.job_kind ? { trigger: safeText(h.job_kind, 32) } : {}),
    ...(typeof p.dry_run === "boolean" ? { dryRun: p.dry_run } : {}),
    ...(h.creation_time ? { startTime: h.creation_time } : {}),
    ...(!running && h.update_time ? { endTime: h.update_time } : {}),
    ...(freed === undefined ? {} : { freedBytes: freed }),
    ...(blobs === undefined ? {} : { purgedBlobs: blobs }),
    ...(manifests === undefined ? {} : { purgedManifests: manifests }),
  };
}

/** Whether a run has not reached a final status yet. */
export function isRunning(run: GcRunStatus | undefined): boolean {
  return run !== undefined && !FINAL_STATUSES.includes(run.status);
}

/** The kind's status fields for what Harbor has. */
export function status(observed: ObservedGc): { nextScheduledTime?: string; lastRun?: GcRunStatus } {
  const run = observed.lastRun;
  return {
    // A field set to undefined is removed from status.
    nextScheduledTime: observed.schedule?.nextScheduledTime,
    lastRun: run?.id === undefined ? undefined : runStatus({ ...run, id: run.id }),
  };
}

/** How Events name the schedule: "Daily, 0 0 0 * * *", or "no schedule". */
export function describe(observed: ObservedGc): string {
  const s = observed.schedule;
  return s ? `schedule ${s.type}${s.cron ? `, ${s.cron}` : ""}` : "no schedule";
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of scheduleRequest; see shared/export.ts)

/**
 * The spec that reproduces Harbor's GC schedule: its type and cron, and its parameters where they
 * differ from the spec's defaults. No schedule (Harbor's default) is no resource: undefined.
 */
export function specFromGc(
  s: ObservedGcSchedule | undefined,
): { spec: UnnamedSpecFields<typeof HarborGarbageCollectionSpec> } | { skip: string } | undefined {
  if (!s) return undefined;
  const schedule = specSchedule(s);
  if ("skip" in schedule) return schedule;
  return {
    spec: {
      ...schedule,
      ...(s.deleteUntagged ? { deleteUntagged: true } : {}),
      ...(s.workers !== undefined && s.workers !== 1 ? { workers: s.workers } : {}),
    },
  };
}
