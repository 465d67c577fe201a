// `jobservice`: Harbor's job service — worker pools, workers, queues; pause, resume or stop a
// queue, stop a running job.
import { ALL, type JobQueue, type QueueAction } from "../../harbor/job-service.ts";
import { HARBOR_OPTIONS } from "../auth.ts";
import type { CommandSpec, GroupSpec } from "../command.ts";
import { confirm, formatOf, OUTPUT_OPTIONS, print, withHarbor, YES_OPTION } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import { type Format, list, record } from "../output.ts";

const JOB_TYPE = {
  name: "JOB_TYPE",
  help: `a job type as \`jobservice queues\` lists it (e.g. REPLICATION), or "${ALL}"`,
};

function queueAction(action: QueueAction, summary: string, destructive: boolean): CommandSpec {
  const name = action === "stop" ? "stop-queue" : action;
  return {
    name,
    summary,
    args: [JOB_TYPE],
    options: [...(destructive ? [YES_OPTION] : []), ...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
    run: (inv) =>
      withHarbor(inv, async (h) => {
        const type = inv.args[0] as string;
        const signal = inv.io.signal;
        // An unknown type is refused here: Harbor would answer a bare 500 or do nothing.
        const queues = await h.client.jobService.listQueues({ signal });
        const known = queues.map((q) => q.job_type ?? "");
        if (type.toLowerCase() !== ALL && !known.some((k) => k.toLowerCase() === type.toLowerCase())) {
          throw new CliError(
            `Harbor's job service has no queue "${type}" (it has ${known.join(", ") || "none"})`,
          );
        }
        if (destructive)
          await confirm(inv, `Stop every waiting job of the ${type} queue (they are dropped)?`);
        await h.client.jobService.actOnQueue(type, action, { signal });
        const after = (await h.client.jobService.listQueues({ signal })).filter(
          (q) => type.toLowerCase() === ALL || (q.job_type ?? "").toLowerCase() === type.toLowerCase(),
        );
        print(inv, queuesList(after, formatOf(inv)));
        return EXIT.ok;
      }),
  };
}

function queuesList(queues: readonly JobQueue[], format: Format): string {
  return list(
    queues,
    [
      { header: "job type", value: (q) => q.job_type },
      { header: "waiting", value: (q) => q.count ?? 0 },
      { header: "latency (s)", value: (q) => q.latency ?? 0 },
      { header: "paused", value: (q) => q.paused ?? false },
    ],
    format,
    "no queues",
  );
}

export const jobServiceGroup: GroupSpec = {
  name: "jobservice",
  summary: "Job-service pools, workers and queues; pause, resume or stop a queue, stop a job",
  commands: [
    {
      name: "pools",
      summary: "The job service's worker pools",
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const pools = await h.client.jobService.listPools({ signal: inv.io.signal });
          print(
            inv,
            list(
              pools,
              [
                { header: "pool", value: (p) => p.worker_pool_id },
                { header: "host", value: (p) => p.host },
                { header: "pid", value: (p) => p.pid },
                { header: "concurrency", value: (p) => p.concurrency },
                { header: "started", value: (p) => p.start_at },
                { header: "heartbeat", value: (p) => p.heartbeat_at },
              ],
              formatOf(inv),
              "no worker pools",
            ),
          );
          return EXIT.ok;
        }),
    },
    {
      name: "workers",
      summary: "The workers of a pool (or of every pool), and the job each runs",
      args: [
        {
          name: "POOL",
          help: `a pool id as \`jobservice pools\` lists it, or "${ALL}" (default)`,
          optional: true,
        },
      ],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const workers = await h.client.jobService.listWorkers(inv.args[0] ?? ALL, {
            signal: inv.io.signal,
          });
          print(
            inv,
            list(
              workers,
              [
                { header: "worker", value: (w) => w.id },
                { header: "pool", value: (w) => w.pool_id },
                { header: "job", value: (w) => w.job_name },
                { header: "job id", value: (w) => w.job_id },
                { header: "started", value: (w) => w.start_at },
              ],
              formatOf(inv),
              "no workers",
            ),
          );
          return EXIT.ok;
        }),
    },
    {
      name: "queues",
      summary: "The job queues: waiting jobs, latency, whether paused",
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          print(
            inv,
            queuesList(await h.client.jobService.listQueues({ signal: inv.io.signal }), formatOf(inv)),
          );
          return EXIT.ok;
        }),
    },
    queueAction("pause", "Pause a queue: its jobs wait until it is resumed", false),
    queueAction("resume", "Resume a paused queue", false),
    queueAction("stop", "Drop every waiting job of a queue (asks first unless --yes)", true),
    {
      name: "stop-job",
      summary: "Stop a running job (asks first unless --yes)",
      args: [{ name: "JOB_ID", help: "the job's id as `jobservice workers` shows it" }],
      options: [YES_OPTION, ...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const id = inv.args[0] as string;
          // A stop of a job id no worker runs is answered 200 and does nothing (so the emulator models
          // Harbor): such an id is refused here, with where to find the running ones.
          if (id.toLowerCase() !== ALL) {
            const workers = await h.client.jobService.listWorkers(ALL, { signal: inv.io.signal });
            const running = workers.find((w) => w.job_id === id);
            if (!running)
              throw new CliError(
                `no worker of Harbor's job service runs a job "${id}" (see \`jobservice workers\`)`,
              );
          }
          await confirm(inv, `Stop job ${id}?`);
          await h.client.jobService.stopJob(id, { signal: inv.io.signal });
          print(inv, record([["stopped", id]], { stopped: id }, formatOf(inv)));
          return EXIT.ok;
        }),
    },
  ],
};
