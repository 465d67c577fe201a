// The client's extended audit log (auditLogs: GET /auditlog-exts, /projects/{p}/auditlog-exts,
// /auditlog-exts/events) on 2.15.2, and on 2.12.4, which has none of it: each call is a 404 that
// isRouteNotFound tells apart from Harbor's 404 for a missing project. Both releases are pinned:
// the point is the difference. What the emulator records on which release is versions.test.ts's.
import { describe, expect, test } from "vitest";
import { isRouteNotFound } from "../../../src/harbor/audit-logs.ts";
import { q } from "../../../src/harbor/query.ts";
import { harborFailure, projectRobot, useEmulator } from "../../env/harbor.ts";

describe("Harbor 2.15.2", () => {
  const h = useEmulator({ harborVersion: "2.15.2", loginFreezeMs: 0 });

  test("eventTypes: the names Harbor records, in its order", async () => {
    expect(await h.admin.auditLogs.eventTypes()).toEqual([
      "create_artifact",
      "delete_artifact",
      "pull_artifact",
      "create_project",
      "delete_project",
      "delete_repository",
      "login_user",
      "logout_user",
      "create_user",
      "delete_user",
      "update_user",
      "create_robot",
      "delete_robot",
      "update_configuration",
    ]);
  });

  test("list and ofProject: newest first, filtered by q, limited; a user sees the projects they administer", async () => {
    await h.admin.projects.create({ project_name: "team-a" });
    await h.admin.projects.create({ project_name: "team-b" });
    h.emulator.control.projects.pushArtifact("team-a", "api", { tag: "1.0" });
    const robot = await h.admin.robots.create(
      projectRobot("ci", "team-a", [{ resource: "repository", action: "pull" }]),
    );

    const ofA = await h.admin.auditLogs.ofProject("team-a");
    expect(ofA.map((e) => `${e.operation} ${e.resource_type} ${e.resource}`)).toEqual([
      `create robot ${robot.name}`,
      "create artifact team-a/api:1.0",
      "create project team-a",
    ]);
    expect(ofA[2]).toMatchObject({
      username: "admin",
      operation_result: true,
      operation_description: expect.any(String),
    });

    const all = await h.admin.auditLogs.list({ q: q().exact("resource_type", "project") });
    expect(all.map((e) => e.resource)).toEqual(["team-b", "team-a"]);
    expect(await h.admin.auditLogs.list({ limit: 1 })).toHaveLength(1);

    // A project admin of team-b only (role 1).
    const lead = { username: "lead", password: "Lead12345" };
    const { user_id } = h.emulator.control.users.add(lead);
    await h.admin.members.create("team-b", { role_id: 1, member_user: { user_id } });
    const seen = await h.client(lead).auditLogs.list();
    expect(new Set(seen.map((e) => e.resource?.split("/")[0]))).toEqual(new Set(["team-b"]));
  });

  test("listLegacy: the old log across projects is served but no longer written", async () => {
    await h.admin.projects.create({ project_name: "unlogged" });
    expect(await h.admin.auditLogs.listLegacy()).toEqual([]);
  });

  test("ofProject of a project Harbor lacks: its 404 for the project, not a missing route", async () => {
    const e = await harborFailure(h.admin.auditLogs.ofProject("nope"));
    expect(e).toMatchObject({ kind: "notFound", operation: "getLogExts" });
    expect(isRouteNotFound(e)).toBe(false);
  });
});

describe("Harbor 2.12.4", () => {
  const h = useEmulator({ harborVersion: "2.12.4", loginFreezeMs: 0 });

  test("every call is Harbor's route not found; the project log is where 2.12 records", async () => {
    await h.admin.projects.create({ project_name: "team-a" });
    for (const call of [
      h.admin.auditLogs.eventTypes(),
      h.admin.auditLogs.list(),
      h.admin.auditLogs.ofProject("team-a"),
    ]) {
      const e = await harborFailure(call);
      expect(e.status).toBe(404);
      expect(isRouteNotFound(e)).toBe(true);
    }
    expect((await h.admin.projects.logs("team-a")).map((e) => `${e.operation} ${e.resource}`)).toEqual([
      "create team-a",
    ]);
  });

  test("listLegacy: the old log across projects; a member reads the projects whose log they may read", async () => {
    await h.admin.projects.create({ project_name: "team-b" });
    h.emulator.control.clock.advance(1_000);
    h.emulator.control.projects.pushArtifact("team-b", "web", { tag: "2.0" });
    const all = await h.admin.auditLogs.listLegacy({ q: q().exact("resource_type", "project") });
    expect(all.map((e) => e.resource)).toEqual(["team-b", "team-a"]);
    expect(await h.admin.auditLogs.listLegacy({ limit: 1 })).toEqual([
      expect.objectContaining({ resource: "team-b/web:2.0", resource_type: "artifact" }),
    ]);

    // A developer of team-b (role 2): up to 2.12 developers read their project's log.
    const dev = { username: "dev", password: "Dev12345" };
    const { user_id } = h.emulator.control.users.add(dev);
    await h.admin.members.create("team-b", { role_id: 2, member_user: { user_id } });
    const seen = await h.client(dev).auditLogs.listLegacy();
    expect(new Set(seen.map((e) => e.resource?.split("/")[0]))).toEqual(new Set(["team-b"]));
    expect((await h.raw("GET", "/audit-logs", undefined, { as: "anonymous" })).status).toBe(401);
  });
});
