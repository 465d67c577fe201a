// `gc`: garbage collection runs, their logs, and stopping one.
import { HARBOR_OPTIONS } from "../auth.ts";
import { argValue, flagValue, type GroupSpec, harborId, wholeNumber } from "../command.ts";
import { confirm, formatOf, OUTPUT_OPTIONS, print, withHarbor, YES_OPTION } from "../context.ts";
import { EXIT } from "../errors.ts";
import { list, printable, record, structured } from "../output.ts";

const RUN = { name: "RUN", help: "the run's id (see `gc history`)" };

export const gcGroup: GroupSpec = {
  name: "gc",
  summary: "Garbage collection runs and their logs; stop a run",
  commands: [
    {
      name: "history",
      summary: "Garbage collection runs, newest first",
      options: [
        { name: "limit", arg: "N", help: "at most N runs", default: "20" },
        ...OUTPUT_OPTIONS,
        ...HARBOR_OPTIONS,
      ],
      run: (inv) => {
        const limit = flagValue(inv, "limit", wholeNumber(1, 100_000), "20");
        return withHarbor(inv, async (h) => {
          const runs = await h.client.gc.listHistory(
            { sort: "-creation_time", limit },
            { signal: inv.io.signal },
          );
          print(
            inv,
            list(
              runs,
              [
                { header: "id", value: (r) => r.id },
                { header: "kind", value: (r) => r.job_kind },
                { header: "status", value: (r) => r.job_status },
                { header: "created", value: (r) => r.creation_time },
                { header: "updated", value: (r) => r.update_time },
                { header: "parameters", value: (r) => r.job_parameters },
              ],
              formatOf(inv),
              "no garbage collection runs",
            ),
          );
          return EXIT.ok;
        });
      },
    },
    {
      name: "log",
      summary: "A run's log, as Harbor keeps it",
      args: [RUN],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) => {
        const id = argValue(inv, 0, "RUN", harborId);
        return withHarbor(inv, async (h) => {
          const log = await h.client.gc.getLog(id, { signal: inv.io.signal });
          const format = formatOf(inv);
          print(
            inv,
            format === "table"
              ? printable(log.endsWith("\n") || log === "" ? log : `${log}\n`)
              : structured({ run: id, log }, format),
          );
          return EXIT.ok;
        });
      },
    },
    {
      name: "stop",
      summary: "Stop a running garbage collection (asks first unless --yes)",
      args: [RUN],
      options: [YES_OPTION, ...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) => {
        const id = argValue(inv, 0, "RUN", harborId);
        return withHarbor(inv, async (h) => {
          const signal = inv.io.signal;
          const run = await h.client.gc.get(id, { signal });
          await confirm(inv, `Stop garbage collection run ${id} (${run.job_status ?? "status unknown"})?`);
          await h.client.gc.stop(id, { signal });
          const after = await h.client.gc.get(id, { signal });
          print(
            inv,
            record(
              [
                ["run", id],
                ["status", after.job_status],
              ],
              { run: id, status: after.job_status },
              formatOf(inv),
            ),
          );
          return EXIT.ok;
        });
      },
    },
  ],
};
