import { describe, expect, test } from "vitest";
import { HarborReplicationPolicySpec } from "../../../src/api/replication.ts";
import { replicationExternal } from "../../../src/controllers/replication/external.ts";
import {
  diff,
  executionOutcome,
  executionStatus,
  filtersRequest,
  followDelayMs,
  isRunning,
  policyRequest,
} from "../../../src/controllers/replication/mapping.ts";
import {
  type PersistedReplicationPolicy,
  type ReplicationPolicy,
  ReplicationPolicyReq,
} from "../../../src/harbor/replication.ts";
import { describeIssues } from "../../../src/runtime/invalid-spec.ts";
import { fakeHarborCalls, handle, inputOf } from "./fakes.ts";

const spec = (s: Record<string, unknown> = {}) =>
  HarborReplicationPolicySpec.parse({
    connectionRef: { name: "h" },
    direction: "push",
    registryRef: { name: "mirror" },
    ...s,
  });

const registry = (id: number) => ({ id, name: id === 0 ? "Local" : "mirror" });

/** What Harbor returns for a policy stored from `req`: both registries, empty values left out. */
function readBack(req: ReturnType<typeof policyRequest>): ReplicationPolicy {
  const body = ReplicationPolicyReq.parse(req) as Record<string, unknown> & typeof req;
  const out: Record<string, unknown> = {
    id: 3,
    name: body.name,
    src_registry: registry(body.src_registry.id),
    dest_registry: registry(body.dest_registry.id),
    dest_namespace_replace_count: body.dest_namespace_replace_count ?? -1,
    // Harbor reads `deletion` and fills both fields from it.
    replicate_deletion: body.deletion,
    deletion: body.deletion,
    speed: Math.max(0, body.speed ?? 0),
    copy_by_chunk: body.copy_by_chunk ?? false,
    // 2.14+ always shows it.
    single_active_replication: body.single_active_replication ?? false,
    filters: (body.filters ?? []).map((f) => (f.decoration ? f : { type: f.type, value: f.value })),
  };
  if (body.description) out.description = body.description;
  if (body.dest_namespace) out.dest_namespace = body.dest_namespace;
  if (body.override) out.override = true;
  if (body.enabled) out.enabled = true;
  if (body.trigger && body.trigger.type !== "manual") out.trigger = body.trigger;
  return out as ReplicationPolicy;
}

describe("replication policy requests", () => {
  test("push: Local (0) is the source; pull: the destination", () => {
    const push = policyRequest(spec(), "p", 5);
    expect(push.src_registry).toEqual({ id: 0 });
    expect(push.dest_registry).toEqual({ id: 5 });
    const pull = policyRequest(spec({ direction: "pull" }), "p", 5);
    expect(pull.src_registry).toEqual({ id: 5 });
    expect(pull.dest_registry).toEqual({ id: 0 });
  });

  test("replicate deletion goes out in both fields, since Harbor reads `deletion`", () => {
    const body = ReplicationPolicyReq.parse(policyRequest(spec({ replicateDeletion: true }), "p", 5));
    expect(body).toMatchObject({ replicate_deletion: true, deletion: true });
  });

  test("filters become Harbor's list; decorations only on tag and label", () => {
    expect(
      filtersRequest(
        spec({
          filters: {
            name: "library/**",
            tag: { pattern: "v*" },
            labels: { values: ["prod"], decoration: "excludes" },
            resource: "image",
          },
        }).filters,
      ),
    ).toEqual([
      { type: "name", value: "library/**" },
      { type: "tag", value: "v*", decoration: "matches" },
      { type: "label", value: ["prod"], decoration: "excludes" },
      { type: "resource", value: "image" },
    ]);
  });

  test("a scheduled trigger carries its cron; others only their type", () => {
    expect(
      policyRequest(spec({ trigger: { type: "scheduled", cron: "0 0 2 * * *" } }), "p", 5).trigger,
    ).toEqual({
      type: "scheduled",
      trigger_settings: { cron: "0 0 2 * * *" },
    });
    expect(policyRequest(spec({ trigger: { type: "event_based" } }), "p", 5).trigger).toEqual({
      type: "event_based",
    });
  });

  test("an unset description keeps Harbor's on update; a negative speed is sent as 0", () => {
    const current = readBack(policyRequest(spec({ description: "by hand" }), "p", 5));
    const req = policyRequest(spec(), "p", 5, current);
    expect(req.description).toBe("by hand");
    expect(req.speed).toBe(0);
  });
});

describe("one active run at a time (singleActiveReplication, Harbor 2.14)", () => {
  test("sent when set; unset, an update keeps what Harbor has (its PUT would turn it off)", () => {
    expect(policyRequest(spec({ singleActiveReplication: true }), "p", 5).single_active_replication).toBe(
      true,
    );
    expect(policyRequest(spec(), "p", 5)).not.toHaveProperty("single_active_replication");
    const onInHarbor = readBack(policyRequest(spec({ singleActiveReplication: true }), "p", 5));
    expect(policyRequest(spec(), "p", 5, onInHarbor).single_active_replication).toBe(true);
    expect(policyRequest(spec({ singleActiveReplication: false }), "p", 5, onInHarbor)).toMatchObject({
      single_active_replication: false,
    });
  });

  test.each([
    ["on, and on in Harbor", true, true, []],
    ["on, and off in Harbor", true, false, ["singleActiveReplication"]],
    ["off, and on in Harbor", false, true, ["singleActiveReplication"]],
    // A release without the field does not skip runs: off is met (on is refused before, see release-fields).
    ["off, on a release without it", false, undefined, []],
    ["unset, whatever Harbor has", undefined, true, []],
    ["unset, on a release without it", undefined, undefined, []],
  ])("%s", (_what, want, have, drift) => {
    const desired = spec(want === undefined ? {} : { singleActiveReplication: want });
    const stored = { ...readBack(policyRequest(spec(), "p", 5)), single_active_replication: have };
    expect(diff(desired, "p", 5, stored)).toEqual(drift);
  });
});

describe("replication policy diff", () => {
  test.each([
    ["defaults", {}],
    [
      "pull with namespace",
      { direction: "pull", destinationNamespace: "mirror/team", destinationNamespaceReplaceCount: 1 },
    ],
    [
      "all filters",
      {
        filters: {
          name: "a/**",
          tag: { pattern: "v*", decoration: "excludes" },
          labels: { values: ["b", "a"] },
          resource: "artifact",
        },
      },
    ],
    ["scheduled", { trigger: { type: "scheduled", cron: "0 30 2 * * *" } }],
    [
      "event based, everything off",
      {
        trigger: { type: "event_based" },
        override: false,
        enabled: false,
        replicateDeletion: true,
        speedKbps: 0,
      },
    ],
    ["speed and chunks", { speedKbps: 1024, copyByChunk: true, description: "d" }],
  ])("what Harbor returns for %s is no drift", (_name, s) => {
    const desired = spec(s);
    expect(diff(desired, "p", 5, readBack(policyRequest(desired, "p", 5)))).toEqual([]);
  });

  test("filter order, label order and an omitted matches decoration are no drift", () => {
    const desired = spec({ filters: { name: "a/**", labels: { values: ["x", "y"] } } });
    const harbor = readBack(policyRequest(desired, "p", 5));
    harbor.filters = [
      { type: "label", value: ["y", "x"] },
      { type: "name", value: "a/**" },
    ];
    expect(diff(desired, "p", 5, harbor)).toEqual([]);
  });

  test("names every drifted field", () => {
    const desired = spec({ trigger: { type: "scheduled", cron: "0 0 2 * * *" }, description: "d" });
    const harbor: ReplicationPolicy = {
      ...readBack(policyRequest(desired, "p", 5)),
      name: "q",
      description: "x",
      dest_registry: registry(6),
      dest_namespace: "elsewhere",
      dest_namespace_replace_count: 2,
      filters: [{ type: "name", value: "other/**" }],
      trigger: { type: "scheduled", trigger_settings: { cron: "0 0 3 * * *" } },
      replicate_deletion: true,
      deletion: true,
      override: false,
      enabled: false,
      speed: 10,
      copy_by_chunk: true,
    };
    expect(diff(desired, "p", 5, harbor)).toEqual([
      "name",
      "description",
      "registryRef",
      "destinationNamespace",
      "destinationNamespaceReplaceCount",
      "filters",
      "trigger",
      "replicateDeletion",
      "override",
      "enabled",
      "speedKbps",
      "copyByChunk",
    ]);
  });

  test("a swapped direction is named as such", () => {
    const desired = spec();
    const harbor = readBack(policyRequest(spec({ direction: "pull" }), "p", 5));
    expect(diff(desired, "p", 5, harbor)).toEqual(["direction"]);
  });

  test("a decoration changed in Harbor is filter drift", () => {
    const desired = spec({ filters: { tag: { pattern: "v*" } } });
    const harbor = readBack(policyRequest(desired, "p", 5));
    harbor.filters = [{ type: "tag", value: "v*", decoration: "excludes" }];
    expect(diff(desired, "p", 5, harbor)).toEqual(["filters"]);
  });
});

describe("executions", () => {
  test("status.lastExecution leaves out Harbor's unset times and empty text", () => {
    const running = {
      id: 9,
      policy_id: 3,
      status: "InProgress",
      trigger: "manual",
      start_time: "2025-01-01T00:00:00.000Z",
      end_time: "0001-01-01T00:00:00.000Z",
      status_text: "",
      total: 2,
      failed: 0,
      succeed: 1,
      in_progress: 1,
      stopped: 0,
    };
    expect(executionStatus(running)).toEqual({
      id: 9,
      status: "InProgress",
      trigger: "manual",
      total: 2,
      succeeded: 1,
      failed: 0,
      inProgress: 1,
      stopped: 0,
      startTime: "2025-01-01T00:00:00.000Z",
    });
    expect(isRunning(running)).toBe(true);
    expect(isRunning({ status: "Succeed" })).toBe(false);
  });
});

describe("following an execution to its end", () => {
  const start = "2025-03-01T10:00:00Z";
  const at = (seconds: number) => Date.parse(start) + seconds * 1000;

  test("looks again after a quarter of the running time, from 1 s to 15 s", () => {
    const running = { id: 9, status: "InProgress", start_time: start };
    expect(followDelayMs(running, at(0))).toBe(1_000);
    expect(followDelayMs(running, at(2))).toBe(1_000);
    expect(followDelayMs(running, at(20))).toBe(5_000);
    expect(followDelayMs(running, at(600))).toBe(15_000);
    // Without a start (just started by the operator), or a clock behind Harbor's: soon.
    expect(followDelayMs({ id: 9, status: "InProgress" }, at(0))).toBe(1_000);
    expect(followDelayMs(running, at(-30))).toBe(1_000);
    // A run of 10 minutes costs about 50 looks (36 of them at 15 s), not one per second.
    let t = 0;
    let looks = 0;
    while (t < 600) {
      t += followDelayMs(running, at(t)) / 1000;
      looks++;
    }
    expect(looks).toBeLessThan(60);
  });

  test("an end is reported once, with the counts and Harbor's words", () => {
    const done = {
      id: 9,
      status: "Succeed",
      trigger: "manual",
      total: 3,
      succeed: 3,
      failed: 0,
      start_time: start,
      end_time: "2025-03-01T10:00:41Z",
    };
    expect(executionOutcome({ id: 9, status: "InProgress" }, done)).toEqual({
      type: "Normal",
      reason: "ReplicationSucceeded",
      message: "Replication execution 9 (manual) succeeded in 41 s: 3 of 3 tasks succeeded",
    });
    // Already shown as ended: nothing new.
    expect(executionOutcome({ id: 9, status: "Succeed" }, done)).toBeUndefined();
    // Still running: nothing yet.
    expect(executionOutcome(undefined, { ...done, status: "InProgress" })).toBeUndefined();
    // A run that started and ended between two looks (a schedule's) is reported too.
    const failed = executionOutcome(
      { id: 8, status: "Succeed" },
      {
        ...done,
        id: 10,
        trigger: "scheduled",
        status: "Failed",
        succeed: 1,
        failed: 2,
        status_text: "failed to\u200b copy",
      },
    );
    expect(failed).toMatchObject({ type: "Warning", reason: "ReplicationFailed" });
    expect(failed?.message).toBe(
      "Replication execution 10 (scheduled) failed in 41 s: 1 of 3 tasks succeeded, 2 failed: failed to copy. Harbor's task logs (Replications > Executions) say why each task failed",
    );
    expect(
      executionOutcome(undefined, { id: 11, status: "Stopped", total: 2, succeed: 1, stopped: 1 }),
    ).toEqual({
      type: "Normal",
      reason: "ReplicationStopped",
      message: "Replication execution 11 was stopped: 1 of 2 tasks succeeded, 1 stopped",
    });
  });
});

describe("what the operator refuses that the CRD cannot see", () => {
  test("a cron range from high to low: the spec is unusable, naming the field and the value", () => {
    const raw = {
      connectionRef: { name: "h" },
      direction: "push",
      registryRef: { name: "mirror" },
      trigger: { type: "scheduled", cron: "0 0 5-2 * * *" },
    };
    const parsed = HarborReplicationPolicySpec.safeParse(raw);
    expect(parsed.success).toBe(false);
    expect(describeIssues(parsed.error?.issues ?? [], raw)).toContain(
      'spec.trigger.cron "0 0 5-2 * * *": must be a cron schedule Harbor runs',
    );
    expect(
      HarborReplicationPolicySpec.safeParse({ ...raw, trigger: { type: "scheduled", cron: "0 0 2-5 * * *" } })
        .success,
    ).toBe(true);
  });
});

describe("runOnCreate against Harbor (the external client, Harbor faked)", () => {
  const setup = () => {
    const calls: string[] = [];
    const client = fakeHarborCalls({
      replication: {
        start: async (id: number) => {
          calls.push(`start ${id}`);
          return 41;
        },
        listExecutions: async () => [],
        getExecution: async (id: number) => ({ id, status: "InProgress", trigger: "manual" }),
      },
    });
    const ext = replicationExternal({
      registries: {},
      events: { record: () => undefined },
      kube: {},
      type: {},
      statusRefreshMs: 3_600_000,
    } as unknown as Parameters<typeof replicationExternal>[0]);
    return { calls, ext, conn: handle(client) };
  };
  const policy = { id: 3, name: "once", enabled: true } as PersistedReplicationPolicy;

  test("a policy it created starts one execution, followed in status", async () => {
    const { calls, ext, conn } = setup();
    const out = await ext.afterSync?.(
      inputOf(spec({ runOnCreate: true }), { conn: conn, knownId: 3, extra: {} }),
      policy,
      true,
    );
    expect(calls).toEqual(["start 3"]);
    expect(out?.status?.lastExecution).toMatchObject({ id: 41, status: "InProgress", trigger: "manual" });
  });

  test("an adopted policy is never started: it was not created", async () => {
    const { calls, ext, conn } = setup();
    await ext.afterSync?.(
      inputOf(spec({ runOnCreate: true }), { conn: conn, knownId: 3, extra: {} }),
      policy,
      false,
    );
    expect(calls).toEqual([]);
  });
});
