// HarborRetentionPolicy end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator). What needs them for the policy: one policy per project (the project's retention_id),
// rules as Harbor's UI writes them, update, drift reverted and named per rule and field, a drift
// check of one read per policy, deletion that leaves an empty policy (and a new resource that fills
// it again), deletion with its project, run now and dry runs by annotation followed to their end,
// adoption of a proxy project's policy, and a retention_id that names a deleted policy. The policy's
// request, drift and claim are rows of test/unit/controllers/retention-mapping.test.ts, its refusals
// rows of the admission table (test/integration/cluster/admission.test.ts), and the lifecycle every
// kind shares is proven in test/unit/runtime/managed-lifecycle.test.ts.
import { describe, expect, test } from "vitest";
import type { RetentionPolicyRequest } from "../../src/harbor/retention.ts";
import { budget } from "../env/budget.ts";
import { useOperator } from "../env/operator.ts";
import { harborCallsPerSweep } from "../env/operator-log.ts";
import {
  condition,
  eventOf,
  harborIdOf,
  project,
  type RetentionPolicyCR,
  readyForSpec,
  retentionPolicy,
} from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "retention" });
const KIND = "harborretentionpolicy";
const ANNOTATION = "harborconfig.io/runRequestedAt";

const keepTen = {
  template: "latestPushedK" as const,
  count: 10,
  repositories: { decoration: "matches" as const, pattern: "**" },
  tags: { decoration: "matches" as const, pattern: "**" },
};
const releases = {
  template: "nDaysSinceLastPush" as const,
  days: 365,
  tags: { decoration: "matches" as const, pattern: "release-*" },
};

/** The policy the project's retention_id names, as an admin sees it. */
async function policyOf(projectName: string) {
  const p = await op.harbor.projects.get(projectName);
  const id = Number(p.metadata?.retention_id);
  return { id, policy: await op.harbor.retention.get(id), projectId: p.project_id as number };
}

describe("HarborRetentionPolicy", () => {
  test("a policy's life: held as Harbor's UI writes it and named by the project, edited in place, put back per rule and field when changed in Harbor, emptied on deletion and filled by a new resource, gone with its project", async () => {
    await op.kubectl.apply([
      project("team"),
      retentionPolicy("team-retention", "team", { schedule: { type: "Daily" }, rules: [keepTen, releases] }),
    ]);
    const cr = await op.waitReady<RetentionPolicyCR>(KIND, "team-retention");
    const { id, policy, projectId } = await policyOf("team");
    expect(harborIdOf(cr)).toBe(id);
    expect(cr.status?.projectId).toBe(projectId);
    expect(policy).toMatchObject({
      algorithm: "or",
      scope: { level: "project", ref: projectId },
      trigger: { kind: "Schedule", settings: { cron: "0 0 0 * * *" } },
    });
    expect(policy.rules?.[0]).toMatchObject({
      action: "retain",
      template: "latestPushedK",
      params: { latestPushedK: 10 },
      disabled: false,
      tag_selectors: [
        { kind: "doublestar", decoration: "matches", pattern: "**", extras: '{"untagged":false}' },
      ],
      scope_selectors: { repository: [{ kind: "doublestar", decoration: "repoMatches", pattern: "**" }] },
    });
    expect(policy.rules?.[1]).toMatchObject({
      template: "nDaysSinceLastPush",
      params: { nDaysSinceLastPush: 365 },
    });
    const table = await op.kubectl.run(["get", "harborretentionpolicies"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+PROJECT\s+SCHEDULE\s+LAST RUN\s+AGE/);
    expect(table).toMatch(new RegExp(`team-retention\\s+True\\s+Synced\\s+${id}\\s+team\\s+Daily\\s`));

    // Edited: the same policy, updated.
    await op.kubectl.apply(
      retentionPolicy("team-retention", "team", {
        schedule: { type: "Custom", cron: "0 30 2 * * *" },
        rules: [{ ...keepTen, count: 3, untagged: true }],
      }),
    );
    const edited = await op.waitFor<RetentionPolicyCR>(KIND, "team-retention", readyForSpec);
    const updated = await policyOf("team");
    expect(harborIdOf(edited)).toBe(id);
    expect(updated.id).toBe(id);
    expect(updated.policy.trigger?.settings).toEqual({ cron: "0 30 2 * * *" });
    expect(updated.policy.rules).toHaveLength(1);
    expect(updated.policy.rules?.[0]).toMatchObject({
      params: { latestPushedK: 3 },
      tag_selectors: [{ extras: '{"untagged":true}' }],
    });

    // Changed in Harbor: put back, and named per rule and field.
    const changed = structuredClone(updated.policy) as RetentionPolicyRequest;
    const rule = changed.rules?.[0] as NonNullable<RetentionPolicyRequest["rules"]>[number];
    rule.params = { latestPushedK: 99 };
    rule.tag_selectors = [
      { kind: "doublestar", decoration: "excludes", pattern: "**", extras: '{"untagged":true}' },
    ];
    changed.trigger = { kind: "Schedule", settings: { cron: "" } };
    changed.scope = { level: "project", ref: projectId };
    await op.harbor.retention.update(id, changed);
    const after = await op.waitFor<RetentionPolicyCR>(
      KIND,
      "team-retention",
      (o) => (o.status?.lastDriftCorrection?.fields?.length ?? 0) > 0,
    );
    expect([...(after.status?.lastDriftCorrection?.fields ?? [])].sort()).toEqual([
      "rules[0].count",
      "rules[0].tags.decoration",
      "schedule",
    ]);
    const back = await op.harbor.retention.get(id);
    expect(back.rules?.[0]).toMatchObject({
      params: { latestPushedK: 3 },
      tag_selectors: [{ decoration: "matches" }],
    });
    expect(back.trigger?.settings).toEqual({ cron: "0 30 2 * * *" });

    // Deleted: the project keeps naming its policy, emptied (Harbor's DELETE would leave
    // retention_id naming nothing); a new resource (creationPolicy Create) takes the empty policy.
    await op.kubectl.delete(KIND, "team-retention", { wait: true });
    const emptied = await op.harbor.retention.get(id);
    expect(emptied.rules ?? []).toEqual([]);
    expect(emptied.trigger?.settings).toEqual({ cron: "" });
    await op.kubectl.apply(retentionPolicy("team-retention", "team", { rules: [releases] }));
    const again = await op.waitReady<RetentionPolicyCR>(KIND, "team-retention");
    expect(harborIdOf(again)).toBe(id);
    expect((await op.harbor.retention.get(id)).rules?.map((r) => r.template)).toEqual(["nDaysSinceLastPush"]);

    // The policy and its project deleted at once: the policy's deletion uses the project id it
    // recorded, whichever goes first.
    await op.kubectl.run(["delete", "harborproject/team", `${KIND}/team-retention`, "--wait=false"]);
    await op.kubectl.wait(KIND, "team-retention", "delete", budget.operatorMs);
    await op.kubectl.wait("harborproject", "team", "delete", budget.operatorMs);
    expect(await op.harbor.projects.exists("team")).toBe(false);
  });

  test("the drift sweep reads each policy by its id, neither its project nor its runs, and writes nothing", async () => {
    await op.kubectl.apply([
      project("swept"),
      retentionPolicy("swept-retention", "swept", { rules: [keepTen] }),
    ]);
    await op.waitReady<RetentionPolicyCR>(KIND, "swept-retention");
    const writes = op.emulator.counters.writes();
    for (const sweep of await harborCallsPerSweep(op, "HarborRetentionPolicy")) {
      expect(sweep.getRetention).toBe(1);
      expect(sweep.getProject).toBeUndefined();
      expect(sweep.listRetentionExecutions).toBeUndefined();
    }
    expect(op.emulator.counters.writes()).toBe(writes);
  });

  test("run now by annotation: a dry run with dryRun, followed to its end; reconciled again with the value handled, it starts nothing", async () => {
    op.emulator.control.projects.addRepository("swept", "app", 4);
    const spec = { rules: [{ ...keepTen, count: 3, untagged: true }], dryRun: true };
    await op.kubectl.apply(retentionPolicy("swept-retention", "swept", spec));
    await op.waitFor<RetentionPolicyCR>(KIND, "swept-retention", readyForSpec);
    await op.kubectl.run(["annotate", "--overwrite", KIND, "swept-retention", `${ANNOTATION}=first`]);
    const done = await op.waitFor<RetentionPolicyCR>(
      KIND,
      "swept-retention",
      (o) => o.status?.lastHandledRunAt === "first" && o.status.lastRun?.status === "Success",
    );
    const { id } = await policyOf("swept");
    const executions = await op.harbor.retention.listExecutions(id);
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ trigger: "MANUAL", dry_run: true, status: "Success" });
    expect(done.status?.runRequest?.executionId).toBe(executions[0]?.id);
    expect(done.status?.lastRun).toMatchObject({ id: executions[0]?.id, dryRun: true, trigger: "MANUAL" });
    await eventOf(op.kubectl, "swept-retention", "HarborRetentionPolicy", "RunStarted");
    // An edit is reconciled with the annotation as it was: no second run.
    await op.kubectl.apply(retentionPolicy("swept-retention", "swept", { ...spec, dryRun: false }));
    await op.waitFor<RetentionPolicyCR>(KIND, "swept-retention", readyForSpec);
    expect(await op.harbor.retention.listExecutions(id)).toHaveLength(1);
  });

  test("a proxy cache's policy is refused under Create and taken over under Adopt", async () => {
    const registryId = await op.harbor.registries.create({
      name: "hub",
      type: "docker-hub",
      url: "https://hub.docker.com",
      insecure: false,
    });
    await op.harbor.projects.create({ project_name: "cache", registry_id: registryId });
    await op.kubectl.apply([
      project("cache", { creationPolicy: "Adopt" }),
      retentionPolicy("cache-retention", "cache", { rules: [keepTen] }),
    ]);
    const refused = await op.waitFor<RetentionPolicyCR>(
      KIND,
      "cache-retention",
      (o) => condition(o, "Ready")?.reason === "AlreadyExists",
    );
    expect(refused.status?.harborId).toBeUndefined();
    await op.kubectl.apply(
      retentionPolicy("cache-retention", "cache", { rules: [keepTen], creationPolicy: "Adopt" }),
    );
    const adopted = await op.waitFor<RetentionPolicyCR>(KIND, "cache-retention", readyForSpec);
    const { id, policy } = await policyOf("cache");
    expect(adopted.status?.harborId).toBe(id);
    expect(policy.rules?.map((r) => r.template)).toEqual(["latestPushedK"]);
    await eventOf(op.kubectl, "cache-retention", "HarborRetentionPolicy", "Adopted");
  });

  test("a policy given to a project the operator has just created, while its first policy is on its way, is taken as that one", async () => {
    // The operator creates a new project's first policy without looking (a new project has none);
    // Harbor refusing a second policy makes it look after all, and the policy it finds is where its
    // own create may have happened (finalizer on, no id yet): taken over, as every kind does.
    await op.kubectl.apply(project("raced"));
    await op.waitReady("harborproject", "raced");
    const { project_id: projectId } = await op.harbor.projects.get("raced");
    const given = await op.harbor.retention.create({
      algorithm: "or",
      rules: [],
      trigger: { kind: "Schedule", settings: { cron: "0 0 0 * * *" } },
      scope: { level: "project", ref: projectId as number },
    });
    await op.kubectl.apply(retentionPolicy("raced-retention", "raced", { rules: [keepTen] }));
    const cr = await op.waitReady<RetentionPolicyCR>(KIND, "raced-retention");
    expect(cr.status?.harborId).toBe(given);
    const policy = await op.harbor.retention.get(given);
    expect(policy.rules?.map((r) => r.template)).toEqual(["latestPushedK"]);
    expect(policy.trigger?.settings?.cron).toBe("");
  });

  test("a project whose retention_id names a deleted policy waits, saying which key to remove", async () => {
    await op.kubectl.apply(project("lost"));
    await op.waitReady("harborproject", "lost");
    const { project_id: projectId } = await op.harbor.projects.get("lost");
    const old = await op.harbor.retention.create({
      algorithm: "or",
      rules: [],
      trigger: { kind: "Schedule", settings: { cron: "0 0 0 * * *" } },
      scope: { level: "project", ref: projectId as number },
    });
    await op.harbor.retention.delete(old);
    await op.kubectl.apply(retentionPolicy("lost-retention", "lost", { rules: [keepTen] }));
    const waiting = await op.waitFor<RetentionPolicyCR>(
      KIND,
      "lost-retention",
      (o) => condition(o, "Ready")?.reason === "RetentionPolicyLost",
    );
    expect(condition(waiting, "Ready")?.message).toContain(`/projects/${projectId}/metadatas/retention_id`);
    await op.harbor.transport.noContent({
      operation: "deleteProjectMetadata",
      method: "DELETE",
      path: `/projects/${projectId}/metadatas/retention_id`,
    });
    const cr = await op.waitReady<RetentionPolicyCR>(KIND, "lost-retention");
    expect(cr.status?.harborId).toBe((await policyOf("lost")).id);
    expect(cr.status?.harborId).not.toBe(old);
  });
});
