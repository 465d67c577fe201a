// HarborAuditLogPurge: a Harbor's audit-log purge schedule and parameters, one per Harbor.
import { z } from "zod";
import { PurgeOperation } from "../harbor/model/enums.ts";
import { type KindDefinition, managedSpec, managedStatus, type StringRule, withRules } from "./common.ts";
import { RUN_REQUESTED_ANNOTATION, runRequestStatus } from "./run-now.ts";
import { scheduleSpec } from "./schedule.ts";

/** An event type's name as Harbor writes them: lower-case words joined by "_" (create_artifact). */
const EVENT_TYPE_NAME: StringRule = {
  cel: "self.matches('^[a-z0-9]+(_[a-z0-9]+)*$')",
  message: "an event type is lower-case words joined by _, as Harbor lists them (e.g. create_artifact)",
  test: (v) => /^[a-z0-9]+(_[a-z0-9]+)*$/.test(v),
};

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
    .optional()
    .describe(
      "Harbor 2.12: which records a purge removes, by operation: create, delete, pull (records of other operations are kept). Unset: all three. Harbor 2.13 and later purge by event type instead: there the resource is refused (UnsupportedByHarbor) until includeEventTypes takes its place.",
    ),
  includeEventTypes: z
    .array(withRules(z.string().min(1).max(64), EVENT_TYPE_NAME))
    .min(1)
    .max(64)
    .meta({ "x-kubernetes-list-type": "set" })
    .optional()
    .describe(
      "Harbor 2.13 and later: which records a purge removes, by event type as Harbor lists them (GET /auditlog-exts/events, e.g. create_artifact, delete_artifact, pull_artifact, create_project, delete_project, delete_repository, create_user, update_configuration). A name Harbor does not list is refused (UnknownEventType, naming the valid ones). Unset: every event type Harbor lists. Refused on Harbor 2.12 (UnsupportedByHarbor): use includeOperations there.",
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
  specValidations: [
    {
      rule: "!has(self.includeOperations) || !has(self.includeEventTypes)",
      message:
        "includeOperations (Harbor 2.12) and includeEventTypes (Harbor 2.13 and later) exclude each other: set the one of the connected Harbor's release",
      fieldPath: ".includeEventTypes",
    },
  ],
  columns: [
    { name: "Schedule", type: "string", jsonPath: ".spec.schedule.type" },
    { name: "Retention", type: "integer", jsonPath: ".spec.retentionHours", description: "Hours kept." },
    { name: "Next Run", type: "string", jsonPath: ".status.nextScheduledTime" },
    { name: "Last Run", type: "string", jsonPath: ".status.lastRun.status" },
    { name: "Cron", type: "string", jsonPath: ".spec.schedule.cron", priority: 1 },
    { name: "Last Run ID", type: "integer", jsonPath: ".status.lastRun.id", priority: 1 },
  ],
  description:
    "A Harbor's audit-log purge (log rotation): schedule, retention, what it purges (operations on Harbor 2.12, event types from 2.13) and dry run, one per Harbor (a second resource for the same Harbor gets Conflict). The annotation harborconfig.io/runRequestedAt starts one purge now.",
};
