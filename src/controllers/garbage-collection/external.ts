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
// The client itself is the one every per-Harbor schedule kind shares (shared/schedule-external.ts);
// this file gives GC's API, requests and mapping.
import type {
  HarborGarbageCollectionSpec,
  HarborGarbageCollectionStatus,
} from "../../api/garbage-collection.ts";
import type { ExternalClient } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { type ScheduleExternalDeps, scheduleExternal } from "../shared/schedule-external.ts";
import {
  describe,
  diff,
  noScheduleRequest,
  type ObservedGc,
  runRequest,
  runStatus,
  scheduleFrom,
  scheduleRequest,
  status,
} from "./mapping.ts";

export type GcExternalDeps = ScheduleExternalDeps;

type Client = ExternalClient<
  HarborGarbageCollectionSpec,
  ObservedGc,
  HarborConnectionHandle,
  Record<string, never>,
  HarborGarbageCollectionStatus
>;

export function garbageCollectionExternal(deps: GcExternalDeps): Client {
  return scheduleExternal<
    HarborGarbageCollectionSpec,
    NonNullable<ObservedGc["schedule"]>,
    NonNullable<ObservedGc["lastRun"]>,
    ReturnType<typeof scheduleRequest>,
    ReturnType<typeof runStatus>,
    HarborGarbageCollectionStatus
  >(deps, {
    api: (client) => client.gc,
    setting: "the garbage-collection schedule",
    what: "garbage collection",
    claim: "gc-schedule",
    scheduleFrom,
    scheduleRequest,
    noScheduleRequest,
    runRequest,
    runStatus,
    diff,
    describe,
    status,
  });
}
