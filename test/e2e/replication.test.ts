// HarborReplicationPolicy end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator), with HarborRegistry resources on the remote side: the wait for its registry, the
// policy as written in Harbor, a spec edit reaching Harbor and a change made in Harbor reverted,
// runOnCreate followed to its end, deletion while an execution runs, and a policy deleted with its
// registry. The shared lifecycle (creationPolicy, Conflict, Orphan, Harbor's refusals, InvalidSpec)
// is proven in test/unit/runtime/managed-lifecycle.test.ts; the kind's mapping, its refusals the CRD
// cannot see and runOnCreate on adoption in test/unit/controllers/replication-mapping.test.ts; what
// kubectl refuses in test/integration/cluster/admission.test.ts.
import { beforeAll, describe, expect, test } from "vitest";
import type { ReplicationPolicyReq } from "../../src/harbor/replication.ts";
import { budget } from "../env/budget.ts";
import { useOperator } from "../env/operator.ts";
import {
  condition,
  eventOf,
  harborIdOf,
  type ReplicationPolicyCR as PolicyCR,
  registry,
  replicationPolicy,
  readyForSpec as synced,
} from "../env/resources.ts";
import { until } from "../env/until.ts";

const op = useOperator({ namespacePrefix: "repl" });

/** A policy that pushes to registry "source" unless the spec says otherwise. */
const policy = (name: string, spec: Parameters<typeof replicationPolicy>[1] = {}) =>
  replicationPolicy(name, { registryRef: { name: "source" }, ...spec });

/** The policy the flow follows: it waits for registry "target", which comes later. */
const nightly = {
  registryRef: { name: "target" },
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
const idOf = async (kind: string, name: string) => harborIdOf(await op.kubectl.get<PolicyCR>(kind, name));
const gone = (kind: string, name: string) => op.kubectl.wait(kind, name, "delete", budget.operatorMs);
const executionsOf = (policyId: number) =>
  op.emulator.world.replication.executions().filter((e) => e.policy_id === policyId);

describe("HarborReplicationPolicy", () => {
  beforeAll(async () => {
    await op.kubectl.apply(registry("source"));
    // A new resource shows a wait on another only after 10 s (they may have been applied together):
    // "nightly" waits for its registry while the tests before its own run.
    await op.kubectl.apply(policy("nightly", nightly));
  });

  test("runOnCreate starts one execution and the status follows it to its end", async () => {
    // What the pull finds on the remote: one image with one tag.
    op.emulator.control.replication.addRemoteArtifact("https://source.example.com", "library/alpine", {
      tags: ["3.20"],
    });
    op.emulator.control.replication.setPlan({ durationMs: 60 * 60_000 });
    try {
      await op.kubectl.apply(policy("once", { direction: "pull", runOnCreate: true }));
      const started = await op.waitReady<PolicyCR>("harborreplicationpolicy", "once");
      expect(started.status?.lastExecution).toMatchObject({ status: "InProgress", trigger: "manual" });
      // Harbor ends it when its hour has passed.
      op.emulator.control.clock.advance(60 * 60_000);
      const done = await op.waitFor<PolicyCR>(
        "harborreplicationpolicy",
        "once",
        (o) => o.status?.lastExecution?.status === "Succeed",
      );
      expect(done.status?.lastExecution).toMatchObject({
        id: started.status?.lastExecution?.id,
        total: 1,
        succeeded: 1,
        trigger: "manual",
      });
      expect(done.status?.lastExecution?.endTime).toBeDefined();
      expect(executionsOf(harborIdOf(done))).toHaveLength(1);
      expect(await op.kubectl.run(["get", "harborreplicationpolicy", "once"])).toMatch(/\bpull\s+Succeed\s/);
      // Gone, so that no drift sweep reads policies while "nightly" converges (its request count).
      await op.kubectl.delete("harborreplicationpolicy", "once", { wait: true });
    } finally {
      op.emulator.control.replication.setPlan(null);
    }
  });

  test("deleting a policy while it runs stops the execution, then deletes the policy", async () => {
    // Something for the push to copy, for ten minutes.
    op.emulator.control.projects.pushArtifact("library", "busy-app");
    await op.kubectl.apply(policy("busy"));
    const id = harborIdOf(await op.waitReady<PolicyCR>("harborreplicationpolicy", "busy"));
    op.emulator.control.replication.setPolicyPlan(id, { durationMs: 10 * 60_000 });
    await op.harbor.replication.start(id);
    const stops = count("stopReplication");
    await op.kubectl.delete("harborreplicationpolicy", "busy");
    await gone("harborreplicationpolicy", "busy");
    await expect(op.harbor.replication.getPolicy(id)).rejects.toMatchObject({ kind: "notFound" });
    expect(count("stopReplication") - stops).toBe(1);
  });

  test("a policy and its registry deleted together both go", async () => {
    await op.kubectl.apply([registry("pair"), policy("pair-policy", { registryRef: { name: "pair" } })]);
    const policyId = harborIdOf(await op.waitReady<PolicyCR>("harborreplicationpolicy", "pair-policy"));
    const registryId = await idOf("harborregistry", "pair");
    await op.kubectl.run([
      "delete",
      "harborregistry/pair",
      "harborreplicationpolicy/pair-policy",
      "--wait=false",
    ]);
    await gone("harborreplicationpolicy", "pair-policy");
    await gone("harborregistry", "pair");
    await expect(op.harbor.replication.getPolicy(policyId)).rejects.toMatchObject({ kind: "notFound" });
    await expect(op.harbor.registries.get(registryId)).rejects.toMatchObject({ kind: "notFound" });
  });

  test("waits for its registry, then apply → Ready with the Harbor id, as written, in 2 requests", async () => {
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
    // The emulator's policy calls in order, so that the reconcile's can be told from a sweep's list.
    const calls: string[] = [];
    const counters = op.emulator.counters;
    const add = counters.add;
    counters.add = (operation, method, status) => {
      if (/ReplicationPolic/.test(operation)) calls.push(operation);
      add.call(counters, operation, method, status);
    };
    let cr: PolicyCR;
    let registryId: number | undefined;
    try {
      await op.kubectl.apply(registry("target"));
      registryId = (await op.waitReady<PolicyCR>("harborregistry", "target")).status?.harborId;
      cr = await op.waitReady<PolicyCR>("harborreplicationpolicy", "nightly");
    } finally {
      counters.add = add;
    }
    const spent = Object.fromEntries(ops.map((o) => [o, count(o) - (before[o] as number)]));
    expect(spent).toMatchObject({
      createReplicationPolicy: 1,
      updateReplicationPolicy: 0,
      listReplicationExecutions: 0,
    });
    // Created without a lookup (Harbor refuses a taken name), then read back; a drift sweep may list.
    expect(calls.slice(0, 2)).toEqual(["createReplicationPolicy", "getReplicationPolicy"]);

    const id = harborIdOf(cr);
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

  test("editing the YAML changes Harbor; a change made in Harbor is reverted and named", async () => {
    await op.kubectl.apply(
      policy("nightly", {
        ...nightly,
        filters: { ...nightly.filters, tag: { pattern: "release-*", decoration: "excludes" } },
        trigger: { type: "event_based" },
        override: false,
      }),
    );
    const cr = await op.waitFor<PolicyCR>("harborreplicationpolicy", "nightly", synced);
    const id = harborIdOf(cr);
    const inHarbor = await op.harbor.replication.getPolicy(id);
    expect(inHarbor.trigger?.type).toBe("event_based");
    expect(inHarbor.override ?? false).toBe(false);
    expect(inHarbor.filters).toContainEqual({ type: "tag", value: "release-*", decoration: "excludes" });
    expect(op.emulator.control.replication.schedules().map((s) => s.policy_id)).not.toContain(id);
    await eventOf(op.kubectl, "nightly", "HarborReplicationPolicy", "Updated");

    // Someone changes the policy in Harbor: the drift sweep puts it back and names what it reverted.
    const byHand = { ...inHarbor, description: "by hand", speed: 10 } as ReplicationPolicyReq;
    await op.harbor.replication.updatePolicy(id, byHand);
    await until("the policy to be reverted in Harbor", async () => {
      const p = await op.harbor.replication.getPolicy(id);
      return p.description === "nightly push" && p.speed === 2048 ? p : undefined;
    });
    const reverted = await op.waitFor<PolicyCR>(
      "harborreplicationpolicy",
      "nightly",
      (o) => o.status?.lastDriftCorrection !== undefined,
    );
    expect(reverted.status?.lastDriftCorrection?.fields).toEqual(["description", "speedKbps"]);
    const drift = await eventOf(op.kubectl, "nightly", "HarborReplicationPolicy", "DriftCorrected");
    expect(drift.message).toBe("Reverted changes made in Harbor to description, speedKbps");
  });
});
