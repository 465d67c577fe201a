// Scan all (/system/scanAll/schedule, /scans/all/metrics, /scans/schedule/metrics): the schedule of
// Harbor's "scan every artifact" job, a run now, and what the newest run did. Every call needs the
// system permission scan-all, and Harbor answers 412 ("no scanner is configured") to all of them
// while it has no default scanner.
import { z } from "zod";
import { nullAsAbsent } from "./common.ts";
import { ScheduleObj, SystemJobScheduleType } from "./system-job.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

/** GET /system/scanAll/schedule: type and cron (no next time, unlike GC's); an empty body when none. */
export const ScanAllSchedule = z.object({
  id: z.number().int().optional(),
  status: z.string().optional(),
  creation_time: z.string().optional(),
  update_time: z.string().optional(),
  schedule: nullAsAbsent(ScheduleObj),
});
export type ScanAllSchedule = z.output<typeof ScanAllSchedule>;

/** The body of a schedule change or a run now. */
export const ScanAllScheduleReq = z.object({
  schedule: z.object({
    type: SystemJobScheduleType,
    cron: z.string().optional(),
  }),
});
export type ScanAllScheduleReq = z.input<typeof ScanAllScheduleReq>;

/**
 * The newest scan-all run's progress (Harbor's Stats): empty ({}) when Harbor never ran one, else
 * total and completed scans, counts by status, whether it is still going, and its trigger.
 */
export const ScanAllStats = z.object({
  total: z.number().int().optional(),
  completed: z.number().int().optional(),
  metrics: nullAsAbsent(z.record(z.string(), z.number().int())),
  ongoing: z.boolean().optional(),
  /** Manual, Schedule or Event. */
  trigger: z.string().optional(),
});
export type ScanAllStats = z.output<typeof ScanAllStats>;

export class ScanAllApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** getScanAllSchedule: undefined when Harbor has no schedule. */
  async getSchedule(opts?: CallOptions): Promise<ScanAllSchedule | undefined> {
    const s = await this.#t.jsonOrEmpty(
      { ...opts, operation: "getScanAllSchedule", method: "GET", path: "/system/scanAll/schedule" },
      ScanAllSchedule,
    );
    const type = s?.schedule?.type;
    return type && type !== "None" ? s : undefined;
  }

  /**
   * updateScanAllSchedule: None removes the schedule, a cron type replaces it (Harbor keeps the
   * schedule when type and cron are unchanged). Manual is refused here (400): use runNow.
   */
  updateSchedule(req: ScanAllScheduleReq, opts?: CallOptions): Promise<void> {
    const body = ScanAllScheduleReq.parse(req);
    return this.#t.noContent({
      ...opts,
      operation: "updateScanAllSchedule",
      method: "PUT",
      path: "/system/scanAll/schedule",
      body,
    });
  }

  /**
   * createScanAllSchedule with type Manual: starts a scan of every artifact now. Harbor answers 201
   * without naming the run (its API shows no scan-all execution ids), and 409 while a manual scan
   * all is still going.
   */
  runNow(opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "createScanAllSchedule",
      method: "POST",
      path: "/system/scanAll/schedule",
      body: { schedule: { type: "Manual" } },
    });
  }

  /** getLatestScanAllMetrics: the newest run, whoever started it ({} when none). */
  metrics(opts?: CallOptions): Promise<ScanAllStats> {
    return this.#t.json(
      { ...opts, operation: "getLatestScanAllMetrics", method: "GET", path: "/scans/all/metrics" },
      ScanAllStats,
    );
  }

  /** getLatestScheduledScanAllMetrics (deprecated in Harbor, still served): the newest scheduled run. */
  scheduledMetrics(opts?: CallOptions): Promise<ScanAllStats> {
    return this.#t.json(
      {
        ...opts,
        operation: "getLatestScheduledScanAllMetrics",
        method: "GET",
        path: "/scans/schedule/metrics",
      },
      ScanAllStats,
    );
  }
}
