// HarborGarbageCollection's ExternalClient: a Harbor's GC schedule, one per Harbor. Choices where
// Harbor leaves room:
// - The schedule is a setting a Harbor has once: no id (status.harborId is 0), the claim is the
//   constant "gc-schedule", so a second resource for the same Harbor, through any connection, gets
//   Conflict naming the one that holds it.
// - "Exists" means Harbor has a schedule: a first reconcile that finds none sets it (Create); one that
//   finds one set by someone else refuses it under creationPolicy Create (AlreadyExists) and takes it
//   over under Adopt or CreateOrAdopt. Once managed, a schedule removed in Harbor is drift like any
//   other field, put back and named (schedule.type).
// - Create and update send PUT /system/gc/schedule (idempotent; POST runs the same code); deletion
//   (deletionPolicy Delete) sends type None, which removes the schedule.
// - Status shows the next scheduled time and the newest run (whoever started it); a run that is not
//   final is looked at again every 1–5 s until it is. The annotation harborconfig.io/runRequestedAt
//   starts one run with the spec's parameters (see shared/run-now.ts).
//
// Harbor requests: observing costs two reads (the schedule and the newest run); a new resource on a
// Harbor without a schedule converges in four (the schedule, the PUT, the schedule and the newest
// run); the drift sweep reads the same two per Harbor and interval.
import type {
  HarborGarbageCollectionSpec,
  HarborGarbageCollectionStatus,
} from "../../api/garbage-collection.ts";
import type { HarborClient } from "../../harbor/client.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { ResourceType } from "../../kube/types.ts";
import type { AfterSync, ExternalClient } from "../../runtime/managed.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { followDelayMs } from "../shared/executions.ts";
import { handleRunRequest } from "../shared/run-now.ts";
import { requireSystemSettings } from "../shared/tenancy.ts";
import {
  describe,
  diff,
  isRunning,
  type ObservedGc,
  runRequest,
  runStatus,
  scheduleFrom,
  scheduleRequest,
  status,
} from "./mapping.ts";

export interface GcExternalDeps {
  kube: Pick<KubeClient, "patchStatus">;
  events: EventRecorder;
  type: ResourceType;
  now?: () => number;
}

type Client = ExternalClient<
  HarborGarbageCollectionSpec,
  ObservedGc,
  HarborConnectionHandle,
  Record<string, never>,
  HarborGarbageCollectionStatus
>;

/** The only "id" a per-Harbor setting has. */
const SETTING_ID = 0;

export function garbageCollectionExternal(deps: GcExternalDeps): Client {
  const now = deps.now ?? Date.now;
  const newestRun = async (client: HarborClient, signal: AbortSignal) =>
    (await client.gc.listHistory({ sort: "-start_time,-id", limit: 1 }, { signal }))[0];
  const observeAll = async (client: HarborClient, signal: AbortSignal): Promise<ObservedGc> => {
    const [schedule, lastRun] = await Promise.all([
      client.gc.getSchedule({ signal }),
      newestRun(client, signal),
    ]);
    return { schedule: scheduleFrom(schedule), lastRun };
  };

  return {
    async prepare({ conn }) {
      requireSystemSettings(conn, "the garbage-collection schedule");
      return {};
    },

    async observe({ conn, knownId, signal }) {
      if (knownId === undefined) {
        // Not managed yet: Harbor's schedule, if it has one, is someone else's until adopted.
        const schedule = scheduleFrom(await conn.client.gc.getSchedule({ signal }));
        if (!schedule) return undefined;
        return { schedule, lastRun: await newestRun(conn.client, signal) };
      }
      return observeAll(conn.client, signal);
    },

    async create({ conn, spec, signal }) {
      if (spec.schedule.type !== "None")
        await conn.client.gc.updateSchedule(scheduleRequest(spec), { signal });
      return observeAll(conn.client, signal);
    },

    async update({ conn, spec, signal }, current) {
      await conn.client.gc.updateSchedule(scheduleRequest(spec), { signal });
      return { ...current, schedule: scheduleFrom(await conn.client.gc.getSchedule({ signal })) };
    },

    async delete({ conn, signal }, current) {
      if (current.schedule) await conn.client.gc.updateSchedule({ schedule: { type: "None" } }, { signal });
    },

    diff: ({ spec }, observed) => diff(spec, observed),
    id: () => SETTING_ID,
    identifies: () => true,
    describe,
    status: (_input, observed) => status(observed),

    async afterSync(
      { conn, spec, resource, signal },
      observed,
    ): Promise<AfterSync<HarborGarbageCollectionStatus>> {
      const client = conn.client;
      const run = await handleRunRequest(deps, resource, {
        what: "garbage collection",
        newestId: async () => (await newestRun(client, signal))?.id ?? 0,
        startedAfter: async (afterId) => {
          const recent = await client.gc.listHistory({ sort: "-start_time,-id", limit: 10 }, { signal });
          return recent
            .filter((r) => r.id !== undefined && r.id > afterId && r.job_kind === "MANUAL")
            .map((r) => r.id as number)
            .sort((a, b) => a - b)[0];
        },
        start: () => client.gc.createSchedule(runRequest(spec), { signal }),
      });
      let lastRun = status(observed).lastRun;
      if (run.executionId !== undefined) {
        const h = await client.gc.get(run.executionId, { signal });
        lastRun = runStatus({ ...h, id: run.executionId });
      }
      return {
        status: { ...run.status, ...(lastRun ? { lastRun } : {}) },
        ...(isRunning(lastRun) ? { requeueAfterMs: followDelayMs(lastRun?.startTime, now()) } : {}),
      };
    },

    async observeMany(conn, inputs) {
      if (inputs.length === 0) return new Map();
      const signal = inputs[0]?.signal ?? new AbortController().signal;
      return new Map([[SETTING_ID, await observeAll(conn.client, signal)]]);
    },

    claim: () => "gc-schedule",
  };
}
