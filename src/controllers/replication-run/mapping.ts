// HarborReplicationRun ⇄ a Harbor replication execution, as pure functions: what an execution means
// for the run, and how a failed task is shown.
import type { HarborReplicationRunStatus } from "../../api/replication-run.ts";
import type { PersistedReplicationExecution, PersistedReplicationTask } from "../../harbor/replication.ts";
import { safeText } from "../../kube/text.ts";
import type { RunOutcome } from "../../runtime/run-external.ts";
import { logTail } from "../gc-run/mapping.ts";
import { executionStatus, isRunning } from "../replication/mapping.ts";

/** How many failed tasks status shows, and how many lines of each one's log. */
export const FAILED_TASKS = 5;
export const TASK_LOG_LINES = 10;

/**
 * How Harbor (2.13 and later, with single_active_replication on the policy) records a start while
 * another execution of the policy runs: an execution marked Failed at once with this text.
 */
const SKIPPED_TEXT = /^Execution skipped/i;

/** Whether Harbor skipped the execution rather than ran it. */
export function wasSkipped(e: PersistedReplicationExecution): boolean {
  return e.status === "Failed" && SKIPPED_TEXT.test(e.status_text ?? "");
}

/** What an execution means for the run: its phase, a message, and the status fields. */
export function replicationOutcome(
  e: PersistedReplicationExecution,
  policy: string,
): RunOutcome<HarborReplicationRunStatus> {
  const s = executionStatus(e);
  const status: Partial<HarborReplicationRunStatus> = {
    ...(e.policy_id === undefined ? {} : { policyId: e.policy_id }),
    statusText: s.statusText,
    total: s.total,
    succeeded: s.succeeded,
    failed: s.failed,
    inProgress: s.inProgress,
    stopped: s.stopped,
    startTime: s.startTime,
    completionTime: isRunning(e) ? undefined : s.endTime,
  };
  const what = `Replication execution ${e.id} of policy ${policy}`;
  const total = e.total ?? 0;
  const counts = [
    `${e.succeed ?? 0} of ${total} tasks succeeded`,
    ...(e.failed ? [`${e.failed} failed`] : []),
    ...(e.stopped ? [`${e.stopped} stopped`] : []),
  ].join(", ");
  const said = e.status_text ? `: ${safeText(e.status_text, 512)}` : "";
  switch (e.status) {
    case "Succeed":
      return { phase: "Succeeded", message: `${what} succeeded: ${counts}${said}`, status };
    case "Stopped":
      return { phase: "Stopped", message: `${what} was stopped: ${counts}${said}`, status };
    case "Failed":
      if (wasSkipped(e))
        return {
          phase: "Skipped",
          message: `Harbor skipped ${what.charAt(0).toLowerCase()}${what.slice(1)}: another execution of the policy was still running (the policy allows one at a time)${said}. Nothing was replicated; create another run to try again`,
          status,
        };
      return {
        phase: "Failed",
        message: `${what} failed: ${counts}${said}${e.failed ? ". status.failedTasks shows the newest failed tasks and the end of their logs" : ""}`,
        status,
      };
    default: {
      const done = (e.succeed ?? 0) + (e.failed ?? 0) + (e.stopped ?? 0);
      return {
        phase: "Running",
        message: `${what} is running: ${done} of ${total} tasks done`,
        status,
      };
    }
  }
}

/** A failed task as status shows it, with the end of its log (when Harbor had one). */
export function failedTask(
  t: PersistedReplicationTask,
  log: string | undefined,
): NonNullable<HarborReplicationRunStatus["failedTasks"]>[number] {
  const clean = (v: string | undefined) => (v ? safeText(v, 512) : undefined);
  const fields = {
    id: t.id,
    operation: clean(t.operation),
    source: clean(t.src_resource),
    destination: clean(t.dst_resource),
    endTime: t.end_time && !/^0001-01-01T/.test(t.end_time) ? t.end_time : undefined,
    log: log === undefined ? undefined : logTail(log, TASK_LOG_LINES),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as typeof fields & {
    id: number;
  };
}
