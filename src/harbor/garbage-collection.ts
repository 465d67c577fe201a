// Garbage collection (/system/gc): the schedule, manual runs, history, logs, stop. Every call needs
// the system permission garbage-collection.
import { z } from "zod";
import {
  ExecHistory,
  ScheduleObj,
  SystemJobApi,
  SystemJobScheduleType,
  scheduleRequest,
} from "./system-job.ts";
import type { HarborTransport } from "./transport.ts";

export { ScheduleObj };

/** Schedule types; "Schedule" is accepted by Harbor and does nothing. */
export const GcScheduleType = SystemJobScheduleType;
export type GcScheduleType = SystemJobScheduleType;

/**
 * A GC run (or, from getSchedule, the schedule in the same shape). job_parameters is e.g.
 * {"delete_untagged":true,"dry_run":false,…}; a successful run gains freed_space, purged_blobs and
 * purged_manifests once it shows Success. Harbor 2.12 keeps a run Running for about 25 s after its
 * job has ended.
 */
export const GcHistory = ExecHistory;
export type GcHistory = ExecHistory;

export const GcParameters = z.looseObject({
  delete_untagged: z.boolean().optional(),
  dry_run: z.boolean().optional(),
  /** 1 to 10 from Harbor 2.13, 1 to 5 before (Harbor answers 400 above its limit). */
  workers: z.number().int().min(1).max(10).optional(),
});

export const GcSchedule = scheduleRequest(GcParameters.optional());
export type GcSchedule = z.input<typeof GcSchedule>;

/** What a GC run's job_parameters say it removed: set once the run shows Success. */
export interface GcResult {
  /** Bytes freed (for a dry run: that would be freed). */
  freedSpace?: number;
  purgedBlobs?: number;
  purgedManifests?: number;
}

/**
 * A GC run's job_parameters, which Harbor sends as a JSON string: the parameters it ran with and,
 * once it succeeded, what it removed. Undefined fields when the string is missing or not JSON.
 */
export function gcRunParameters(run: GcHistory): {
  deleteUntagged?: boolean;
  dryRun?: boolean;
  workers?: number;
} & GcResult {
  let p: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(run.job_parameters ?? "");
    p = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
  } catch {
    p = {};
  }
  const bool = (v: unknown) => (typeof v === "boolean" ? v : undefined);
  const int = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : undefined);
  const out = {
    deleteUntagged: bool(p.delete_untagged),
    dryRun: bool(p.dry_run),
    workers: int(p.workers),
    freedSpace: int(p.freed_space),
    purgedBlobs: int(p.purged_blobs),
    purgedManifests: int(p.purged_manifests),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** GC's history, runs, logs, schedule and stop (the system permission garbage-collection). */
export class GcApi extends SystemJobApi<typeof GcHistory, typeof GcSchedule> {
  constructor(transport: HarborTransport) {
    super(transport, {
      base: "/system/gc",
      operations: {
        list: { operation: "getGCHistory" },
        get: { operation: "getGC" },
        log: { operation: "getGCLog" },
        getSchedule: { operation: "getGCSchedule" },
        createSchedule: { operation: "createGCSchedule" },
        updateSchedule: { operation: "updateGCSchedule" },
        stop: { operation: "stopGC" },
      },
      run: GcHistory,
      schedule: GcSchedule,
    });
  }
}
