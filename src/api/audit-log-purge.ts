// HarborAuditLogPurge: a Harbor's audit-log purge schedule and parameters, one per Harbor.
import { z } from "zod";
import { PurgeOperation } from "../harbor/model/enums.ts";
import { type KindDefinition, managedSpec, managedStatus } from "./common.ts";
import { RUN_REQUESTED_ANNOTATION, runRequestStatus } from "./runs.ts";
import { scheduleSpec } from "./schedule.ts";

/** 100 years: more than anyone keeps, far below what Harbor's interval arithmetic could overflow. */
export const MAX_RETENTION_HOURS = 876_000;

export const HarborAuditLogPurgeSpec = z.object({
  ...managedSpec,
  schedule: scheduleSpec("the audit-log purge"),
  retentionHours: z
    .number()
    .int()
    .min(1)
    .max(MAX_RETENTION_HOURS)
    .describe(
      `How many hours of audit records to keep: a purge removes older ones. 1 to ${MAX_RETENTION_HOURS.toLocaleString("en")} (168 is a week, 720 thirty days).`,
    ),
  includeOperations: z
    .array(PurgeOperation)
    .min(1)
    .max(3)
    .meta({ "x-kubernetes-list-type": "set" })
    .default(["create", "delete", "pull"])
    .describe(
      "Which records a purge removes, by operation: create, delete, pull (the operations Harbor 2.12 purges; records of other operations are kept). Default all three.",
    ),
  dryRun: z
    .boolean()
    .default(false)
    .describe(
      `Purges only count the records they would remove (scheduled runs and those started with the ${RUN_REQUESTED_ANNOTATION} annotation alike).`,
    ),
});
export type HarborAuditLogPurgeSpec = z.output<typeof HarborAuditLogPurgeSpec>;

export const PurgeRunStatus = z
  .object({
    id: z.number().int().describe("Harbor's id of the purge execution (Harbor UI: Clean Up, Log Rotation)."),
    status: z.string().describe("Running, Success, Error or Stopped, as Harbor shows it."),
    trigger: z.string().optional().describe("What started it: MANUAL (a run now) or SCHEDULE."),
    dryRun: z.boolean().optional().describe("Whether the run only counted what it would remove."),
    startTime: z.string().optional().describe("When the run started (RFC 3339)."),
    endTime: z
      .string()
      .optional()
      .describe("When Harbor marked it finished (RFC 3339); absent while it runs."),
  })
  .describe(
    "The newest audit-log purge Harbor ran, scheduled or not. While it runs the operator looks again every few seconds, so its end shows within seconds; otherwise at the next drift check. Harbor's job log (Clean Up, Log Rotation) says how many records it removed.",
  );
export type PurgeRunStatus = z.output<typeof PurgeRunStatus>;

export const HarborAuditLogPurgeStatus = z.object({
  ...managedStatus,
  ...runRequestStatus,
  nextScheduledTime: z
    .string()
    .optional()
    .describe("When Harbor runs the next scheduled purge (RFC 3339); absent with type None."),
  lastRun: PurgeRunStatus.optional(),
});
export type HarborAuditLogPurgeStatus = z.output<typeof HarborAuditLogPurgeStatus>;

export const harborAuditLogPurge: KindDefinition<HarborAuditLogPurgeSpec, HarborAuditLogPurgeStatus> = {
  kind: "HarborAuditLogPurge",
  plural: "harborauditlogpurges",
  singular: "harborauditlogpurge",
  shortNames: ["halp"],
  scope: "Namespaced",
  perHarbor: true,
  spec: HarborAuditLogPurgeSpec,
  status: HarborAuditLogPurgeStatus,
  columns: [
    { name: "Schedule", type: "string", jsonPath: ".spec.schedule.type" },
    { name: "Retention", type: "integer", jsonPath: ".spec.retentionHours", description: "Hours kept." },
    { name: "Next Run", type: "string", jsonPath: ".status.nextScheduledTime" },
    { name: "Last Run", type: "string", jsonPath: ".status.lastRun.status" },
    { name: "Cron", type: "string", jsonPath: ".spec.schedule.cron", priority: 1 },
    { name: "Last Run ID", type: "integer", jsonPath: ".status.lastRun.id", priority: 1 },
  ],
  description:
    "A Harbor's audit-log purge (log rotation): schedule, retention, operations and dry run, one per Harbor (a second resource for the same Harbor gets Conflict). The annotation harborconfig.io/runRequestedAt starts one purge now.",
};
