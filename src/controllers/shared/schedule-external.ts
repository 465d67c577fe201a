// The ExternalClient of a per-Harbor system-job schedule (GC, audit-log purge; see
// garbage-collection/external.ts for the choices): no id (0), a constant claim, "exists" when Harbor
// has a schedule, PUT for create and update, type None for deletion, the newest run in status and
// followed while it runs, and "run now" by the harborconfig.io/runRequestedAt annotation. Each kind
// gives its Harbor API, its requests and its mapping, and may resolve once per reconcile what its
// requests need besides the spec (the audit-log purge: what the connected release purges by).
// scheduleSetting is the part without the runs (all but afterSync), which HarborScanAll shares too:
// its runs are metrics, not executions with ids.
//
// Harbor requests: observing costs two reads (the schedule and the newest run); a new resource on a
// Harbor without a schedule converges in four (the schedule, the PUT, the schedule and the newest
// run); the drift sweep reads the same two per Harbor and interval.
import type { HarborClient } from "../../harbor/client.ts";
import type { HistoryListFilter } from "../../harbor/query.ts";
import type { CallOptions } from "../../harbor/transport.ts";
import type { KubeClient } from "../../kube/client.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { ResourceType } from "../../kube/types.ts";
import type { AfterSync, ExternalClient, Input } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import {
  followDelayMs,
  isRunning,
  type JobHistory,
  type ObservedJob,
  type ObservedScheduleBase,
} from "./executions.ts";
import { handleRunRequest } from "./run-now.ts";
import { requireSystemSettings } from "./tenancy.ts";

export interface ScheduleExternalDeps {
  kube: Pick<KubeClient, "patchStatus">;
  events: EventRecorder;
  type: ResourceType;
  now?: () => number;
}

/** What the client uses of a system job's Harbor API (src/harbor/system-job.ts). */
export interface ScheduledJobApi<H extends JobHistory, Req> {
  listHistory(filter?: HistoryListFilter, opts?: CallOptions): Promise<H[]>;
  get(id: number, opts?: CallOptions): Promise<H>;
  getSchedule(opts?: CallOptions): Promise<H | undefined>;
  createSchedule(schedule: Req, opts?: CallOptions): Promise<number>;
  updateSchedule(schedule: Req, opts?: CallOptions): Promise<void>;
}

/** What a kind's `resolve` gets: one reconcile's input before anything was resolved. */
export type ResolveInput<Spec> = Omit<Input<Spec, HarborConnectionHandle, never>, "extra">;

/**
 * What tells one schedule kind from another. `X` is what the kind resolves once per reconcile
 * (`resolve`, after the tenancy check) and its requests and diff then read besides the spec.
 */
export interface ScheduleKind<
  Spec extends { schedule: { type: string } },
  S extends ObservedScheduleBase,
  H extends JobHistory,
  Req,
  Run extends { status: string; startTime?: string },
  X extends object = Record<string, never>,
> {
  /** The job's API on a Harbor client (client.gc). */
  api(client: HarborClient): ScheduledJobApi<H, Req>;
  /** What tenancy refusals and Events call it: the setting ("the garbage-collection schedule") and a run ("garbage collection"). */
  setting: string;
  what: string;
  /** The constant claim, one per Harbor. */
  claim: string;
  /** A check before any call (a release the kind cannot serve); throws Stalled. */
  prepare?(conn: HarborConnectionHandle): void;
  /** What the requests and the diff need besides the spec (may read Harbor; throws to wait or stall). */
  resolve?(input: ResolveInput<Spec>): Promise<X>;
  scheduleFrom(h: H | undefined): S | undefined;
  scheduleRequest(spec: Spec, extra: X): Req;
  noScheduleRequest(spec: Spec, extra: X): Req;
  runRequest(spec: Spec, extra: X): Req;
  runStatus(h: H & { id: number }): Run;
  diff(spec: Spec, observed: ObservedJob<S, H>, extra: X): string[];
  describe(observed: ObservedJob<S, H>): string;
  status(observed: ObservedJob<S, H>): { nextScheduledTime?: string; lastRun?: Run };
}

/** The only "id" a per-Harbor setting has. */
const SETTING_ID = 0;

/** The members of an ExternalClient that a per-Harbor schedule setting has alike (all but afterSync). */
export type ScheduleSettingClient<Spec, O, St, X = Record<string, never>> = Omit<
  ExternalClient<Spec, O, HarborConnectionHandle, X, St>,
  "afterSync"
>;

/**
 * What a per-Harbor schedule setting (a system job's, or scan-all's) does alike: no id (0), a
 * constant claim, "exists" when Harbor has a schedule, PUT for create and update, the no-schedule
 * request for deletion. `runs` reads what the kind observes besides the schedule (its newest run or
 * runs); `call` wraps every Harbor call (e.g. to turn a refusal into a wait).
 */
export function scheduleSetting<
  Spec extends { schedule: { type: string } },
  S extends ObservedScheduleBase,
  Runs extends object,
  Req,
  St,
  X extends object = Record<string, never>,
>(o: {
  setting: string;
  claim: string;
  prepare?(conn: HarborConnectionHandle): void;
  resolve?(input: ResolveInput<Spec>): Promise<X>;
  readSchedule(client: HarborClient, signal: AbortSignal): Promise<S | undefined>;
  readRuns(client: HarborClient, signal: AbortSignal): Promise<Runs>;
  writeSchedule(client: HarborClient, req: Req, signal: AbortSignal): Promise<void>;
  scheduleRequest(spec: Spec, extra: X): Req;
  noScheduleRequest(spec: Spec, extra: X): Req;
  diff(spec: Spec, observed: { schedule?: S } & Runs, extra: X): string[];
  describe(observed: { schedule?: S } & Runs): string;
  status(observed: { schedule?: S } & Runs): Partial<St>;
}): ScheduleSettingClient<Spec, { schedule?: S } & Runs, St, X> {
  type O = { schedule?: S } & Runs;
  const observeAll = async (client: HarborClient, signal: AbortSignal): Promise<O> => {
    const [schedule, runs] = await Promise.all([o.readSchedule(client, signal), o.readRuns(client, signal)]);
    return { schedule, ...runs } as O;
  };
  return {
    async prepare(input) {
      requireSystemSettings(input.conn, o.setting);
      o.prepare?.(input.conn);
      return o.resolve ? o.resolve(input) : ({} as X);
    },

    async observe({ conn, knownId, signal }) {
      if (knownId !== undefined) return observeAll(conn.client, signal);
      // Not managed yet: Harbor's schedule, if it has one, is someone else's until adopted.
      const schedule = await o.readSchedule(conn.client, signal);
      if (!schedule) return undefined;
      return { schedule, ...(await o.readRuns(conn.client, signal)) } as O;
    },

    async create({ conn, spec, extra, signal }) {
      if (spec.schedule.type !== "None")
        await o.writeSchedule(conn.client, o.scheduleRequest(spec, extra), signal);
      return observeAll(conn.client, signal);
    },

    async update({ conn, spec, extra, signal }, current) {
      await o.writeSchedule(conn.client, o.scheduleRequest(spec, extra), signal);
      return { ...current, schedule: await o.readSchedule(conn.client, signal) };
    },

    async delete({ conn, spec, extra, signal }, current) {
      if (current.schedule) await o.writeSchedule(conn.client, o.noScheduleRequest(spec, extra), signal);
    },

    diff: ({ spec, extra }, observed) => o.diff(spec, observed, extra),
    id: () => SETTING_ID,
    describe: (observed) => o.describe(observed),
    status: (_input, observed) => o.status(observed),

    async observeMany(conn, inputs) {
      if (inputs.length === 0) return new Map();
      const signal = inputs[0]?.signal ?? new AbortController().signal;
      return new Map([[SETTING_ID, await observeAll(conn.client, signal)]]);
    },

    claim: () => o.claim,
  };
}
const NEWEST_FIRST = { sort: "-start_time,-id" };

export function scheduleExternal<
  Spec extends { schedule: { type: string } },
  S extends ObservedScheduleBase,
  H extends JobHistory,
  Req,
  Run extends { status: string; startTime?: string },
  St extends { nextScheduledTime?: string; lastRun?: Run },
  X extends object = Record<string, never>,
>(
  deps: ScheduleExternalDeps,
  kind: ScheduleKind<Spec, S, H, Req, Run, X>,
): ExternalClient<Spec, ObservedJob<S, H>, HarborConnectionHandle, X, St> {
  const now = deps.now ?? Date.now;
  const newestRun = async (client: HarborClient, signal: AbortSignal) =>
    (await kind.api(client).listHistory({ ...NEWEST_FIRST, limit: 1 }, { signal }))[0];
  const setting = scheduleSetting<Spec, S, { lastRun?: H }, Req, St, X>({
    setting: kind.setting,
    claim: kind.claim,
    ...(kind.prepare ? { prepare: (conn) => kind.prepare?.(conn) } : {}),
    ...(kind.resolve ? { resolve: (input) => kind.resolve?.(input) as Promise<X> } : {}),
    readSchedule: async (client, signal) => kind.scheduleFrom(await kind.api(client).getSchedule({ signal })),
    readRuns: async (client, signal) => ({ lastRun: await newestRun(client, signal) }),
    writeSchedule: (client, req, signal) => kind.api(client).updateSchedule(req, { signal }),
    scheduleRequest: (spec, extra) => kind.scheduleRequest(spec, extra),
    noScheduleRequest: (spec, extra) => kind.noScheduleRequest(spec, extra),
    diff: (spec, observed, extra) => kind.diff(spec, observed, extra),
    describe: (observed) => kind.describe(observed),
    status: (observed) => kind.status(observed) as Partial<St>,
  });

  return {
    ...setting,

    async afterSync({ conn, spec, extra, resource, signal }, observed): Promise<AfterSync<St>> {
      const client = conn.client;
      const api = kind.api(client);
      const run = await handleRunRequest(deps, resource, {
        what: kind.what,
        newestId: async () => (await newestRun(client, signal))?.id ?? 0,
        startedAfter: async (afterId) => {
          const recent = await api.listHistory({ ...NEWEST_FIRST, limit: 10 }, { signal });
          return recent
            .filter((r) => r.id !== undefined && r.id > afterId && r.job_kind === "MANUAL")
            .map((r) => r.id as number)
            .sort((a, b) => a - b)[0];
        },
        start: () => api.createSchedule(kind.runRequest(spec, extra), { signal }),
      });
      let lastRun = kind.status(observed).lastRun;
      if (run.executionId !== undefined) {
        const h = await api.get(run.executionId, { signal });
        lastRun = kind.runStatus({ ...h, id: run.executionId });
      }
      return {
        status: { ...run.status, ...(lastRun ? { lastRun } : {}) } as Partial<St>,
        ...(isRunning(lastRun) ? { requeueAfterMs: followDelayMs(lastRun?.startTime, now()) } : {}),
      };
    },
  };
}
