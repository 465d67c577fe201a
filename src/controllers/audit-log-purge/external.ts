// HarborAuditLogPurge's ExternalClient: a Harbor's audit-log purge schedule, one per Harbor. The
// same choices as HarborGarbageCollection's (see garbage-collection/external.ts): no id (0), the
// constant claim "audit-log-purge", "exists" when Harbor has a schedule, PUT for create and update,
// type None for deletion, the newest run in status and followed while it runs, and "run now" by
// the harborconfig.io/runRequestedAt annotation. Besides: every request carries the spec's
// parameters (Harbor 2.12 refuses any without them, None included), and a Harbor of 2.13 or newer
// is refused by name before any call (UnsupportedByHarbor; see mapping.ts).
//
// Harbor requests: as for GC — two reads to observe (schedule, newest run), four to converge on a
// Harbor without a schedule, two per Harbor and drift interval.
import type { HarborAuditLogPurgeSpec, HarborAuditLogPurgeStatus } from "../../api/audit-log-purge.ts";
import type { HarborClient } from "../../harbor/client.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { ResourceType } from "../../kube/types.ts";
import { type AfterSync, type ExternalClient, Stalled } from "../../runtime/managed.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { followDelayMs } from "../shared/executions.ts";
import { handleRunRequest } from "../shared/run-now.ts";
import { requireSystemSettings } from "../shared/tenancy.ts";
import {
  describe,
  diff,
  isRunning,
  noScheduleRequest,
  type ObservedPurge,
  runRequest,
  runStatus,
  scheduleFrom,
  scheduleRequest,
  status,
  unsupportedRelease,
} from "./mapping.ts";

/** Ready=False (Stalled) reason: the spec asks for what this Harbor release cannot take. */
export const UNSUPPORTED_BY_HARBOR = "UnsupportedByHarbor";

export interface PurgeExternalDeps {
  kube: Pick<KubeClient, "patchStatus">;
  events: EventRecorder;
  type: ResourceType;
  now?: () => number;
}

type Client = ExternalClient<
  HarborAuditLogPurgeSpec,
  ObservedPurge,
  HarborConnectionHandle,
  Record<string, never>,
  HarborAuditLogPurgeStatus
>;

const SETTING_ID = 0;
const NEWEST_FIRST = { sort: "-start_time,-id" };

export function auditLogPurgeExternal(deps: PurgeExternalDeps): Client {
  const now = deps.now ?? Date.now;
  const newestRun = async (client: HarborClient, signal: AbortSignal) =>
    (await client.purge.listHistory({ ...NEWEST_FIRST, limit: 1 }, { signal }))[0];
  const observeAll = async (client: HarborClient, signal: AbortSignal): Promise<ObservedPurge> => {
    const [schedule, lastRun] = await Promise.all([
      client.purge.getSchedule({ signal }),
      newestRun(client, signal),
    ]);
    return { schedule: scheduleFrom(schedule), lastRun };
  };

  return {
    async prepare({ conn }) {
      requireSystemSettings(conn, "the audit-log purge");
      const why = unsupportedRelease(conn.harborVersion);
      if (why !== undefined) throw new Stalled(UNSUPPORTED_BY_HARBOR, why);
      return {};
    },

    async observe({ conn, knownId, signal }) {
      if (knownId === undefined) {
        const schedule = scheduleFrom(await conn.client.purge.getSchedule({ signal }));
        if (!schedule) return undefined;
        return { schedule, lastRun: await newestRun(conn.client, signal) };
      }
      return observeAll(conn.client, signal);
    },

    async create({ conn, spec, signal }) {
      if (spec.schedule.type !== "None")
        await conn.client.purge.updateSchedule(scheduleRequest(spec), { signal });
      return observeAll(conn.client, signal);
    },

    async update({ conn, spec, signal }, current) {
      await conn.client.purge.updateSchedule(scheduleRequest(spec), { signal });
      return { ...current, schedule: scheduleFrom(await conn.client.purge.getSchedule({ signal })) };
    },

    async delete({ conn, spec, signal }, current) {
      if (current.schedule) await conn.client.purge.updateSchedule(noScheduleRequest(spec), { signal });
    },

    diff: ({ spec }, observed) => diff(spec, observed),
    id: () => SETTING_ID,
    identifies: () => true,
    describe,
    status: (_input, observed) => status(observed),

    async afterSync(
      { conn, spec, resource, signal },
      observed,
    ): Promise<AfterSync<HarborAuditLogPurgeStatus>> {
      const client = conn.client;
      const run = await handleRunRequest(deps, resource, {
        what: "an audit-log purge",
        newestId: async () => (await newestRun(client, signal))?.id ?? 0,
        startedAfter: async (afterId) => {
          const recent = await client.purge.listHistory({ ...NEWEST_FIRST, limit: 10 }, { signal });
          return recent
            .filter((r) => r.id > afterId && r.job_kind === "MANUAL")
            .map((r) => r.id)
            .sort((a, b) => a - b)[0];
        },
        start: () => client.purge.createSchedule(runRequest(spec), { signal }),
      });
      let lastRun = status(observed).lastRun;
      if (run.executionId !== undefined) {
        lastRun = runStatus(await client.purge.get(run.executionId, { signal }));
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

    claim: () => "audit-log-purge",
  };
}
