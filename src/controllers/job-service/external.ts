// HarborJobService's ExternalClient: the pause state of the job queues a resource lists, one
// resource per Harbor. Choices where Harbor leaves room:
// - The job service is part of every Harbor; what a resource owns is the pause state of the queues
//   it lists (queues it does not list are never touched). It "exists" when Harbor holds one of
//   those queues paused: a first reconcile that finds none paused applies the spec (Create); one
//   that finds a listed queue paused by someone else refuses under creationPolicy Create
//   (AlreadyExists, naming the queues) and takes it over under Adopt or CreateOrAdopt.
// - No id (status.harborId is 0) and the constant claim "job-service": a second resource for the
//   same Harbor gets Conflict.
// - A listed job type Harbor does not list is Stalled (UnknownJobType): Harbor would take a pause of
//   any name without a word and never show it, so it would read as drift forever.
// - deletionPolicy Delete resumes the listed queues the resource keeps paused; Orphan leaves them.
// - Status (every queue with its count, latency and pause, pools, workers busy and idle, whether the
//   SCHEDULER queue is paused) is read with the queues and refreshed by the drift sweep, which
//   queues the resource when any of it changed.
//
// Harbor requests: observing costs three reads (queues, pools, workers); a change one PUT per queue
// that differs and one read of the queues; the drift sweep three reads per Harbor and interval.
import type { HarborJobServiceSpec, HarborJobServiceStatus } from "../../api/job-service.ts";
import type { HarborClient } from "../../harbor/client.ts";
import { ALL } from "../../harbor/job-service.ts";
import { type ExternalClient, Stalled } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { requireSystemSettings } from "../shared/tenancy.ts";
import {
  changes,
  describe,
  diff,
  holdsPause,
  type ObservedJobService,
  pausedByResource,
  status,
  unknownJobTypes,
} from "./mapping.ts";

/** Ready=False (Stalled) reason: a listed job type is not one of Harbor's queues. */
export const UNKNOWN_JOB_TYPE = "UnknownJobType";

type Client = ExternalClient<
  HarborJobServiceSpec,
  ObservedJobService,
  HarborConnectionHandle,
  Record<string, never>,
  HarborJobServiceStatus
>;

const SETTING_ID = 0;

export function jobServiceExternal(): Client {
  const observeAll = async (client: HarborClient, signal: AbortSignal): Promise<ObservedJobService> => {
    const [queues, pools, workers] = await Promise.all([
      client.jobService.listQueues({ signal }),
      client.jobService.listPools({ signal }),
      client.jobService.listWorkers(ALL, { signal }),
    ]);
    return { queues, pools, workers };
  };

  const apply = async (
    client: HarborClient,
    spec: HarborJobServiceSpec,
    observed: ObservedJobService,
    signal: AbortSignal,
  ): Promise<ObservedJobService> => {
    for (const c of changes(spec, observed))
      await client.jobService.actOnQueue(c.jobType, c.action, { signal });
    return { ...observed, queues: await client.jobService.listQueues({ signal }) };
  };

  return {
    async prepare({ conn }) {
      requireSystemSettings(conn, "the job queues");
      return {};
    },

    async observe({ conn, spec, knownId, resource, signal }) {
      const observed = await observeAll(conn.client, signal);
      const unknown = unknownJobTypes(spec, observed);
      // A resource being deleted goes whatever it lists: it resumes only queues Harbor has.
      if (unknown.length && !resource.metadata.deletionTimestamp) {
        const known = observed.queues.map((q) => q.job_type).join(", ");
        throw new Stalled(
          UNKNOWN_JOB_TYPE,
          `spec.queues: ${unknown.map((t) => `"${t}"`).join(", ")} ${unknown.length > 1 ? "are not queues" : "is not a queue"} of this Harbor; it lists ${known}`,
        );
      }
      // Not managed yet: a listed queue Harbor holds paused is someone else's pause until adopted.
      if (knownId === undefined && !holdsPause(spec, observed)) return undefined;
      return observed;
    },

    async create({ conn, spec, signal }) {
      return apply(conn.client, spec, await observeAll(conn.client, signal), signal);
    },

    async update({ conn, spec, signal }, current) {
      return apply(conn.client, spec, current, signal);
    },

    async delete({ conn, spec, signal }, current) {
      for (const jobType of pausedByResource(spec, current))
        await conn.client.jobService.actOnQueue(jobType, "resume", { signal });
    },

    diff: ({ spec }, observed) => diff(spec, observed),
    id: () => SETTING_ID,
    describe,
    status: (_input, observed) => status(observed),

    async observeMany(conn, inputs) {
      if (inputs.length === 0) return new Map();
      const signal = inputs[0]?.signal ?? new AbortController().signal;
      return new Map([[SETTING_ID, await observeAll(conn.client, signal)]]);
    },

    claim: () => "job-service",
  };
}
