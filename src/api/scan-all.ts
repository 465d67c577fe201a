// HarborScanAll: the schedule of Harbor's "scan every artifact" job (Interrogation Services >
// Vulnerability), one per Harbor, with "run now" (the harborconfig.io/runRequestedAt annotation)
// and the newest runs' progress in status.
import { z } from "zod";
import { type KindDefinition, managedSpec, managedStatus } from "./common.ts";
import { RUN_REQUESTED_ANNOTATION, runRequestStatus } from "./run-now.ts";
import { scheduleSpec } from "./schedule.ts";

export const HarborScanAllSpec = z.object({
  ...managedSpec,
  schedule: scheduleSpec("a scan of every artifact"),
});
export type HarborScanAllSpec = z.output<typeof HarborScanAllSpec>;

/** The progress of one scan-all run, as Harbor's metrics show it. */
export const ScanAllRunStatus = z
  .object({
    trigger: z.string().optional().describe("What started it: Manual (a run now) or Schedule."),
    ongoing: z.boolean().describe("Whether scans of the run are still pending or running."),
    total: z.number().int().describe("How many artifact scans the run started."),
    completed: z.number().int().describe("How many of them ended (succeeded, failed or stopped)."),
    succeeded: z.number().int().optional().describe("Scans that succeeded."),
    failed: z.number().int().optional().describe("Scans that failed."),
    stopped: z.number().int().optional().describe("Scans stopped before they ended."),
  })
  .describe(
    "A scan-all run as Harbor's metrics show it. Harbor names no run by id: it shows the newest run's progress only. While a run goes the operator looks again every few seconds; otherwise at the next drift check.",
  );
export type ScanAllRunStatus = z.output<typeof ScanAllRunStatus>;

export const HarborScanAllStatus = z.object({
  ...managedStatus,
  ...runRequestStatus,
  lastRun: ScanAllRunStatus.optional().describe(
    "The newest scan-all run, whoever started it (GET /scans/all/metrics); absent before Harbor ran one.",
  ),
  lastScheduledRun: ScanAllRunStatus.optional().describe(
    "The newest run the schedule started (GET /scans/schedule/metrics); absent before the schedule ran.",
  ),
});
export type HarborScanAllStatus = z.output<typeof HarborScanAllStatus>;

export const harborScanAll: KindDefinition<HarborScanAllSpec, HarborScanAllStatus> = {
  kind: "HarborScanAll",
  plural: "harborscanalls",
  singular: "harborscanall",
  shortNames: ["hscanall"],
  scope: "Namespaced",
  perHarbor: true,
  spec: HarborScanAllSpec,
  status: HarborScanAllStatus,
  columns: [
    { name: "Schedule", type: "string", jsonPath: ".spec.schedule.type" },
    { name: "Scanning", type: "boolean", jsonPath: ".status.lastRun.ongoing" },
    { name: "Scanned", type: "integer", jsonPath: ".status.lastRun.completed" },
    { name: "Cron", type: "string", jsonPath: ".spec.schedule.cron", priority: 1 },
    { name: "Total", type: "integer", jsonPath: ".status.lastRun.total", priority: 1 },
  ],
  description: `The schedule on which Harbor scans every artifact with its default scanner: one per Harbor (a second resource for the same Harbor gets Conflict). The annotation ${RUN_REQUESTED_ANNOTATION} starts one scan of everything now.`,
};
