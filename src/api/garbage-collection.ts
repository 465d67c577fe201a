// HarborGarbageCollection: a Harbor's garbage-collection schedule and parameters, one per Harbor.
import { z } from "zod";
import { type KindDefinition, managedSpec, managedStatus } from "./common.ts";
import { RUN_REQUESTED_ANNOTATION, runRequestStatus } from "./run-now.ts";
import { scheduleSpec } from "./schedule.ts";

export const HarborGarbageCollectionSpec = z.object({
  ...managedSpec,
  schedule: scheduleSpec("garbage collection"),
  deleteUntagged: z
    .boolean()
    .default(false)
    .describe(
      'Also delete untagged artifacts (manifests no tag points at), as Harbor\'s "Allow garbage collection on untagged artifacts".',
    ),
  workers: z
    .number()
    .int()
    .min(1)
    .max(10)
    .default(1)
    .describe(
      "How many workers delete blobs in parallel: 1 to 10 on Harbor 2.13 and later, 1 to 5 before (Harbor's limits). Default 1.",
    ),
  dryRun: z
    .boolean()
    .default(false)
    .describe(
      `Runs started with the ${RUN_REQUESTED_ANNOTATION} annotation only report what they would free. Harbor 2.12 ignores dry_run for its scheduled runs (they always delete), so this never reaches the schedule.`,
    ),
});
export type HarborGarbageCollectionSpec = z.output<typeof HarborGarbageCollectionSpec>;

/** One GC execution as status shows it (the newest, whoever started it). */
export const GcRunStatus = z
  .object({
    id: z.number().int().describe("Harbor's id of the GC execution (Harbor UI: Clean Up, GC History)."),
    status: z
      .string()
      .describe(
        "Running, Success, Error or Stopped, as Harbor shows it (Harbor 2.12 shows a run Running for about 25 s after its job ended).",
      ),
    trigger: z.string().optional().describe("What started it: MANUAL (a run now) or SCHEDULE."),
    dryRun: z.boolean().optional().describe("Whether the run only reported what it would free."),
    startTime: z.string().optional().describe("When the run started (RFC 3339)."),
    endTime: z
      .string()
      .optional()
      .describe("When Harbor marked it finished (RFC 3339); absent while it runs."),
    freedBytes: z
      .number()
      .int()
      .optional()
      .describe(
        "Space the run freed (or, dry, would free), in bytes, as Harbor estimates it; on success only.",
      ),
    purgedBlobs: z.number().int().optional().describe("Blobs the run deleted (or would delete)."),
    purgedManifests: z.number().int().optional().describe("Manifests the run deleted (or would delete)."),
  })
  .describe(
    "The newest garbage collection Harbor ran, scheduled or not. While it runs the operator looks again every few seconds, so its end shows within seconds; otherwise at the next drift check.",
  );
export type GcRunStatus = z.output<typeof GcRunStatus>;

export const HarborGarbageCollectionStatus = z.object({
  ...managedStatus,
  ...runRequestStatus,
  nextScheduledTime: z
    .string()
    .optional()
    .describe("When Harbor runs the next scheduled garbage collection (RFC 3339); absent with type None."),
  lastRun: GcRunStatus.optional(),
});
export type HarborGarbageCollectionStatus = z.output<typeof HarborGarbageCollectionStatus>;

export const harborGarbageCollection: KindDefinition<
  HarborGarbageCollectionSpec,
  HarborGarbageCollectionStatus
> = {
  kind: "HarborGarbageCollection",
  plural: "harborgarbagecollections",
  singular: "harborgarbagecollection",
  shortNames: ["hgc"],
  scope: "Namespaced",
  perHarbor: true,
  spec: HarborGarbageCollectionSpec,
  status: HarborGarbageCollectionStatus,
  columns: [
    { name: "Schedule", type: "string", jsonPath: ".spec.schedule.type" },
    { name: "Next Run", type: "string", jsonPath: ".status.nextScheduledTime" },
    { name: "Last Run", type: "string", jsonPath: ".status.lastRun.status" },
    { name: "Cron", type: "string", jsonPath: ".spec.schedule.cron", priority: 1 },
    { name: "Last Run ID", type: "integer", jsonPath: ".status.lastRun.id", priority: 1 },
  ],
  description:
    "A Harbor's garbage-collection schedule and parameters: one per Harbor (a second resource for the same Harbor gets Conflict). The annotation harborconfig.io/runRequestedAt starts one run now.",
};
