// HarborScanAll's ExternalClient: a Harbor's scan-all schedule, one per Harbor. Choices where Harbor
// leaves room:
// - The schedule is a setting a Harbor has once: no id (status.harborId is 0), the claim is the
//   constant "scan-all-schedule", so a second resource for the same Harbor gets Conflict.
// - Harbor refuses every scan-all call (412) while it has no default scanner: the resource waits,
//   Ready=False with reason NoDefaultScanner, and looks again. Not when it is being deleted: a
//   schedule Harbor cannot even read needs no deleting (its scanner registration may have gone in
//   the same sweep), so the deletion completes, and its log line says why.
// - "Exists" means Harbor has a schedule: one set by someone else is refused under creationPolicy
//   Create (AlreadyExists) and taken over under Adopt or CreateOrAdopt. Once managed, a schedule
//   removed in Harbor is drift like any other field, put back and named.
// - Create and update send PUT /system/scanAll/schedule (Harbor keeps a schedule whose type and
//   cron are unchanged); deletion (deletionPolicy Delete) sends type None.
// - Run now (harborconfig.io/runRequestedAt, shared/run-now.ts): POST with type Manual. Harbor's API
//   names no scan-all execution, so runRequest.executionId is 0, and a start that may have happened
//   before a crash is taken as done when the newest run is a manual one still going (Harbor would
//   refuse a second one then anyway, 409). Status shows the newest run's and the newest scheduled
//   run's progress; while a run goes, the resource is looked at again every 2 s.
//
// Harbor requests: observing costs three reads (the schedule and both metrics); the drift sweep
// reads the same three per Harbor and interval.
import type { HarborScanAllSpec, HarborScanAllStatus } from "../../api/scan-all.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { ScanAllScheduleReq } from "../../harbor/scan-all.ts";
import type { AfterSync, ExternalClient } from "../../runtime/external-client.ts";
import { NotReady } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { handleRunRequest, type RunNowDeps } from "../shared/run-now.ts";
import { scheduleSetting } from "../shared/schedule-external.ts";
import {
  describe,
  diff,
  type ObservedScanAll,
  type ObservedScanAllSchedule,
  runStatus,
  scheduleFrom,
  scheduleRequest,
  status,
} from "./mapping.ts";

/** Ready=False reason: Harbor has no default scanner, and refuses scan-all calls without one. */
export const NO_DEFAULT_SCANNER = "NoDefaultScanner";

/** How often a running scan all is looked at. */
const FOLLOW_MS = 2000;

type Client = ExternalClient<
  HarborScanAllSpec,
  ObservedScanAll,
  HarborConnectionHandle,
  Record<string, never>,
  HarborScanAllStatus
>;

/** Harbor's 412 for a Harbor without a default scanner, as a wait with what to do. */
async function needsScanner<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    if (isHarborError(e, "precondition"))
      throw new NotReady(
        NO_DEFAULT_SCANNER,
        `Harbor refuses scan-all calls while it has no default scanner (${e.harborMessage ?? "412"}): make a scanner registration the default (a HarborScannerRegistration with default: true); looking again`,
      );
    throw e;
  }
}

export function scanAllExternal(deps: RunNowDeps): Client {
  const setting = scheduleSetting<
    HarborScanAllSpec,
    ObservedScanAllSchedule,
    Omit<ObservedScanAll, "schedule">,
    ScanAllScheduleReq,
    HarborScanAllStatus
  >({
    setting: "the scan-all schedule",
    claim: "scan-all-schedule",
    readSchedule: async (client, signal) =>
      scheduleFrom(await needsScanner(client.scanAll.getSchedule({ signal }))),
    readRuns: async (client, signal) => {
      const [lastRun, lastScheduledRun] = await needsScanner(
        Promise.all([client.scanAll.metrics({ signal }), client.scanAll.scheduledMetrics({ signal })]),
      );
      return { lastRun, lastScheduledRun };
    },
    writeSchedule: (client, req, signal) => needsScanner(client.scanAll.updateSchedule(req, { signal })),
    scheduleRequest,
    noScheduleRequest: () => ({ schedule: { type: "None" } }),
    diff,
    describe,
    status,
  });

  return {
    ...setting,

    async observe(input) {
      try {
        return await setting.observe(input);
      } catch (e) {
        if (
          !(
            input.resource.metadata.deletionTimestamp &&
            e instanceof NotReady &&
            e.reason === NO_DEFAULT_SCANNER
          )
        )
          throw e;
        input.logger.info(
          { reason: NO_DEFAULT_SCANNER },
          "Harbor has no default scanner, so it shows no scan-all schedule: nothing to delete (should a scanner become the default again, a schedule Harbor kept shows again)",
        );
        return undefined;
      }
    },

    async afterSync({ conn, resource, signal }, observed): Promise<AfterSync<HarborScanAllStatus>> {
      const client = conn.client;
      const run = await handleRunRequest(deps, resource, {
        what: "a scan of every artifact",
        // Harbor names no scan-all run: 0 stands for "the newest, whichever it is".
        newestId: async () => 0,
        startedAfter: async () => {
          const m = await client.scanAll.metrics({ signal });
          return m.trigger === "Manual" && m.ongoing ? 0 : undefined;
        },
        start: async () => {
          await client.scanAll.runNow({ signal });
          return 0;
        },
      });
      let lastRun = runStatus(observed.lastRun);
      if (run.executionId !== undefined) lastRun = runStatus(await client.scanAll.metrics({ signal }));
      return {
        status: { ...run.status, ...(lastRun ? { lastRun } : {}) },
        ...(lastRun?.ongoing ? { requeueAfterMs: FOLLOW_MS } : {}),
      };
    },
  };
}
