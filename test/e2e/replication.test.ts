// HarborReplicationPolicy end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator), with HarborRegistry resources on the remote side. Refusal, deletion with Orphan and
// drift go as for every kind: project.test.ts proves them once.
import { describe, expect, test } from "vitest";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  eventReasons,
  invalid,
  type ReplicationPolicyCR as PolicyCR,
  registry,
  replicationPolicy,
  readyForSpec as synced,
} from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "repl" });

/** A policy that pushes to registry "target" unless the spec says otherwise. */
const policy = (name: string, spec: Parameters<typeof replicationPolicy>[1] = {}) =>
  replicationPolicy(name, { registryRef: { name: "target" }, ...spec });

const nightly = {
  description: "nightly push",
  destinationNamespace: "mirror/team",
  destinationNamespaceReplaceCount: 1,
  filters: {
    name: "library/**",
    tag: { pattern: "v*" },
    labels: { values: ["prod"], decoration: "excludes" },
    resource: "image",
  },
  trigger: { type: "scheduled", cron: "0 0 2 * * *" },
  replicateDeletion: true,
  speedKbps: 2048,
  copyByChunk: true,
} satisfies Parameters<typeof policy>[1];

const count = (o: string) => op.emulator.counters.total({ op: o });
const harborIdOf = async (kind: string, name: string) =>
  (await op.kubectl.get<PolicyCR>(kind, name)).status?.harborId as number;
const executionsOf = (policyId: number) =>
  op.emulator.world.replication.executions().filter((e) => e.policy_id === policyId);

describe("HarborReplicationPolicy", () => {
  test("waits for its registry, then apply → Ready with the Harbor id, as written, in 3 requests", async () => {
    await op.kubectl.apply(policy("nightly", nightly));
    const waiting = await op.waitFor<PolicyCR>(
      "harborreplicationpolicy",
      "nightly",
      (o) => condition(o, "Ready")?.reason === "DependencyNotReady",
    );
    expect(condition(waiting, "Ready")?.message).toContain("target");

    const ops = [
      "listReplicationPolicies",
      "getReplicationPolicy",
      "createReplicationPolicy",
      "updateReplicationPolicy",
      "listReplicationExecutions",
    ];
    const before = Object.fromEntries(ops.map((o) => [o, count(o)]));
    await op.kubectl.apply(registry("target"));
    const registryId = (await op.waitReady<PolicyCR>("harborregistry", "target")).status?.harborId;
    const cr = await op.waitReady<PolicyCR>("harborreplicationpolicy", "nightly", 30_000);
    const spent = Object.fromEntries(ops.map((o) => [o, count(o) - (before[o] as number)]));
    expect(spent).toMatchObject({
      createReplicationPolicy: 1,
      updateReplicationPolicy: 0,
      listReplicationExecutions: 0,
    });
    // Observe by name and read back; a drift sweep may add one list.
    expect(
      (spent.listReplicationPolicies as number) + (spent.getReplicationPolicy as number),
    ).toBeLessThanOrEqual(3);

    const id = cr.status?.harborId as number;
    const inHarbor = await op.harbor.replication.getPolicy(id);
    expect(inHarbor).toMatchObject({
      name: "nightly",
      description: "nightly push",
      src_registry: { id: 0, name: "Local" },
      dest_registry: { id: registryId },
      dest_namespace: "mirror/team",
      dest_namespace_replace_count: 1,
      trigger: { type: "scheduled", trigger_settings: { cron: "0 0 2 * * *" } },
      replicate_deletion: true,
      deletion: true,
      override: true,
      enabled: true,
      speed: 2048,
      copy_by_chunk: true,
    });
    expect(inHarbor.filters).toEqual(
      expect.arrayContaining([
        { type: "name", value: "library/**" },
        { type: "tag", value: "v*", decoration: "matches" },
        { type: "label", value: ["prod"], decoration: "excludes" },
        { type: "resource", value: "image" },
      ]),
    );
    expect(op.emulator.control.replication.schedules()).toContainEqual({
      policy_id: id,
      cron: "0 0 2 * * *",
    });

    const table = await op.kubectl.run(["get", "harborreplicationpolicies"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+DIRECTION\s+LAST RUN\s+AGE/);
    expect(table).toMatch(new RegExp(`nightly\\s+True\\s+Synced\\s+${id}\\s+push\\s`));
  });

  test("editing the YAML changes Harbor", async () => {
    await op.kubectl.apply(
      policy("nightly", {
        ...nightly,
        filters: { ...nightly.filters, tag: { pattern: "release-*", decoration: "excludes" } },
        trigger: { type: "event_based" },
        override: false,
      }),
    );
    const cr = await op.waitFor<PolicyCR>("harborreplicationpolicy", "nightly", synced);
    const id = cr.status?.harborId as number;
    const inHarbor = await op.harbor.replication.getPolicy(id);
    expect(inHarbor.trigger?.type).toBe("event_based");
    expect(inHarbor.override ?? false).toBe(false);
    expect(inHarbor.filters).toContainEqual({ type: "tag", value: "release-*", decoration: "excludes" });
    expect(op.emulator.control.replication.schedules().map((s) => s.policy_id)).not.toContain(id);
    await expect.poll(() => eventReasons(op.kubectl, "nightly")).toContain("Updated");
  });

  test("runOnCreate starts one execution and the status follows it to its end", async () => {
    // What the pull finds on the remote: one image with one tag.
    op.emulator.control.replication.addRemoteArtifact("https://target.example.com", "library/alpine", {
      tags: ["3.20"],
    });
    op.emulator.control.replication.setPlan({ durationMs: 3_000 });
    try {
      await op.kubectl.apply(policy("once", { direction: "pull", runOnCreate: true }));
      const started = await op.waitReady<PolicyCR>("harborreplicationpolicy", "once");
      expect(started.status?.lastExecution).toMatchObject({ status: "InProgress", trigger: "manual" });
      const done = await op.waitFor<PolicyCR>(
        "harborreplicationpolicy",
        "once",
        (o) => o.status?.lastExecution?.status === "Succeed",
        40_000,
      );
      expect(done.status?.lastExecution).toMatchObject({
        id: started.status?.lastExecution?.id,
        total: 1,
        succeeded: 1,
        trigger: "manual",
      });
      expect(done.status?.lastExecution?.endTime).toBeDefined();
      expect(executionsOf(done.status?.harborId as number)).toHaveLength(1);
      expect(await op.kubectl.run(["get", "harborreplicationpolicy", "once"])).toMatch(/\bpull\s+Succeed\s/);
    } finally {
      op.emulator.control.replication.setPlan(null);
    }
  });

  test("deleting a policy while it runs stops the execution, then deletes the policy", async () => {
    // Something for the push to copy, for ten minutes.
    op.emulator.control.projects.pushArtifact("library", "busy-app");
    await op.kubectl.apply(policy("busy"));
    const id = (await op.waitReady<PolicyCR>("harborreplicationpolicy", "busy")).status?.harborId as number;
    op.emulator.control.replication.setPolicyPlan(id, { durationMs: 10 * 60_000 });
    await op.harbor.replication.start(id);
    const stops = count("stopReplication");
    await op.kubectl.delete("harborreplicationpolicy", "busy");
    await op.kubectl.wait("harborreplicationpolicy", "busy", "delete", 30_000);
    await expect(op.harbor.replication.getPolicy(id)).rejects.toMatchObject({ kind: "notFound" });
    expect(count("stopReplication") - stops).toBe(1);
  });

  test("a policy and its registry deleted together both go", async () => {
    await op.kubectl.apply([registry("pair"), policy("pair-policy", { registryRef: { name: "pair" } })]);
    const policyId = (await op.waitReady<PolicyCR>("harborreplicationpolicy", "pair-policy")).status
      ?.harborId as number;
    const registryId = await harborIdOf("harborregistry", "pair");
    await op.kubectl.run([
      "delete",
      "harborregistry/pair",
      "harborreplicationpolicy/pair-policy",
      "--wait=false",
    ]);
    await op.kubectl.wait("harborreplicationpolicy", "pair-policy", "delete", 30_000);
    await op.kubectl.wait("harborregistry", "pair", "delete", 45_000);
    await expect(op.harbor.replication.getPolicy(policyId)).rejects.toMatchObject({ kind: "notFound" });
    await expect(op.harbor.registries.get(registryId)).rejects.toMatchObject({ kind: "notFound" });
  });

  test("invalid YAML is rejected by kubectl with a clear message", async () => {
    const rejected = async (name: string, spec: Record<string, unknown>) => {
      const r = await op.kubectl.tryRun(["apply", "-f", "-"], { input: JSON.stringify(policy(name, spec)) });
      expect(r.code).not.toBe(0);
      return r.stderr;
    };
    expect(await rejected("no-cron", { trigger: { type: "scheduled" } })).toContain(
      "a scheduled trigger needs a cron",
    );
    expect(await rejected("every-minute", { trigger: { type: "scheduled", cron: "0 * * * * *" } })).toMatch(
      /spec\.trigger\.cron/,
    );
    expect(await rejected("bad-hour", { trigger: { type: "scheduled", cron: "0 0 25 * * *" } })).toContain(
      'spec.trigger.cron: Invalid value: "0 0 25 * * *": must be a cron schedule Harbor runs',
    );
    expect(await rejected("pull-events", { direction: "pull", trigger: { type: "event_based" } })).toContain(
      "an event_based trigger needs direction push",
    );
    expect(await rejected("run-disabled", { runOnCreate: true, enabled: false })).toContain(
      "runOnCreate needs enabled: true",
    );
    expect(await rejected("sideways", { direction: invalid("sideways") })).toMatch(/spec\.direction/);
  });

  test("a schedule Harbor cannot run stalls before any Harbor call, naming the field and the value", async () => {
    // "25" is refused by kubectl (above); a range from high to low only the operator sees.
    const creates = count("createReplicationPolicy");
    await op.kubectl.apply(policy("bad-hours", { trigger: { type: "scheduled", cron: "0 0 5-2 * * *" } }));
    const stalled = await op.waitFor<PolicyCR>(
      "harborreplicationpolicy",
      "bad-hours",
      (o) => condition(o, "Stalled")?.status === "True",
    );
    expect(condition(stalled, "Ready")?.reason).toBe("InvalidSpec");
    expect(condition(stalled, "Ready")?.message).toContain(
      'spec.trigger.cron "0 0 5-2 * * *": must be a cron schedule Harbor runs',
    );
    expect(count("createReplicationPolicy")).toBe(creates);
    await op.kubectl.apply(policy("bad-hours", { trigger: { type: "scheduled", cron: "0 0 2-5 * * *" } }));
    const fixed = await op.waitFor<PolicyCR>("harborreplicationpolicy", "bad-hours", synced);
    expect(condition(fixed, "Stalled")).toBeUndefined();
  });

  test("what only Harbor can judge stalls with Harbor's answer", async () => {
    op.emulator.control.faults.add({ op: "createReplicationPolicy", status: 400, times: 1 });
    await op.kubectl.apply(policy("refused", { trigger: { type: "scheduled", cron: "0 0 23 * * *" } }));
    const stalled = await op.waitFor<PolicyCR>(
      "harborreplicationpolicy",
      "refused",
      (o) => condition(o, "Stalled")?.status === "True",
    );
    expect(condition(stalled, "Ready")?.reason).toBe("HarborRejected");
    expect(condition(stalled, "Ready")?.message).toContain(
      "Harbor rejected the request (createReplicationPolicy)",
    );
    await op.kubectl.apply(policy("refused", { trigger: { type: "scheduled", cron: "0 0 22 * * *" } }));
    const fixed = await op.waitFor<PolicyCR>("harborreplicationpolicy", "refused", synced);
    expect(condition(fixed, "Stalled")).toBeUndefined();
  });

  test("an adopted policy takes the spec, and runOnCreate does not run it: it was not created", async () => {
    const target = await harborIdOf("harborregistry", "target");
    const legacy = await op.harbor.replication.createPolicy({
      name: "legacy",
      src_registry: { id: 0 },
      dest_registry: { id: target },
      enabled: true,
    });
    await op.kubectl.apply(
      policy("legacy", { description: "now managed", creationPolicy: "Adopt", runOnCreate: true }),
    );
    expect((await op.waitReady<PolicyCR>("harborreplicationpolicy", "legacy")).status?.harborId).toBe(legacy);
    expect((await op.harbor.replication.getPolicy(legacy)).description).toBe("now managed");
    expect(executionsOf(legacy)).toHaveLength(0);
  });
});
