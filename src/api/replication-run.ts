// HarborReplicationRun: one execution of a HarborReplicationPolicy, started once and followed to its
// end.
import { z } from "zod";
import { type KindDefinition, LocalObjectReference } from "./common.ts";
import { immutableRunFields, PHASE_COLUMN, RUN_TIME_COLUMNS, runSpec, runStatus } from "./run.ts";

export const HarborReplicationRunSpec = z.object({
  ...runSpec,
  policyRef: LocalObjectReference.describe(
    "The HarborReplicationPolicy to run once, in this namespace and through the same connection. The run waits until the policy is Ready, and while the policy is disabled in Harbor (Harbor refuses to run a disabled policy) until it is enabled.",
  ),
});
export type HarborReplicationRunSpec = z.output<typeof HarborReplicationRunSpec>;

export const HarborReplicationRunStatus = z.object({
  ...runStatus,
  policyId: z
    .number()
    .int()
    .optional()
    .describe("The Harbor id of the replication policy the execution belongs to."),
  statusText: z
    .string()
    .optional()
    .describe(
      'Harbor\'s words on the outcome, e.g. "no resources need to be replicated", why the whole execution failed, or why Harbor skipped it.',
    ),
  total: z.number().int().optional().describe("Tasks in the execution: one per repository and operation."),
  succeeded: z.number().int().optional().describe("Tasks that succeeded."),
  failed: z.number().int().optional().describe("Tasks that failed; failedTasks shows the newest of them."),
  inProgress: z.number().int().optional().describe("Tasks pending or running."),
  stopped: z.number().int().optional().describe("Tasks stopped before they finished."),
  failedTasks: z
    .array(
      z.object({
        id: z.number().int().describe("Harbor's id of the task."),
        operation: z.string().optional().describe("copy or deletion."),
        source: z
          .string()
          .optional()
          .describe('What the task replicated from, e.g. "library/nginx [3 item(s) in total]".'),
        destination: z.string().optional().describe("Where it replicated to."),
        endTime: z.string().optional().describe("When the task ended (RFC 3339)."),
        log: z
          .array(z.string())
          .optional()
          .describe(
            "The last lines of the task's job log (at most 10 lines of at most 256 characters): usually why it failed.",
          ),
      }),
    )
    .optional()
    .describe(
      "The newest failed tasks (at most 5) with the end of their logs, read once when the execution ended. Harbor UI: Replications > the policy > the execution lists every task.",
    ),
});
export type HarborReplicationRunStatus = z.output<typeof HarborReplicationRunStatus>;

export const harborReplicationRun: KindDefinition<HarborReplicationRunSpec, HarborReplicationRunStatus> = {
  kind: "HarborReplicationRun",
  plural: "harborreplicationruns",
  singular: "harborreplicationrun",
  shortNames: ["hreprun"],
  scope: "Namespaced",
  lifecycle: "run",
  spec: HarborReplicationRunSpec,
  status: HarborReplicationRunStatus,
  specValidations: immutableRunFields([
    { field: "connectionRef", shown: ".name" },
    { field: "policyRef", shown: ".name" },
  ]),
  columns: [
    PHASE_COLUMN,
    { name: "Policy", type: "string", jsonPath: ".spec.policyRef.name", description: "The policy it runs." },
    {
      name: "Succeeded",
      type: "integer",
      jsonPath: ".status.succeeded",
      description: "Tasks that succeeded.",
    },
    { name: "Failed", type: "integer", jsonPath: ".status.failed", description: "Tasks that failed." },
    {
      name: "Total",
      type: "integer",
      jsonPath: ".status.total",
      priority: 1,
      description: "Tasks in the execution.",
    },
    ...RUN_TIME_COLUMNS,
  ],
  description:
    "One execution of a HarborReplicationPolicy: started once, followed to its end; phase, times, task counts and the newest failed tasks with their logs in status. Deleting it while it runs stops the execution.",
};
