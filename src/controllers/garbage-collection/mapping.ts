// HarborGarbageCollection's pure mappings: spec → Harbor's schedule request, Harbor's schedule and
// newest run → what is compared and what status shows.
//
// What Harbor 2.12 stores of a schedule (GET /system/gc/schedule): type, cron, the next time, and as
// job_parameters only delete_untagged and workers (dry_run is never part of a schedule; the server
// adds keys such as time_window to runs, which are not compared). A schedule of type None is no
// schedule at all: GET answers 200 with an empty body.
import type { GcRunStatus, HarborGarbageCollectionSpec } from "../../api/garbage-collection.ts";
import type { GcHistory, GcSchedule } from "../../harbor/garbage-collection.ts";
import {
  describeSchedule,
  isRunning,
  jobParameters,
  jobRunStatus,
  type ObservedJob,
  requestSchedule,
  scheduleDiff,
  scheduleFromHistory,
  scheduleStatus,
  specSchedule,
} from "../shared/executions.ts";
import type { UnnamedSpecFields } from "../shared/export.ts";
import type { ReleaseField } from "../shared/release-fields.ts";

export { isRunning };

/** The schedule as compared: undefined when Harbor has none. */
export interface ObservedGcSchedule {
  type: string;
  cron?: string;
  deleteUntagged?: boolean;
  workers?: number;
  nextScheduledTime?: string;
}

/** Harbor's schedule and the newest GC execution, whoever started it. */
export type ObservedGc = ObservedJob<ObservedGcSchedule, GcHistory>;

/** GET /system/gc/schedule's answer as compared; undefined when there is none. */
export function scheduleFrom(h: GcHistory | undefined): ObservedGcSchedule | undefined {
  return scheduleFromHistory(h, (p) => ({
    ...(typeof p.delete_untagged === "boolean" ? { deleteUntagged: p.delete_untagged } : {}),
    ...(typeof p.workers === "number" ? { workers: p.workers } : {}),
  }));
}

/** More GC workers than 2.12 takes: Harbor 2.13 raised its limit from 5 to 10. */
export function gcWorkersField<S extends { workers: number }>(): ReleaseField<S> {
  return {
    field: "workers",
    what: "spec.workers above 5",
    change: "gcTenWorkers",
    uses: (s) => s.workers > 5,
  };
}

export const GC_RELEASE_FIELDS: readonly ReleaseField<HarborGarbageCollectionSpec>[] = [gcWorkersField()];

/** The request that makes Harbor's schedule the spec's. */
export function scheduleRequest(spec: HarborGarbageCollectionSpec): GcSchedule {
  return {
    schedule: requestSchedule(spec.schedule),
    ...(spec.schedule.type === "None"
      ? {}
      : { parameters: { delete_untagged: spec.deleteUntagged, workers: spec.workers } }),
  };
}

/** The request that removes the schedule. */
export function noScheduleRequest(): GcSchedule {
  return { schedule: { type: "None" } };
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
  return scheduleDiff(spec.schedule, observed.schedule, (s) => [
    ...(s.deleteUntagged !== spec.deleteUntagged ? ["deleteUntagged"] : []),
    ...(s.workers !== spec.workers ? ["workers"] : []),
  ]);
}

const num = (v: unknown) => (typeof v === "number" && Number.isInteger(v) ? v : undefined);

/** One GC execution as status shows it: what every run shows, and what a successful one removed. */
export function runStatus(h: GcHistory & { id: number }): GcRunStatus {
  const p = jobParameters(h);
  const freed = num(p.freed_space);
  const blobs = num(p.purged_blobs);
  const manifests = num(p.purged_manifests);
  return {
    ...jobRunStatus(h),
    ...(freed === undefined ? {} : { freedBytes: freed }),
    ...(blobs === undefined ? {} : { purgedBlobs: blobs }),
    ...(manifests === undefined ? {} : { purgedManifests: manifests }),
  };
}

/** The kind's status fields for what Harbor has. */
export function status(observed: ObservedGc): { nextScheduledTime?: string; lastRun?: GcRunStatus } {
  return scheduleStatus(observed, runStatus);
}

/** How Events name the schedule: "schedule Daily, 0 0 0 * * *", or "no schedule". */
export const describe: (observed: ObservedGc) => string = describeSchedule;

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
