// The run kinds' pure mappings: what a GC run or a replication execution, as Harbor returns them,
// means for the resource (phase, message, status fields), which GC runs an interrupted start may
// have created, and how logs are cut for status.
import { describe, expect, test } from "vitest";
import { HarborGarbageCollectionRunSpec } from "../../../src/api/gc-run.ts";
import {
  type GcRun,
  gcOutcome,
  gcParameters,
  LOG_LINE_CHARS,
  logTail,
  startedLike,
} from "../../../src/controllers/gc-run/mapping.ts";
import {
  failedTask,
  replicationOutcome,
  wasSkipped,
} from "../../../src/controllers/replication-run/mapping.ts";
import { gcRunParameters } from "../../../src/harbor/garbage-collection.ts";

const spec = (s: Record<string, unknown> = {}) =>
  HarborGarbageCollectionRunSpec.parse({ connectionRef: { name: "h" }, ...s });

/** A GC run as Harbor 2.12.4 shows it: parameters as a JSON string in Go's key order. */
const gcRun = (o: Partial<GcRun> & { params?: Record<string, unknown> } = {}): GcRun => {
  const { params, ...rest } = o;
  return {
    id: 12,
    job_name: "GARBAGE_COLLECTION",
    job_kind: "MANUAL",
    job_status: "Running",
    job_parameters: JSON.stringify({
      delete_untagged: false,
      dry_run: false,
      redis_url_reg: "redis://redis:6379/1",
      time_window: 2,
      workers: 1,
      ...params,
    }),
    creation_time: "2025-06-01T12:00:00.000Z",
    update_time: "2025-06-01T12:00:00.000Z",
    ...rest,
  };
};

describe("GC runs", () => {
  test("every parameter is sent, so that Harbor's own defaults never decide", () => {
    expect(gcParameters(spec())).toEqual({ delete_untagged: false, dry_run: false, workers: 1 });
    expect(gcParameters(spec({ deleteUntagged: true, dryRun: true, workers: 5 }))).toEqual({
      delete_untagged: true,
      dry_run: true,
      workers: 5,
    });
  });

  test("job_parameters is read from Harbor's JSON string; anything else reads as nothing", () => {
    const done = gcRun({ params: { freed_space: 1536, purged_blobs: 3, purged_manifests: 1 } });
    expect(gcRunParameters(done)).toEqual({
      deleteUntagged: false,
      dryRun: false,
      workers: 1,
      freedSpace: 1536,
      purgedBlobs: 3,
      purgedManifests: 1,
    });
    expect(gcRunParameters({ job_parameters: "not json" })).toEqual({});
    expect(gcRunParameters({})).toEqual({});
    expect(gcRunParameters({ job_parameters: '{"workers":"3","dry_run":1}' })).toEqual({});
  });

  test("an interrupted start is matched by trigger and every parameter", () => {
    const s = spec({ workers: 3, dryRun: true });
    expect(startedLike(gcRun({ params: { workers: 3, dry_run: true } }), s)).toBe(true);
    expect(startedLike(gcRun({ params: { workers: 2, dry_run: true } }), s)).toBe(false);
    expect(startedLike(gcRun({ params: { workers: 3 } }), s)).toBe(false);
    // A scheduled run with the same parameters is the schedule's, not this run's.
    expect(startedLike(gcRun({ job_kind: "SCHEDULE", params: { workers: 3, dry_run: true } }), s)).toBe(
      false,
    );
  });

  test("Running (and a job still queued) is Running, with no completion time yet", () => {
    for (const job_status of ["Running", "Pending", "Scheduled"]) {
      const out = gcOutcome(gcRun({ job_status }), spec());
      expect(out.phase).toBe("Running");
      expect(out.status).toEqual({ startTime: "2025-06-01T12:00:00.000Z" });
    }
  });

  test("Success carries what Harbor reports removed; a dry run says what it would free", () => {
    const run = gcRun({
      job_status: "Success",
      update_time: "2025-06-01T12:00:27.000Z",
      params: { freed_space: 5 * 1024 * 1024, purged_blobs: 7, purged_manifests: 2 },
    });
    const out = gcOutcome(run, spec());
    expect(out).toEqual({
      phase: "Succeeded",
      message: "GC 12 succeeded: freed 5 MiB; 7 blobs and 2 manifests deleted",
      status: {
        startTime: "2025-06-01T12:00:00.000Z",
        completionTime: "2025-06-01T12:00:27.000Z",
        freedBytes: 5 * 1024 * 1024,
        freedSpace: "5 MiB",
        purgedBlobs: 7,
        purgedManifests: 2,
      },
    });
    expect(gcOutcome(run, spec({ dryRun: true })).message).toBe(
      "GC 12 (dry run) succeeded: would free 5 MiB; 7 blobs and 2 manifests eligible for deletion",
    );
    // A success without results (Harbor found nothing) reports zero, not nothing.
    expect(gcOutcome(gcRun({ job_status: "Success" }), spec()).status).toMatchObject({
      freedBytes: 0,
      freedSpace: "0 B",
      purgedBlobs: 0,
    });
  });

  test("Error is Failed, Stopped is Stopped, an unknown word is Failed and named", () => {
    expect(gcOutcome(gcRun({ job_status: "Error" }), spec())).toMatchObject({
      phase: "Failed",
      message: expect.stringContaining("GC 12 ended with an error: its log"),
    });
    expect(gcOutcome(gcRun({ job_status: "Stopped" }), spec()).phase).toBe("Stopped");
    expect(gcOutcome(gcRun({ job_status: "Lost" }), spec()).message).toContain("with status Lost");
  });

  test("a log's tail: the last lines, cleaned like messages and cut", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    expect(logTail(`${lines.join("\n")}\n`)).toEqual(lines.slice(10));
    expect(logTail("a\r\n\r\nb\u200b\u0007\n")).toEqual(["a", "b"]);
    const long = logTail("x".repeat(1000))[0] as string;
    expect([...long]).toHaveLength(LOG_LINE_CHARS);
    expect(long.endsWith("…")).toBe(true);
    expect(logTail("a\nb\nc", 2)).toEqual(["b", "c"]);
  });
});

describe("replication executions", () => {
  const execution = (o: Record<string, unknown> = {}) => ({
    id: 40,
    policy_id: 7,
    status: "InProgress",
    trigger: "manual",
    start_time: "2025-06-01T12:00:00.000Z",
    end_time: "0001-01-01T00:00:00.000Z",
    total: 3,
    succeed: 1,
    failed: 0,
    in_progress: 2,
    stopped: 0,
    ...o,
  });

  test("InProgress is Running with the counts so far and no completion time", () => {
    const out = replicationOutcome(execution(), '"mirror"');
    expect(out.phase).toBe("Running");
    expect(out.message).toBe('Replication execution 40 of policy "mirror" is running: 1 of 3 tasks done');
    expect(out.status).toMatchObject({ policyId: 7, total: 3, succeeded: 1, inProgress: 2 });
    expect(out.status.completionTime).toBeUndefined();
  });

  test("Succeed, Failed and Stopped end the run so, with Harbor's words", () => {
    const end = { end_time: "2025-06-01T12:00:03.000Z", in_progress: 0 };
    const ok = replicationOutcome(
      execution({
        ...end,
        status: "Succeed",
        succeed: 0,
        total: 0,
        status_text: "no resources need to be replicated",
      }),
      '"mirror"',
    );
    expect(ok.phase).toBe("Succeeded");
    expect(ok.message).toContain("0 of 0 tasks succeeded: no resources need to be replicated");
    expect(ok.status.completionTime).toBe("2025-06-01T12:00:03.000Z");
    const failed = replicationOutcome(execution({ ...end, status: "Failed", succeed: 2, failed: 1 }), '"m"');
    expect(failed.phase).toBe("Failed");
    expect(failed.message).toContain("2 of 3 tasks succeeded, 1 failed. status.failedTasks shows");
    expect(replicationOutcome(execution({ ...end, status: "Stopped", stopped: 2 }), '"m"').phase).toBe(
      "Stopped",
    );
  });

  test("an execution Harbor skipped (single active replication, 2.13+) is Skipped, not Failed", () => {
    const skipped = execution({
      status: "Failed",
      status_text: "Execution skipped: active replication still in progress.",
      total: 0,
      succeed: 0,
      in_progress: 0,
    });
    expect(wasSkipped(skipped)).toBe(true);
    const out = replicationOutcome(skipped, '"mirror"');
    expect(out.phase).toBe("Skipped");
    expect(out.message).toContain('Harbor skipped replication execution 40 of policy "mirror"');
    expect(out.message).toContain("Nothing was replicated");
    // A failure that mentions skipping elsewhere in its text is a failure.
    expect(wasSkipped(execution({ status: "Failed", status_text: "copy failed: layer skipped" }))).toBe(
      false,
    );
    expect(wasSkipped(execution({ status: "Succeed", status_text: "Execution skipped" }))).toBe(false);
  });

  test("a failed task keeps what tells why: its resources, end time and the end of its log", () => {
    const task = failedTask(
      {
        id: 9,
        execution_id: 40,
        status: "Failed",
        operation: "copy",
        src_resource: "library/b [1 item(s) in total]",
        dst_resource: "mirror/b [1 item(s) in total]",
        start_time: "2025-06-01T12:00:01.000Z",
        end_time: "2025-06-01T12:00:02.000Z",
      },
      Array.from({ length: 15 }, (_, i) => `log ${i}`).join("\n"),
    );
    expect(task).toEqual({
      id: 9,
      operation: "copy",
      source: "library/b [1 item(s) in total]",
      destination: "mirror/b [1 item(s) in total]",
      endTime: "2025-06-01T12:00:02.000Z",
      log: Array.from({ length: 10 }, (_, i) => `log ${i + 5}`),
    });
    // Without a log (Harbor answered 404) and without an end, those fields are left out.
    expect(failedTask({ id: 3, end_time: "0001-01-01T00:00:00.000Z" }, undefined)).toEqual({ id: 3 });
  });
});
