// "Run now" by the harborconfig.io/runRequestedAt annotation (shared/run-now.ts), which
// HarborGarbageCollection, HarborAuditLogPurge, HarborScanAll, HarborReplicationPolicy and
// HarborRetentionPolicy share: with Harbor's job and the Kubernetes status write replaced by fakes,
// which calls a value leads to, in which order, and what status and Events it leaves, crashes on
// either side of the start included. The end-to-end files of those kinds keep the crash between the
// start and its record against the emulator, where each kind finds its own execution again.
import { describe, expect, test } from "vitest";
import { RUN_REQUESTED_ANNOTATION, type RunRequest } from "../../../src/api/run-now.ts";
import { handleRunRequest, type RunNowJob } from "../../../src/controllers/shared/run-now.ts";
import { HarborError, type HarborErrorKind } from "../../../src/harbor/errors.ts";
import type { ResourceType } from "../../../src/kube/types.ts";
import type { ManagedObject } from "../../../src/runtime/external-client.ts";

const type: ResourceType = {
  group: "harborconfig.io",
  version: "v1alpha1",
  plural: "harborgarbagecollections",
  kind: "HarborGarbageCollection",
  namespaced: true,
};
const NOW = Date.parse("2030-01-01T00:00:00.000Z");

/** A resource with the annotation (when given) and this status. */
const resource = (value: string | undefined, status: Record<string, unknown> = {}): ManagedObject => ({
  apiVersion: "harborconfig.io/v1alpha1",
  kind: type.kind,
  metadata: {
    name: "gc",
    namespace: "team",
    resourceVersion: "7",
    ...(value === undefined ? {} : { annotations: { [RUN_REQUESTED_ANNOTATION]: value } }),
  },
  spec: {},
  status,
});

/**
 * Harbor's job with `newest` as its newest execution and `found` as the manual one started after a
 * recorded mark (if any); every call and status write is written down in order.
 */
function setup(o: { newest?: number; found?: number; refusal?: string; startFails?: HarborErrorKind } = {}) {
  const calls: string[] = [];
  const events: string[] = [];
  let next = (o.newest ?? 0) + 1;
  const deps = {
    kube: {
      patchStatus: async (
        _t: ResourceType,
        _ns: string | undefined,
        _name: string,
        patch: { runRequest: RunRequest },
        rv?: string,
      ) => {
        calls.push(`record ${JSON.stringify(patch.runRequest)} at ${rv}`);
        return { metadata: { resourceVersion: "8" }, status: { runRequest: patch.runRequest } };
      },
    },
    events: {
      record: (_o: unknown, t: string, reason: string, message: string) => {
        events.push(`${t} ${reason}: ${message}`);
      },
    },
    type,
    now: () => NOW,
  } as unknown as Parameters<typeof handleRunRequest>[0];
  const job: RunNowJob = {
    what: "garbage collection",
    newestId: async () => {
      calls.push("newestId");
      return o.newest ?? 0;
    },
    startedAfter: async (afterId) => {
      calls.push(`startedAfter ${afterId}`);
      return o.found;
    },
    start: async () => {
      calls.push("start");
      if (o.startFails)
        throw new HarborError({
          operation: "createGCSchedule",
          kind: o.startFails,
          harborMessage: "a previous job is running",
          requestId: "r1",
        });
      return next++;
    },
    refusal: o.refusal,
  };
  return { deps, job, calls, events };
}

describe("which value asks for a run", () => {
  test.each([
    ["no annotation", undefined, {}],
    ["an empty value", "", {}],
    ["the value handled already", "first", { lastHandledRunAt: "first" }],
  ])("%s: nothing is read, started or written", async (_what, value, status) => {
    const { deps, job, calls, events } = setup({ newest: 4 });
    expect(await handleRunRequest(deps, resource(value, status), job)).toEqual({});
    expect(calls).toEqual([]);
    expect(events).toEqual([]);
  });
});

describe("a new value starts exactly one run", () => {
  test("the newest execution is recorded (on the version decided on) before the start; then the id", async () => {
    const { deps, job, calls, events } = setup({ newest: 4 });
    const r = resource("first", { lastHandledRunAt: "before" });
    const out = await handleRunRequest(deps, r, job);
    expect(calls).toEqual([
      "newestId",
      'record {"requestedAt":"first","afterExecutionId":4,"executionId":null,"time":null,"refused":null} at 7',
      "start",
    ]);
    expect(out).toEqual({
      executionId: 5,
      status: {
        lastHandledRunAt: "first",
        runRequest: {
          requestedAt: "first",
          afterExecutionId: 4,
          executionId: 5,
          time: "2030-01-01T00:00:00Z",
        },
      },
    });
    // The final status write builds on the record's version.
    expect(r.metadata.resourceVersion).toBe("8");
    expect(events).toEqual([
      `Normal RunStarted: Started garbage collection (execution 5) for ${RUN_REQUESTED_ANNOTATION} "first"`,
    ]);
  });

  test("a request recorded before a crash, without a run in Harbor: started now, the recorded mark kept", async () => {
    const { deps, job, calls } = setup({ newest: 9 });
    const pending = { requestedAt: "second", afterExecutionId: 4 };
    const out = await handleRunRequest(deps, resource("second", { runRequest: pending }), job);
    expect(calls).toEqual(["startedAfter 4", "start"]);
    expect(out.status?.runRequest).toMatchObject({ afterExecutionId: 4, executionId: 10 });
  });

  test("a run started before a crash, not yet recorded: found after the mark, no second start", async () => {
    const { deps, job, calls, events } = setup({ newest: 6, found: 6 });
    const pending = { requestedAt: "second", afterExecutionId: 4 };
    const out = await handleRunRequest(deps, resource("second", { runRequest: pending }), job);
    expect(calls).toEqual(["startedAfter 4"]);
    expect(out).toMatchObject({ executionId: 6, status: { lastHandledRunAt: "second" } });
    expect(events).toEqual([
      `Normal RunStarted: Found garbage collection (execution 6) started earlier for ${RUN_REQUESTED_ANNOTATION} "second"; no other is started`,
    ]);
  });

  test("handled, but the status write after it was lost: the record is written again, nothing else", async () => {
    const { deps, job, calls, events } = setup({ newest: 6 });
    const done = { requestedAt: "second", afterExecutionId: 4, executionId: 5, time: "t" };
    const out = await handleRunRequest(deps, resource("second", { runRequest: done }), job);
    expect(calls).toEqual([]);
    expect(events).toEqual([]);
    expect(out).toEqual({ status: { lastHandledRunAt: "second", runRequest: done } });
  });
});

describe("a run that cannot start", () => {
  test("known without asking Harbor (a disabled policy): refused at once, with a Warning; nothing started", async () => {
    const { deps, job, calls, events } = setup({ refusal: "the policy is disabled" });
    const out = await handleRunRequest(deps, resource("please"), job);
    expect(calls).toEqual([]);
    expect(out.status).toEqual({
      lastHandledRunAt: "please",
      runRequest: {
        requestedAt: "please",
        afterExecutionId: 0,
        time: "2030-01-01T00:00:00Z",
        refused: "the policy is disabled",
      },
    });
    expect(out.executionId).toBeUndefined();
    expect(events).toEqual([
      `Warning RunNotStarted: No garbage collection started for ${RUN_REQUESTED_ANNOTATION} "please": the policy is disabled`,
    ]);
  });

  test.each(["conflict", "precondition", "invalid"] as const)(
    "Harbor refusing for good (%s) is recorded as refused, in Harbor's words; a new value asks again",
    async (kind) => {
      const { deps, job, events } = setup({ newest: 2, startFails: kind });
      const out = await handleRunRequest(deps, resource("second"), job);
      expect(out.status?.lastHandledRunAt).toBe("second");
      expect(out.status?.runRequest).toMatchObject({
        afterExecutionId: 2,
        refused: "Harbor: a previous job is running",
      });
      expect(events).toEqual([
        `Warning RunNotStarted: Harbor refused to start garbage collection for ${RUN_REQUESTED_ANNOTATION} "second": a previous job is running`,
      ]);
    },
  );

  test("a failure a retry may fix leaves the request pending (recorded, not handled) and is thrown", async () => {
    const { deps, job, calls } = setup({ newest: 2, startFails: "server" });
    await expect(handleRunRequest(deps, resource("second"), job)).rejects.toBeInstanceOf(HarborError);
    expect(calls).toEqual([
      "newestId",
      'record {"requestedAt":"second","afterExecutionId":2,"executionId":null,"time":null,"refused":null} at 7',
      "start",
    ]);
  });
});
