// `replication`: executions of replication policies, their tasks and task logs, and stopping one.
import { HARBOR_OPTIONS } from "../auth.ts";
import { argValue, flagString, flagValue, type GroupSpec, harborId, oneOf, wholeNumber } from "../command.ts";
import { confirm, formatOf, OUTPUT_OPTIONS, print, withHarbor, YES_OPTION } from "../context.ts";
import { EXIT } from "../errors.ts";
import { list, printable, record, structured } from "../output.ts";
import { idOf, time } from "./shared.ts";

const EXECUTION = { name: "EXECUTION", help: "the execution's id" };
const STATUSES = ["InProgress", "Succeed", "Failed", "Stopped"] as const;

export const replicationGroup: GroupSpec = {
  name: "replication",
  summary: "Replication executions, their tasks and logs; stop an execution",
  commands: [
    {
      name: "executions",
      summary: "Executions of every policy or of one, newest first",
      options: [
        { name: "policy", arg: "NAME|ID", help: "only this policy's executions" },
        { name: "status", arg: "STATUS", help: STATUSES.join(", ") },
        { name: "limit", arg: "N", help: "at most N executions", default: "20" },
        ...OUTPUT_OPTIONS,
        ...HARBOR_OPTIONS,
      ],
      run: (inv) => {
        const status = flagValue(inv, "status", oneOf(STATUSES));
        const limit = flagValue(inv, "limit", wholeNumber(1, 100_000), "20");
        return withHarbor(inv, async (h) => {
          const policy = flagString(inv, "policy");
          const signal = inv.io.signal;
          const policyId = policy
            ? await idOf(policy, "replication policy", (name) =>
                h.client.replication.listPolicies({ name }, { signal }),
              )
            : undefined;
          const executions = await h.client.replication.listExecutions(
            {
              ...(policyId === undefined ? {} : { policyId }),
              ...(status ? { status } : {}),
              sort: "-start_time",
              limit,
            },
            { signal },
          );
          print(
            inv,
            list(
              executions,
              [
                { header: "id", value: (e) => e.id },
                { header: "policy", value: (e) => e.policy_id },
                { header: "status", value: (e) => e.status },
                { header: "trigger", value: (e) => e.trigger },
                { header: "started", value: (e) => time(e.start_time) },
                { header: "ended", value: (e) => time(e.end_time) },
                {
                  header: "tasks",
                  value: (e) => `${e.succeed ?? 0}/${e.total ?? 0} ok, ${e.failed ?? 0} failed`,
                },
              ],
              formatOf(inv),
              "no executions",
            ),
          );
          return EXIT.ok;
        });
      },
    },
    {
      name: "tasks",
      summary: "The tasks of an execution (one per repository and operation)",
      args: [EXECUTION],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) => {
        const id = argValue(inv, 0, "EXECUTION", harborId);
        return withHarbor(inv, async (h) => {
          const tasks = await h.client.replication.listTasks(id, {}, { signal: inv.io.signal });
          print(
            inv,
            list(
              tasks,
              [
                { header: "id", value: (t) => t.id },
                { header: "status", value: (t) => t.status },
                { header: "operation", value: (t) => t.operation },
                { header: "source", value: (t) => t.src_resource },
                { header: "destination", value: (t) => t.dst_resource },
                { header: "started", value: (t) => time(t.start_time) },
                { header: "ended", value: (t) => time(t.end_time) },
              ],
              formatOf(inv),
              "no tasks",
            ),
          );
          return EXIT.ok;
        });
      },
    },
    {
      name: "log",
      summary: "A task's job log, as Harbor keeps it",
      args: [EXECUTION, { name: "TASK", help: "the task's id (see `replication tasks`)" }],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) => {
        const execution = argValue(inv, 0, "EXECUTION", harborId);
        const task = argValue(inv, 1, "TASK", harborId);
        return withHarbor(inv, async (h) => {
          const log = await h.client.replication.getTaskLog(execution, task, { signal: inv.io.signal });
          const format = formatOf(inv);
          print(
            inv,
            format === "table"
              ? printable(log.endsWith("\n") || log === "" ? log : `${log}\n`)
              : structured({ execution, task, log }, format),
          );
          return EXIT.ok;
        });
      },
    },
    {
      name: "stop",
      summary: "Stop a running execution (asks first unless --yes)",
      args: [EXECUTION],
      options: [YES_OPTION, ...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) => {
        const id = argValue(inv, 0, "EXECUTION", harborId);
        return withHarbor(inv, async (h) => {
          const signal = inv.io.signal;
          const e = await h.client.replication.getExecution(id, { signal });
          await confirm(
            inv,
            `Stop replication execution ${id} (policy ${e.policy_id}, ${e.status ?? "status unknown"})?`,
          );
          await h.client.replication.stop(id, { signal });
          const after = await h.client.replication.getExecution(id, { signal });
          print(
            inv,
            record(
              [
                ["execution", id],
                ["status", after.status],
              ],
              { execution: id, status: after.status },
              formatOf(inv),
            ),
          );
          return EXIT.ok;
        });
      },
    },
  ],
};
