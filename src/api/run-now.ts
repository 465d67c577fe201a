// "Run now" on a declarative resource (HarborGarbageCollection, HarborAuditLogPurge,
// HarborReplicationPolicy), in Flux's `reconcile.fluxcd.io/requestedAt` convention: set the
// annotation to a new value (a timestamp, say) and the operator starts exactly one run for it, then
// records the value it handled in status.lastHandledRunAt. The same value again starts nothing.
import { z } from "zod";

/** `harborconfig.io/runRequestedAt: "<any new value>"` starts one run of the resource's job. */
export const RUN_REQUESTED_ANNOTATION = "harborconfig.io/runRequestedAt";

export const RunRequest = z
  .object({
    requestedAt: z
      .string()
      .describe(`The value of the ${RUN_REQUESTED_ANNOTATION} annotation this record is for.`),
    afterExecutionId: z
      .number()
      .int()
      .describe(
        "The newest execution Harbor had before the operator started this one (0: none), recorded before the start: an operator that crashed between starting the run and recording it takes the first manual execution after this id as the one it started, instead of starting a second.",
      ),
    executionId: z
      .number()
      .int()
      .optional()
      .describe("Harbor's id of the execution started for the request; absent while it is being started."),
    time: z.string().optional().describe("When the operator started the run or refused it (RFC 3339)."),
    refused: z
      .string()
      .optional()
      .describe(
        "Why no run was started for this value, e.g. a replication policy that is disabled; set a new value to ask again.",
      ),
  })
  .describe(
    `The handling of the latest ${RUN_REQUESTED_ANNOTATION} value: recorded before the run starts, completed with the execution's id.`,
  );
export type RunRequest = z.output<typeof RunRequest>;

/** The status fields of a kind that takes the annotation. */
export const runRequestStatus = {
  lastHandledRunAt: z
    .string()
    .optional()
    .describe(
      `The value of the ${RUN_REQUESTED_ANNOTATION} annotation last handled: a run was started for it (runRequest.executionId), or refused (runRequest.refused). Equal to the annotation once your request is handled, as Flux's lastHandledReconcileAt.`,
    ),
  runRequest: RunRequest.optional(),
};
