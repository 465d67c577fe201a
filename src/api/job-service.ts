// HarborJobService: which of a Harbor's job queues are paused, declared; one per Harbor.
import { z } from "zod";
import {
  type KindDefinition,
  managedSpec,
  managedStatus,
  NO_HIDDEN_CHARACTERS,
  withRules,
} from "./common.ts";

const JobType = withRules(
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Z][A-Z0-9_]*$/),
  NO_HIDDEN_CHARACTERS,
  {
    cel: "self != 'ALL'",
    message:
      "ALL is Harbor's word for every queue at once: list the queues to pause or keep running one by one",
    test: (v) => v !== "ALL",
  },
).describe(
  "A job type as Harbor's job service lists it, in capitals: REPLICATION, GARBAGE_COLLECTION, RETENTION, SCHEDULER, IMAGE_SCAN, WEBHOOK, SLACK, P2P_PREHEAT, PURGE_AUDIT_LOG, SYSTEM_ARTIFACT_CLEANUP, SCAN_DATA_EXPORT, EXECUTION_SWEEP, AUDIT_LOGS_GDPR_COMPLIANT (Harbor 2.12). A type Harbor does not list is reported (UnknownJobType).",
);

export const HarborJobServiceSpec = z.object({
  ...managedSpec,
  queues: z
    .array(
      z.object({
        jobType: JobType,
        paused: z
          .boolean()
          .describe(
            "true: the queue is paused (its jobs wait; running ones go on). false: it runs, and a pause made in Harbor is undone. Pausing SCHEDULER holds every scheduled task (GC, purge, replication, scan and retention schedules) until it is resumed.",
          ),
      }),
    )
    .min(1)
    .max(32)
    .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["jobType"] })
    .describe(
      "The queues whose pause state this resource keeps; queues it does not list are left as they are. Once a queue is listed, a pause or resume made in Harbor is reverted at the next drift check.",
    ),
});
export type HarborJobServiceSpec = z.output<typeof HarborJobServiceSpec>;

export const HarborJobServiceStatus = z.object({
  ...managedStatus,
  schedulerPaused: z
    .boolean()
    .optional()
    .describe(
      "Whether Harbor's SCHEDULER queue is paused: while it is, no scheduled task starts (they wait in that queue).",
    ),
  pausedQueues: z
    .string()
    .optional()
    .describe('Every queue paused in Harbor, listed here or not, as one line (e.g. "RETENTION, SCHEDULER").'),
  pools: z.number().int().optional().describe("Job-service worker pools Harbor reports."),
  workers: z
    .object({
      total: z.number().int().describe("Workers across all pools."),
      busy: z.number().int().describe("Workers running a job now."),
      idle: z.number().int().describe("Workers free to take a job."),
    })
    .optional()
    .describe("The job service's workers at the last look."),
  queues: z
    .array(
      z.object({
        jobType: z.string().describe("Harbor's job type, e.g. REPLICATION."),
        count: z.number().int().describe("Jobs waiting in the queue."),
        latency: z.number().int().describe("How long the oldest waiting job has waited, in seconds."),
        paused: z.boolean().describe("Whether the queue is paused in Harbor."),
      }),
    )
    .optional()
    .describe(
      "Every queue Harbor lists, refreshed at each drift check (and at once when the pause state changes).",
    ),
});
export type HarborJobServiceStatus = z.output<typeof HarborJobServiceStatus>;

export const harborJobService: KindDefinition<HarborJobServiceSpec, HarborJobServiceStatus> = {
  kind: "HarborJobService",
  plural: "harborjobservices",
  singular: "harborjobservice",
  shortNames: ["hjobs"],
  scope: "Namespaced",
  perHarbor: true,
  spec: HarborJobServiceSpec,
  status: HarborJobServiceStatus,
  columns: [
    { name: "Paused", type: "string", jsonPath: ".status.pausedQueues" },
    { name: "Scheduler Paused", type: "boolean", jsonPath: ".status.schedulerPaused" },
    { name: "Busy", type: "integer", jsonPath: ".status.workers.busy", description: "Busy workers." },
    { name: "Workers", type: "integer", jsonPath: ".status.workers.total", priority: 1 },
  ],
  description:
    "A Harbor's job service: the pause state of the queues it lists (for a maintenance window, say), with pools, workers and queues in status. One per Harbor (a second resource for the same Harbor gets Conflict).",
};
