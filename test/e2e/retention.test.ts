// HarborRetentionPolicy end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator). One policy per project (the project's retention_id), rules as Harbor's UI writes them,
// update, drift reverted and named per rule and field, a drift check of one read per policy,
// adoption of a proxy project's policy, a second resource for the project in Conflict, deletion
// that leaves an empty policy (and a new resource that fills it again), run now and dry runs by
// annotation, and bad input refused by kubectl.
import { describe, expect, test } from "vitest";
import type { RetentionPolicyRequest } from "../../src/harbor/retention.ts";
import { useOperator } from "../env/operator.ts";
import { refusedByKubectl } from "../env/refused.ts";
import {
  clusterConnection,
  condition,
  credentials,
  eventReasons,
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
  test("apply → Harbor holds the policy as its UI writes it, the project names it; kubectl get shows it", async () => {
    await op.kubectl.apply([
      project("team"),
      retentionPolicy("team-retention", "team", { schedule: { type: "Daily" }, rules: [keepTen, releases] }),
    ]);
    const cr = await op.waitReady<RetentionPolicyCR>(KIND, "team-retention");
    const { id, policy, projectId } = await policyOf("team");
    expect(cr.status?.harborId).toBe(id);
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
    expect(await eventReasons(op.kubectl, "team-retention", "HarborRetentionPolicy")).toContain("Created");
    const table = await op.kubectl.run(["get", "harborretentionpolicies"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+PROJECT\s+SCHEDULE\s+LAST RUN\s+AGE/);
    expect(table).toMatch(new RegExp(`team-retention\\s+True\\s+Synced\\s+${id}\\s+team\\s+Daily\\s`));
  });

  test("editing the YAML updates the policy in place", async () => {
    await op.kubectl.apply(
      retentionPolicy("team-retention", "team", {
        schedule: { type: "Custom", cron: "0 30 2 * * *" },
        rules: [{ ...keepTen, count: 3, untagged: true }],
      }),
    );
    const cr = await op.waitFor<RetentionPolicyCR>(KIND, "team-retention", readyForSpec);
    const { id, policy } = await policyOf("team");
    expect(cr.status?.harborId).toBe(id);
    expect(policy.trigger?.settings).toEqual({ cron: "0 30 2 * * *" });
    expect(policy.rules).toHaveLength(1);
    expect(policy.rules?.[0]).toMatchObject({
      params: { latestPushedK: 3 },
      tag_selectors: [{ extras: '{"untagged":true}' }],
    });
  });

  test("a change made in Harbor is put back and named per rule and field", async () => {
    const { id, policy, projectId } = await policyOf("team");
    const changed = structuredClone(policy) as RetentionPolicyRequest;
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
      30_000,
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
  });

  test("steady state: the drift check reads each policy by its id, neither its project nor its runs", async () => {
    const before = op.emulator.counters.list();
    const writes = op.emulator.counters.writes();
    await new Promise((r) => setTimeout(r, 8_000)); // more than two drift intervals of 3 s
    const since = op.emulator.counters.since(before);
    expect(op.emulator.counters.writes()).toBe(writes);
    expect(since.getRetention).toBeGreaterThan(0);
    expect(since.getProject).toBeUndefined();
    expect(since.listRetentionExecutions).toBeUndefined();
  });

  test("a second resource for the same project is a Conflict and touches nothing", async () => {
    await op.kubectl.apply(
      retentionPolicy("team-retention-2", "team", { creationPolicy: "Adopt", rules: [releases] }),
    );
    const cr = await op.waitFor<RetentionPolicyCR>(
      KIND,
      "team-retention-2",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(cr, "Ready")?.message).toContain("team-retention");
    expect((await policyOf("team")).policy.rules).toHaveLength(1);
    await op.kubectl.delete(KIND, "team-retention-2", { wait: true });
    expect((await policyOf("team")).policy.rules).toHaveLength(1);
  });

  test("run now by annotation: one run per new value, a dry run with dryRun, followed to its end", async () => {
    op.emulator.control.projects.addRepository("team", "app", 4);
    await op.kubectl.apply(
      retentionPolicy("team-retention", "team", {
        schedule: { type: "Custom", cron: "0 30 2 * * *" },
        rules: [{ ...keepTen, count: 3, untagged: true }],
        dryRun: true,
      }),
    );
    await op.waitFor<RetentionPolicyCR>(KIND, "team-retention", readyForSpec);
    await op.kubectl.run(["annotate", "--overwrite", KIND, "team-retention", `${ANNOTATION}=first`]);
    const done = await op.waitFor<RetentionPolicyCR>(
      KIND,
      "team-retention",
      (o) => o.status?.lastHandledRunAt === "first" && o.status.lastRun?.status === "Success",
      30_000,
    );
    const { id } = await policyOf("team");
    const executions = await op.harbor.retention.listExecutions(id);
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ trigger: "MANUAL", dry_run: true, status: "Success" });
    expect(done.status?.runRequest?.executionId).toBe(executions[0]?.id);
    expect(done.status?.lastRun).toMatchObject({ id: executions[0]?.id, dryRun: true, trigger: "MANUAL" });
    expect(await eventReasons(op.kubectl, "team-retention", "HarborRetentionPolicy")).toContain("RunStarted");
    // The same value again starts nothing.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await op.harbor.retention.listExecutions(id)).toHaveLength(1);
  });

  test("deletion leaves the project's policy empty; a new resource fills it again", async () => {
    const { id } = await policyOf("team");
    await op.kubectl.delete(KIND, "team-retention", { wait: true });
    const emptied = await op.harbor.retention.get(id);
    expect(emptied.rules ?? []).toEqual([]);
    expect(emptied.trigger?.settings).toEqual({ cron: "" });
    // The project still names it; a new resource (creationPolicy Create) takes the empty policy.
    await op.kubectl.apply(retentionPolicy("team-retention", "team", { rules: [releases] }));
    const cr = await op.waitReady<RetentionPolicyCR>(KIND, "team-retention");
    expect(cr.status?.harborId).toBe(id);
    expect((await op.harbor.retention.get(id)).rules?.map((r) => r.template)).toEqual(["nDaysSinceLastPush"]);
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
      30_000,
    );
    expect(refused.status?.harborId).toBeUndefined();
    await op.kubectl.apply(
      retentionPolicy("cache-retention", "cache", { rules: [keepTen], creationPolicy: "Adopt" }),
    );
    const adopted = await op.waitFor<RetentionPolicyCR>(KIND, "cache-retention", readyForSpec);
    const { id, policy } = await policyOf("cache");
    expect(adopted.status?.harborId).toBe(id);
    expect(policy.rules?.map((r) => r.template)).toEqual(["latestPushedK"]);
    expect(await eventReasons(op.kubectl, "cache-retention", "HarborRetentionPolicy")).toContain("Adopted");
  });

  test("a project whose retention_id names a deleted policy waits, saying which key to remove", async () => {
    await op.kubectl.apply(project("lost"));
    await op.waitReady(`harborproject`, "lost");
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
      30_000,
    );
    expect(condition(waiting, "Ready")?.message).toContain(`/projects/${projectId}/metadatas/retention_id`);
    await op.harbor.transport.noContent({
      operation: "deleteProjectMetadata",
      method: "DELETE",
      path: `/projects/${projectId}/metadatas/retention_id`,
    });
    const cr = await op.waitReady<RetentionPolicyCR>(KIND, "lost-retention", 60_000);
    expect(cr.status?.harborId).toBe((await policyOf("lost")).id);
    expect(cr.status?.harborId).not.toBe(old);
  });

  test("through a ClusterHarborConnection: the project of the tenant's tenancy.projects", async () => {
    const shared = `${op.namespace}-shared`;
    const ref = { kind: "ClusterHarborConnection" as const, name: shared };
    await op.kubectl.apply(
      credentials("shared-credentials", {
        username: op.emulator.adminUsername,
        password: op.emulator.adminPassword,
      }),
    );
    await op.kubectl.apply(
      clusterConnection(shared, {
        url: op.emulator.url,
        credentialsSecretRef: { name: "shared-credentials", namespace: op.namespace },
        allowedNamespaces: [op.namespace],
        tenancy: {
          projects: ["{namespace}"],
          allowAdoption: false,
          allowSystemRobots: false,
          allowSystemSettings: false,
        },
      }),
    );
    try {
      await op.kubectl.apply([
        project(op.namespace, { connectionRef: ref }),
        retentionPolicy("tenant-retention", op.namespace, { connectionRef: ref, rules: [keepTen] }),
      ]);
      const cr = await op.waitReady<RetentionPolicyCR>(KIND, "tenant-retention", 60_000);
      expect(cr.status?.harborId).toBe((await policyOf(op.namespace)).id);
      await op.kubectl.delete(KIND, "tenant-retention", { wait: true });
      await op.kubectl.delete("harborproject", op.namespace, { wait: true });
    } finally {
      await op.kubectl.tryRun(["delete", "clusterharborconnection", shared, "--wait=false"]);
    }
  });

  test("a policy and its project deleted together both go", async () => {
    await op.kubectl.apply([
      project("short-lived"),
      retentionPolicy("short-lived-retention", "short-lived", { rules: [keepTen] }),
    ]);
    await op.waitReady<RetentionPolicyCR>(KIND, "short-lived-retention");
    await op.kubectl.run([
      "delete",
      "harborproject/short-lived",
      `${KIND}/short-lived-retention`,
      "--wait=false",
    ]);
    await op.kubectl.run([
      "wait",
      "--for=delete",
      `${KIND}/short-lived-retention`,
      "harborproject/short-lived",
      "--timeout=60s",
    ]);
    expect(await op.harbor.projects.exists("short-lived")).toBe(false);
  });

  test("invalid YAML is refused by kubectl, naming the field", async () => {
    const refused = (o: object) => refusedByKubectl(op.kubectl, o);
    const bad = (rules: unknown[], extra: object = {}) =>
      retentionPolicy("bad", "team", { rules: rules as never, ...extra });
    expect(await refused(bad(Array.from({ length: 16 }, (_, i) => ({ ...keepTen, count: i }))))).toMatch(
      /spec\.rules: Too many: 16: must have at most 15 items/,
    );
    expect(await refused(bad([keepTen, releases, keepTen]))).toMatch(
      /spec\.rules: Invalid value.*two rules are alike/,
    );
    expect(await refused(bad([{ template: "latestPushedK" }]))).toMatch(
      /spec\.rules\[0\]\.count: Required value/,
    );
    expect(await refused(bad([{ template: "always", days: 3 }]))).toMatch(
      /spec\.rules\[0\]\.days: Forbidden/,
    );
    expect(await refused(bad([{ template: "latestPushedK", count: 40000 }]))).toMatch(
      /spec\.rules\[0\]\.count/,
    );
    expect(await refused(bad([{ template: "keepAll" }]))).toMatch(
      /spec\.rules\[0\]\.template: Unsupported value/,
    );
    expect(await refused(bad([], { schedule: { type: "Manual" } }))).toMatch(/spec\.schedule\.type/);
    expect(
      await refused(retentionPolicy("team-retention", "team", { projectRef: { name: "other" } } as never)),
    ).toMatch(/projectRef is immutable: it stays "team"/);
  });
});
