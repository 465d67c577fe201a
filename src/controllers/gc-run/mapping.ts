// HarborGarbageCollectionRun ⇄ Harbor's GC history, as pure functions: what a GC run (GCHistory)
// means for the resource, which runs in the history this resource may have started, and the tail of
// a job log as status shows it.
import type { HarborGarbageCollectionRunSpec, HarborGarbageCollectionRunStatus } from "../../api/gc-run.ts";
import { formatBytes } from "../../harbor/errors.ts";
import { type GcHistory, gcRunParameters } from "../../harbor/garbage-collection.ts";
import { safeText } from "../../kube/text.ts";
import type { RunOutcome } from "../../runtime/run-external.ts";

/** A GC run Harbor has stored: its id is always there. */
export type GcRun = GcHistory & { id: number };

/** How many lines of a job log status keeps, and how long each may be. */
export const LOG_TAIL_LINES = 20;
export const LOG_LINE_CHARS = 256;

/** The parameters a manual GC is started with: every one sent, so that Harbor's defaults never apply. */
export function gcParameters(spec: HarborGarbageCollectionRunSpec): {
  delete_untagged: boolean;
  dry_run: boolean;
  workers: number;
} {
  return { delete_untagged: spec.deleteUntagged, dry_run: spec.dryRun, workers: spec.workers };
}

/**
 * Whether a run in Harbor's history could be the one this resource started: a manual run with
 * exactly its parameters (Harbor keeps no other mark of who started it).
 */
export function startedLike(run: GcHistory, spec: HarborGarbageCollectionRunSpec): boolean {
  const p = gcRunParameters(run);
  return (
    run.job_kind === "MANUAL" &&
    p.deleteUntagged === spec.deleteUntagged &&
    p.dryRun === spec.dryRun &&
    p.workers === spec.workers
  );
}

/** Harbor's "never set" time. */
const ZERO_TIME = /^0001-01-01T/;
const time = (t: string | undefined) => (t && !ZERO_TIME.test(t) ? t : undefined);

/** What a GC run means for the resource: its phase, a message, and the status fields. */
export function gcOutcome(
  run: GcRun,
  spec: HarborGarbageCollectionRunSpec,
): RunOutcome<HarborGarbageCollectionRunStatus> {
  const status = run.job_status ?? "";
  const what = `GC ${run.id}${spec.dryRun ? " (dry run)" : ""}`;
  const startTime = time(run.creation_time);
  const fields: Partial<HarborGarbageCollectionRunStatus> = { ...(startTime ? { startTime } : {}) };
  if (status === "Running" || status === "Pending" || status === "Scheduled" || status === "")
    return {
      phase: "Running",
      message: `${what} is running in Harbor (Harbor shows a GC as running for about 25 s after its job ended)`,
      status: fields,
    };
  const completionTime = time(run.update_time);
  if (completionTime) fields.completionTime = completionTime;
  if (status === "Success") {
    const p = gcRunParameters(run);
    const freed = p.freedSpace ?? 0;
    Object.assign(fields, {
      freedBytes: freed,
      freedSpace: formatBytes(freed),
      purgedBlobs: p.purgedBlobs ?? 0,
      purgedManifests: p.purgedManifests ?? 0,
    });
    const verb = spec.dryRun ? "would free" : "freed";
    const removed = spec.dryRun ? "eligible for deletion" : "deleted";
    return {
      phase: "Succeeded",
      message: `${what} succeeded: ${verb} ${formatBytes(freed)}; ${p.purgedBlobs ?? 0} blobs and ${p.purgedManifests ?? 0} manifests ${removed}`,
      status: fields,
    };
  }
  if (status === "Stopped")
    return { phase: "Stopped", message: `${what} was stopped before it finished`, status: fields };
  return {
    phase: "Failed",
    message: `${what} ended ${status === "Error" ? "with an error" : `with status ${safeText(status, 64)}`}: its log (status.logTail, or Harbor's Garbage Collection history) says why`,
    status: fields,
  };
}

/**
 * The last `lines` non-empty lines of a job log, each cleaned like a message and cut to
 * LOG_LINE_CHARS: what status shows of a log.
 */
export function logTail(text: string, lines: number = LOG_TAIL_LINES): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => safeText(l, LOG_LINE_CHARS))
    .filter((l) => l !== "")
    .slice(-lines);
}
