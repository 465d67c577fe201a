import { beforeAll, describe, expect, test } from "vitest";
import type { RetentionPolicyRequest, RetentionRule } from "../../../src/harbor/retention.ts";
import { harborError, harborFailure, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();
// Runs are looked at before their planned end: the world's time moves only when advanced.
beforeAll(() => h.emulator.control.clock.freeze());

const rule = (template: string, params: Record<string, number>, tags = "**"): RetentionRule => ({
  disabled: false,
  action: "retain",
  template,
  params,
  tag_selectors: [{ kind: "doublestar", decoration: "matches", pattern: tags }],
  scope_selectors: { repository: [{ kind: "doublestar", decoration: "repoMatches", pattern: "**" }] },
});

const policy = (projectId: number, rules: RetentionRule[], cron = ""): RetentionPolicyRequest => ({
  algorithm: "or",
  rules,
  trigger: { kind: "Schedule", settings: { cron }, references: {} },
  scope: { level: "project", ref: projectId },
});

async function newProject(name: string): Promise<number> {
  await h.admin.projects.create({ project_name: name });
  return (await h.admin.projects.get(name)).project_id as number;
}

describe("tag retention", () => {
  test("one policy per project, named by the project's retention_id; update replaces the rules", async () => {
    const pid = await newProject("ret-a");
    const id = await h.admin.retention.create(
      policy(pid, [rule("latestPushedK", { latestPushedK: 5 })], "0 0 0 * * *"),
    );
    expect((await h.admin.projects.get("ret-a")).metadata?.retention_id).toBe(String(id));
    const got = await h.admin.retention.get(id);
    expect(got).toMatchObject({ id, algorithm: "or", scope: { level: "project", ref: pid } });
    expect(got.trigger?.settings).toEqual({ cron: "0 0 0 * * *" });
    expect(got.rules?.[0]).toMatchObject({ template: "latestPushedK", params: { latestPushedK: 5 } });

    const second = await harborFailure(h.admin.retention.create(policy(pid, [])));
    expect(second).toMatchObject(harborError(400, `project ${pid} already has retention policy ${id}`));

    await h.admin.retention.update(id, policy(pid, [rule("always", {})]));
    expect((await h.admin.retention.get(id)).rules?.map((r) => r.template)).toEqual(["always"]);

    // An id that is not the project's retention_id is a 404.
    const other = await harborFailure(h.admin.retention.update(id + 1000, policy(pid, [])));
    expect(other).toMatchObject(harborError(404, `the retention policy id ${id + 1000} does not match`));
  });

  test("at most 15 rules; two rules alike are a conflict", async () => {
    const pid = await newProject("ret-b");
    const many = Array.from({ length: 16 }, (_, i) => rule("latestPushedK", { latestPushedK: i }));
    expect(await harborFailure(h.admin.retention.create(policy(pid, many)))).toMatchObject(
      harborError(400, "only 15 rules are allowed at most"),
    );
    const dup = [rule("always", {}), rule("latestPushedK", { latestPushedK: 1 }), rule("always", {})];
    expect(await harborFailure(h.admin.retention.create(policy(pid, dup)))).toMatchObject(
      harborError(409, "rule 2 is conflict with rule 0"),
    );
    expect((await h.admin.projects.get("ret-b")).metadata?.retention_id).toBeUndefined();
  });

  test("a policy Harbor does not have: 500 on GET, 400 on delete; delete leaves retention_id", async () => {
    const pid = await newProject("ret-c");
    const id = await h.admin.retention.create(policy(pid, [rule("always", {})]));
    await h.admin.retention.delete(id);
    expect((await harborFailure(h.admin.retention.get(id))).status).toBe(500);
    expect((await harborFailure(h.admin.retention.delete(id))).status).toBe(400);
    expect((await h.admin.projects.get("ret-c")).metadata?.retention_id).toBe(String(id));
    expect((await harborFailure(h.admin.retention.create(policy(pid, [])))).status).toBe(400);
    // Only removing the metadata key lets the project have a policy again.
    await h.admin.transport.noContent({
      operation: "deleteProjectMetadata",
      method: "DELETE",
      path: `/projects/${pid}/metadatas/retention_id`,
    });
    const again = await h.admin.retention.create(policy(pid, []));
    expect((await h.admin.projects.get("ret-c")).metadata?.retention_id).toBe(String(again));
  });

  test("run now and dry run: executions newest first, tasks per repository, stop", async () => {
    const pid = await newProject("ret-d");
    const id = await h.admin.retention.create(policy(pid, [rule("always", {})]));
    // No repositories: done at once.
    const e1 = await h.admin.retention.trigger(id, true);
    expect((await h.admin.retention.listExecutions(id))[0]).toMatchObject({
      id: e1,
      status: "Success",
      dry_run: true,
      trigger: "MANUAL",
    });
    h.emulator.control.projects.addRepository("ret-d", "app", 3);
    h.emulator.control.retention.setRunPlan(60_000);
    const e2 = await h.admin.retention.trigger(id, false);
    const list = await h.admin.retention.listExecutions(id);
    expect(list.map((e) => e.id)).toEqual([e2, e1]);
    expect(list[0]).toMatchObject({ status: "Running", dry_run: false });
    const tasks = await h.admin.retention.listTasks(id, e2);
    expect(tasks).toMatchObject([{ repository: "app", total: 3 }]);
    expect(await h.admin.retention.taskLog(id, e2, tasks[0]?.id as number)).toContain("app");
    await h.admin.retention.stopExecution(id, e2);
    expect((await h.admin.retention.listExecutions(id, 1))[0]).toMatchObject({ id: e2, status: "Stopped" });
    h.emulator.control.retention.setRunPlan(1000);
  });

  test("a run looks at the repositories enabled rules select; a template Harbor lacks fails the run", async () => {
    const pid = await newProject("ret-f");
    h.emulator.control.projects.addRepository("ret-f", "app", 1);
    h.emulator.control.projects.addRepository("ret-f", "tmp/scratch", 1);
    const only = (pattern: string, decoration = "repoMatches"): RetentionRule => ({
      ...rule("always", {}),
      scope_selectors: { repository: [{ kind: "doublestar", decoration, pattern }] },
    });
    const id = await h.admin.retention.create(
      policy(pid, [only("tmp/**", "repoExcludes"), { ...only("tmp/**"), disabled: true }]),
    );
    const e1 = await h.admin.retention.trigger(id, true);
    expect((await h.admin.retention.listTasks(id, e1)).map((t) => t.repository)).toEqual(["app"]);
    // Stored without a check; the run's job cannot evaluate it.
    await h.admin.retention.update(id, policy(pid, [{ ...only("**"), template: "keepAll" }]));
    const e2 = await h.admin.retention.trigger(id, false);
    h.emulator.world.clock.advance(2000);
    expect((await h.admin.retention.listExecutions(id, 1))[0]).toMatchObject({ id: e2, status: "Error" });
  });

  test("proxy-cache projects get a policy; deleting a project deletes its policy", async () => {
    const pid = await newProject("ret-e");
    const id = await h.admin.retention.create(policy(pid, [rule("always", {})]));
    await h.admin.projects.delete("ret-e");
    expect(h.emulator.control.retention.policies().some((p) => p.id === id)).toBe(false);
    const meta = await h.admin.retention.metadata();
    expect(meta.templates?.map((t) => t.rule_template)).toEqual([
      "latestPushedK",
      "latestPulledN",
      "nDaysSinceLastPush",
      "nDaysSinceLastPull",
      "always",
    ]);
  });
});
