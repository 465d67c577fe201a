// HarborGarbageCollectionRun's Harbor side: how one GC is started, found again, read and stopped.
// Choices where Harbor leaves room:
// - A manual GC is started with POST /system/gc/schedule, type Manual, with every parameter sent.
//   Harbor keeps no mark of who started a run, so after an interrupted start the run looks for a
//   manual run above the newest id it recorded with exactly its parameters that no other run owns.
// - concurrencyPolicy Wait: the run starts only when Harbor lists no GC as Running (Harbor's job
//   service runs one GC at a time; a run started meanwhile would wait in its queue, as with Queue).
// - GC is system-wide: through a ClusterHarborConnection, a namespace may start one only if its
//   tenancy lets it manage every project.
// - The log is read once, when the run has ended (it is 404 until the job ran); a run without a
//   log keeps no logTail.
import type { HarborGarbageCollectionRunSpec, HarborGarbageCollectionRunStatus } from "../../api/gc-run.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { q } from "../../harbor/query.ts";
import type { RunExternal } from "../../runtime/run-external.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { crashPoint } from "../shared/crash.ts";
import { requireProjects } from "../shared/tenancy.ts";
import { type GcRun, gcOutcome, gcParameters, logTail, startedLike } from "./mapping.ts";

/** The reason of a run that waits for another GC (concurrencyPolicy Wait). */
export const WAITING_FOR_GC = "WaitingForGC";

type External = RunExternal<
  HarborGarbageCollectionRunSpec,
  GcRun,
  HarborConnectionHandle,
  Record<string, never>,
  HarborGarbageCollectionRunStatus
>;

const withId = <T extends { id?: number | undefined }>(runs: T[]) =>
  runs.filter((r): r is T & { id: number } => r.id !== undefined);

export function gcRunExternal(): External {
  return {
    async prepare({ conn }) {
      // A GC reaches every project of the Harbor.
      requireProjects(conn, "all");
      return {};
    },

    async blocker({ spec, conn, signal }) {
      if (spec.concurrencyPolicy === "Queue") return undefined;
      const running = withId(
        await conn.client.gc.listHistory({ q: q().exact("status", "Running"), limit: 10 }, { signal }),
      );
      if (running.length === 0) return undefined;
      return {
        reason: WAITING_FOR_GC,
        message: `GC ${running.map((r) => r.id).join(", ")} is running in Harbor; this run starts once no GC runs (concurrencyPolicy Wait; Harbor shows a GC as running for about 25 s after it ended). concurrencyPolicy Queue would start it now, to wait in Harbor's queue`,
      };
    },

    async newestId({ conn, signal }) {
      const recent = withId(await conn.client.gc.listHistory({ limit: 10 }, { signal }));
      return Math.max(0, ...recent.map((r) => r.id));
    },

    async startedAfter({ spec, conn, signal }, afterId) {
      // Harbor keeps the newest 50 GC runs: one page of 100 holds all of them.
      const recent = withId(await conn.client.gc.listHistory({ limit: 100 }, { signal }));
      return recent.filter((r) => r.id > afterId && startedLike(r, spec));
    },

    async start({ spec, conn, signal }) {
      const id = await conn.client.gc.createSchedule(
        { schedule: { type: "Manual" }, parameters: gcParameters(spec) },
        { signal },
      );
      crashPoint("after-gc-run-start");
      return id;
    },

    async get({ conn, signal }, id) {
      try {
        const run = await conn.client.gc.get(id, { signal });
        return { ...run, id };
      } catch (e) {
        if (isHarborError(e, "notFound")) return undefined;
        throw e;
      }
    },

    id: (run) => run.id,
    outcome: ({ spec }, run) => gcOutcome(run, spec),

    async details({ conn, signal }, run) {
      try {
        return { logTail: logTail(await conn.client.gc.getLog(run.id, { signal })) };
      } catch (e) {
        // No log: the job never ran (stopped while it waited), or Harbor lost it.
        if (isHarborError(e, "notFound")) return {};
        throw e;
      }
    },

    async stop({ conn, signal }, run) {
      try {
        await conn.client.gc.stop(run.id, { signal });
      } catch (e) {
        if (!isHarborError(e, "notFound")) throw e;
      }
    },

    name: (_input, id) => (id === undefined ? "the GC this run asked for" : `GC ${id}`),
  };
}
