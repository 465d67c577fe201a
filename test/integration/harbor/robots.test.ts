import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { HarborClient } from "../../../src/harbor/client.ts";
import { q } from "../../../src/harbor/query.ts";
import type { RobotCreate, RobotPermissionInput } from "../../../src/harbor/robots.ts";
import { harborError, harborFailure, projectRobot, systemRobot, useEmulator } from "../../env/harbor.ts";

// A wrong password here is only a way to a 401: no login freeze (observed.test.ts proves it).
const h = useEmulator({ loginFreezeMs: 0 });

const DAY = 86_400;

const pull = (project: string): RobotPermissionInput => ({
  kind: "project",
  namespace: project,
  access: [{ resource: "repository", action: "pull" }],
});

function as(robot: { name: string; secret: string }): HarborClient {
  return h.client({ username: robot.name, password: robot.secret, maxRetries: 0 });
}

let teamId = 0;
beforeAll(async () => {
  teamId = await h.admin.projects.create({ project_name: "team" });
});

describe("robot accounts (v2)", () => {
  test("create returns the one-time secret; GET and list never show it", async () => {
    const res = await h.api("/robots", {
      method: "POST",
      body: JSON.stringify({
        name: "ci",
        description: "builds",
        level: "system",
        duration: 30,
        secret: "IgnoredByHarbor1",
        disable: true,
        permissions: [{ kind: "system", namespace: "/", access: [{ resource: "project", action: "list" }] }],
      }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as {
      id: number;
      name: string;
      secret: string;
      creation_time: string;
      expires_at: number;
    };
    expect(res.headers.get("location")).toBe(`/api/v2.0/robots/${body.id}`);
    expect(body.name).toBe("robot$ci");
    expect(body.secret).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(body.secret).toMatch(/[A-Z]/);
    expect(body.secret).toMatch(/[a-z]/);
    expect(body.secret).toMatch(/[0-9]/);
    expect(body.secret).not.toBe("IgnoredByHarbor1");
    const created = Date.parse(body.creation_time) / 1000;
    expect(body.expires_at).toBe(Math.floor(created) + 30 * DAY);

    const raw = (await (await h.api(`/robots/${body.id}`)).json()) as Record<string, unknown>;
    expect(raw).not.toHaveProperty("secret");
    expect(raw).toMatchObject({
      id: body.id,
      name: "robot$ci",
      description: "builds",
      level: "system",
      duration: 30,
      editable: true,
      disable: false, // always emitted; `disable` is ignored on create
      expires_at: body.expires_at,
      creator_type: "local",
      creator_ref: 1,
      permissions: [{ kind: "system", namespace: "/", access: [{ resource: "project", action: "list" }] }],
    });
    const listed = await h.admin.robots.list({ q: q().exact("name", "ci") });
    expect(listed).toHaveLength(1);
    expect(listed[0]?.secret).toBeUndefined();
    // The secret works for basic auth.
    expect(h.emulator.control.robots.verify("robot$ci", body.secret)).toBe(true);
    expect(h.emulator.control.robots.list().every((r) => !("secret" in r))).toBe(true);
  });

  test("a robot's secret gives exactly its permissions on API calls", async () => {
    const robot = await h.admin.robots.create(
      projectRobot("lister", "team", [{ resource: "robot", action: "list" }]),
    );
    expect(robot.name).toBe("robot$team+lister");
    const c = as(robot);
    const mine = await c.robots.list({ projectId: teamId });
    expect(mine.map((r) => r.name)).toContain("robot$team+lister");
    // No system robot:list: 403 with the robot's name as the message.
    expect(await harborFailure(c.robots.list())).toMatchObject({
      status: 403,
      code: "FORBIDDEN",
      harborMessage: "robot$team+lister",
    });
    expect(await harborFailure(c.projects.create({ project_name: "robot-project" }))).toMatchObject({
      status: 403,
      harborMessage: "Only system level robot can create project",
    });
    // robot:list does not include robot:read or robot:create.
    expect((await harborFailure(c.robots.get(robot.id))).status).toBe(403);
    expect(
      (
        await harborFailure(
          c.robots.create(projectRobot("child", "team", [{ resource: "robot", action: "list" }])),
        )
      ).status,
    ).toBe(403);
  });

  test("expired, disabled and wrong secrets give 401 on protected routes", async () => {
    const make = async (name: string, duration = -1) =>
      h.admin.robots.create(systemRobot(name, [{ resource: "robot", action: "list" }], duration));
    const ok = await make("auth-ok");
    await as(ok).robots.list();

    const wrong = await harborFailure(as({ name: ok.name, secret: `${ok.secret}x` }).robots.list());
    expect(wrong).toMatchObject(harborError(401, "unauthorized"));

    const disabled = await make("auth-disabled");
    h.emulator.control.robots.disable(disabled.id);
    expect((await harborFailure(as(disabled).robots.list())).status).toBe(401);
    expect(h.emulator.control.robots.verify(disabled.name, disabled.secret)).toBe(false);
    h.emulator.control.robots.disable(disabled.id, false);
    await as(disabled).robots.list();

    const expired = await make("auth-expired");
    h.emulator.control.robots.expire(expired.id);
    expect((await harborFailure(as(expired).robots.list())).status).toBe(401);

    // Expiry follows the world clock: a 1-day robot stops working after a day.
    const short = await make("auth-short", 1);
    await as(short).robots.list();
    h.emulator.control.clock.advance(DAY * 1000 + 1000);
    expect((await harborFailure(as(short).robots.list())).status).toBe(401);
    // A disabled robot set through PUT stops working too.
    const viaPut = await make("auth-put");
    const got = await h.admin.robots.get(viaPut.id);
    await h.admin.robots.update(viaPut.id, {
      name: got.name ?? "",
      level: "system",
      disable: true,
      permissions: [{ kind: "system", namespace: "/", access: [{ resource: "robot", action: "list" }] }],
    });
    expect((await harborFailure(as(viaPut).robots.list())).status).toBe(401);
  });

  test("refresh: a generated secret replaces the old one; a user secret returns {}; weak secrets 400", async () => {
    const robot = await h.admin.robots.create(
      systemRobot("rotating", [{ resource: "robot", action: "list" }], -1),
    );
    const { secret } = await h.admin.robots.refreshSecret(robot.id);
    expect(secret).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(secret).not.toBe(robot.secret);
    expect((await harborFailure(as(robot).robots.list())).status).toBe(401);
    await as({ name: robot.name, secret: secret ?? "" }).robots.list();

    const res = await h.api(`/robots/${robot.id}`, {
      method: "PATCH",
      body: JSON.stringify({ secret: "MyOwnSecret9" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    await as({ name: robot.name, secret: "MyOwnSecret9" }).robots.list();
    expect(h.emulator.control.robots.verify(robot.name, secret ?? "")).toBe(false);

    for (const weak of [
      "short1A",
      "alllowercase1",
      "ALLUPPERCASE1",
      "NoDigitsHere",
      `A1${"a".repeat(127)}`,
    ]) {
      const err = await harborFailure(h.admin.robots.refreshSecret(robot.id, weak));
      expect(err).toMatchObject({
        status: 400,
        code: "BAD_REQUEST",
        harborMessage:
          "the secret must be 8-128, inclusively, characters long with at least 1 uppercase letter, 1 lowercase letter and 1 number",
      });
    }
    const noBody = await h.api(`/robots/${robot.id}`, { method: "PATCH" });
    expect(noBody.status).toBe(422);
    expect((await harborFailure(h.admin.robots.refreshSecret(999_999))).harborMessage).toBe(
      "robot 999999 not found",
    );
  });

  test("PUT: GET-modify-PUT works; name and level must repeat; duration recomputes from creation", async () => {
    const robot = await h.admin.robots.create({
      name: "editable",
      level: "project",
      duration: 5,
      permissions: [pull("team")],
    });
    const got = await h.admin.robots.get(robot.id);
    const created = Math.floor(Date.parse(got.creation_time ?? "") / 1000);
    h.emulator.control.clock.advance(3 * DAY * 1000);
    await h.admin.robots.update(robot.id, {
      name: got.name ?? "",
      level: "project",
      description: "now described",
      duration: 10,
      permissions: [
        { kind: "project", namespace: "team", access: [{ resource: "repository", action: "push" }] },
      ],
    });
    const after = await h.admin.robots.get(robot.id);
    expect(after).toMatchObject({
      description: "now described",
      duration: 10,
      expires_at: created + 10 * DAY,
    });
    expect(after.permissions?.[0]?.access).toEqual([{ resource: "repository", action: "push" }]);
    // Omitting duration keeps it; -1 means never.
    await h.admin.robots.update(robot.id, {
      name: got.name ?? "",
      level: "project",
      permissions: [pull("team")],
    });
    expect((await h.admin.robots.get(robot.id)).expires_at).toBe(created + 10 * DAY);
    await h.admin.robots.update(robot.id, {
      name: got.name ?? "",
      level: "project",
      duration: -1,
      permissions: [pull("team")],
    });
    expect((await h.admin.robots.get(robot.id)).expires_at).toBe(-1);

    const renamed = await harborFailure(
      h.admin.robots.update(robot.id, {
        name: "robot$team+other",
        level: "project",
        permissions: [pull("team")],
      }),
    );
    expect(renamed).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
      harborMessage: "cannot update the level or name of robot",
    });
    const bare = await harborFailure(
      h.admin.robots.update(robot.id, {
        name: "team+editable",
        level: "project",
        permissions: [pull("team")],
      }),
    );
    expect(bare.harborMessage).toBe("cannot update the level or name of robot");
    const relevel = await harborFailure(
      h.admin.robots.update(robot.id, { name: got.name ?? "", level: "system", permissions: [pull("team")] }),
    );
    expect(relevel.harborMessage).toBe("cannot update the level or name of robot");
    await h.admin.projects.create({ project_name: "elsewhere" });
    const moved = await harborFailure(
      h.admin.robots.update(robot.id, {
        name: got.name ?? "",
        level: "project",
        permissions: [pull("elsewhere")],
      }),
    );
    expect(moved.harborMessage).toBe("cannot update the project id of robot");
  });

  test("legacy robots are not editable", async () => {
    const legacy = h.emulator.control.robots.addLegacy("robot$old-style", "team");
    const got = await h.admin.robots.get(legacy.id);
    expect(got).toMatchObject({ name: "robot$old-style", editable: false, level: "project" });
    expect(got.permissions).toBeUndefined();
    const err = await harborFailure(
      h.admin.robots.update(legacy.id, {
        name: "robot$old-style",
        level: "project",
        permissions: [pull("team")],
      }),
    );
    expect(err).toMatchObject({
      status: 403,
      code: "DENIED",
      harborMessage: "editing of legacy robot is not allowed",
    });
    await h.admin.robots.delete(legacy.id);
  });

  test("duplicates are 409 with Harbor's message (stored name and project id)", async () => {
    const system: RobotCreate = systemRobot("dup", [{ resource: "robot", action: "read" }], -1);
    await h.admin.robots.create(system);
    expect(await harborFailure(h.admin.robots.create(system))).toMatchObject(
      harborError(409, "robot account 0:dup already exists"),
    );
    // The same short name in a project is a different robot.
    await h.admin.robots.create({ ...system, level: "project", permissions: [pull("team")] });
    const err = await harborFailure(
      h.admin.robots.create({ ...system, level: "project", permissions: [pull("team")] }),
    );
    expect(err.harborMessage).toBe(`robot account ${teamId}:team+dup already exists`);
  });

  test("create validation: name, duration, level, permissions, scopes and namespaces", async () => {
    const base: RobotCreate = { name: "valid", level: "project", duration: 7, permissions: [pull("team")] };
    const message = async (r: RobotCreate) => (await harborFailure(h.admin.robots.create(r))).harborMessage;
    expect(await message({ ...base, name: "Bad+Name" })).toBe(
      "robot name is not in lower case or contains illegal characters",
    );
    expect(await message({ ...base, duration: 0 })).toBe(
      "bad request error duration input: 0, duration must be either -1(Never) or a positive integer",
    );
    expect(await message({ ...base, duration: -2 })).toContain("bad request error duration input: -2");
    expect(await message({ ...base, duration: 2 ** 31 - 1 })).toContain("bad request error duration input");
    expect(await message({ ...base, permissions: [pull("team"), pull("team")] })).toBe(
      "bad request permission",
    );
    expect(
      await message({
        ...base,
        permissions: [{ kind: "project", namespace: "team", access: [{ resource: "robot", action: "*" }] }],
      }),
    ).toBe("bad request permission: robot:*");
    expect(
      await message({
        ...base,
        permissions: [
          { kind: "project", namespace: "team", access: [{ resource: "robot", action: "update" }] },
        ],
      }),
    ).toBe("bad request permission: robot:update");
    expect(
      await message({
        ...base,
        level: "system",
        permissions: [
          { kind: "system", namespace: "/", access: [{ resource: "repository", action: "pull" }] },
        ],
      }),
    ).toBe("bad request permission: repository:pull");
    expect(
      await message({
        ...base,
        level: "system",
        permissions: [
          { kind: "system", namespace: "team", access: [{ resource: "project", action: "list" }] },
        ],
      }),
    ).toBe("unknown namespace");
    const unknownProject = await harborFailure(
      h.admin.robots.create({ ...base, permissions: [pull("no-such-project")] }),
    );
    expect(unknownProject).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      harborMessage: "project no-such-project not found",
    });

    const raw = async (body: unknown) => {
      const res = await h.api("/robots", {
        method: "POST",
        body: JSON.stringify(body),
      });
      return {
        status: res.status,
        body: (await res.json()) as { errors: Array<{ code: string; message: string }> },
      };
    };
    expect((await raw({ ...base, level: "global" })).body.errors[0]?.message).toBe(
      "bad request error level input: global",
    );
    expect((await raw({ ...base, permissions: [] })).body.errors[0]?.message).toBe(
      "bad request empty permission",
    );
    expect(
      (await raw({ ...base, permissions: [{ kind: "project", namespace: "team", access: [] }] })).body
        .errors[0]?.message,
    ).toBe("bad request empty access");
    expect(
      (
        await raw({
          ...base,
          level: "system",
          permissions: [{ kind: "other", namespace: "/", access: [{ resource: "project", action: "list" }] }],
        })
      ).body.errors[0]?.message,
    ).toBe("bad request permission level: other");
    // Swagger-level failures are 422.
    const typed = await raw({ ...base, duration: "7" });
    expect(typed.status).toBe(422);
    expect(typed.body.errors[0]?.code).toBe("UNPROCESSABLE_ENTITY");
    // A system robot may hold project permissions for any project, or "*" for all.
    const wide = await h.admin.robots.create({
      name: "wide",
      level: "system",
      duration: -1,
      permissions: [
        { kind: "system", namespace: "/", access: [{ resource: "project", action: "list" }] },
        { kind: "project", namespace: "*", access: [{ resource: "repository", action: "pull" }] },
      ],
    });
    expect((await h.admin.robots.get(wide.id)).permissions).toHaveLength(2);
  });

  test("the system list leaves project robots out; q=Level=project,ProjectID=N lists a project's", async () => {
    await h.admin.projects.create({ project_name: "listing" });
    const listingId = h.emulator.world.projects.byName("listing")?.project_id ?? 0;
    for (const n of ["zeta", "alpha", "mid"])
      await h.admin.robots.create({
        ...projectRobot(n, "listing", [{ resource: "repository", action: "pull" }]),
      });

    const system = await h.admin.robots.list();
    expect(system.every((r) => r.level === "system")).toBe(true);
    expect(system.some((r) => r.name?.startsWith("robot$listing+"))).toBe(false);

    const inProject = await h.admin.robots.list({ projectId: listingId });
    expect(inProject.map((r) => r.name)).toEqual([
      "robot$listing+alpha",
      "robot$listing+mid",
      "robot$listing+zeta",
    ]);
    const sorted = await h.admin.robots.list({ projectId: listingId, sort: "-name" });
    expect(sorted.map((r) => r.name)).toEqual([
      "robot$listing+zeta",
      "robot$listing+mid",
      "robot$listing+alpha",
    ]);
    const fuzzy = await h.admin.robots.list({ projectId: listingId, q: q().fuzzy("name", "ALP") });
    expect(fuzzy.map((r) => r.name)).toEqual(["robot$listing+alpha"]);

    const raw = async (query: string) => {
      const res = await h.api(`/robots?${query}`);
      return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
    };
    const paged = await raw(
      `q=${encodeURIComponent(`Level=project,ProjectID=${listingId}`)}&page=1&page_size=2`,
    );
    expect(paged.headers.get("x-total-count")).toBe("3");
    expect(paged.headers.get("link")).toBe(
      `</api/v2.0/robots?page=2&page_size=2&q=Level=project,ProjectID=${listingId}>; rel="next"`,
    );
    expect(await raw(`q=${encodeURIComponent("Level=project")}`)).toMatchObject({
      status: 400,
      body: {
        errors: [{ code: "BAD_REQUEST", message: "must with project ID when to query project robots" }],
      },
    });
    expect(await raw(`q=${encodeURIComponent("Level=global")}`)).toMatchObject({
      status: 400,
      body: { errors: [{ code: "BAD_REQUEST", message: "bad request error level input" }] },
    });
    expect(await raw(`q=${encodeURIComponent("Level=project,ProjectID=abc")}`)).toMatchObject({
      status: 400,
      body: { errors: [{ message: "Project ID must be int type." }] },
    });
    const anon = await h.api("/robots", { as: "anonymous" });
    expect(anon.status).toBe(401);
  });

  test("project roles: maintainers list and read project robots but cannot create them", async () => {
    h.addUser("mona");
    h.emulator.control.users.setMember("team", "mona", "maintainer");
    const mona = h.client({ username: "mona", password: "Mona12345" });
    const robot = await h.admin.robots.create(
      projectRobot("seen", "team", [{ resource: "repository", action: "pull" }]),
    );
    expect((await mona.robots.list({ projectId: teamId })).map((r) => r.name)).toContain("robot$team+seen");
    expect((await mona.robots.get(robot.id)).name).toBe("robot$team+seen");
    expect(
      await harborFailure(
        mona.robots.create(projectRobot("nope", "team", [{ resource: "repository", action: "pull" }])),
      ),
    ).toMatchObject({
      status: 403,
      harborMessage: "forbidden",
    });
    expect((await harborFailure(mona.robots.delete(robot.id))).status).toBe(403);
    // System robots need system access: the username is the message.
    expect(await harborFailure(mona.robots.list())).toMatchObject({ status: 403, harborMessage: "mona" });
    // An unknown project is 403 for non-admins, 404 for admins.
    expect(
      (
        await harborFailure(
          mona.robots.create(
            projectRobot("x", "ghost-project", [{ resource: "repository", action: "pull" }]),
          ),
        )
      ).status,
    ).toBe(403);
  });

  test("a robot may create robots only with equal or narrower permissions", async () => {
    const parent = await h.admin.robots.create({
      name: "parent",
      level: "system",
      duration: -1,
      permissions: [
        { kind: "system", namespace: "/", access: [{ resource: "robot", action: "create" }] },
        { kind: "project", namespace: "team", access: [{ resource: "repository", action: "pull" }] },
      ],
    });
    const c = as(parent);
    const child = await c.robots.create({
      name: "child",
      level: "system",
      duration: 1,
      permissions: [pull("team")],
    });
    const got = await h.admin.robots.get(child.id);
    expect(got).toMatchObject({ creator_type: "robot", creator_ref: parent.id });
    const wider = await harborFailure(
      c.robots.create({
        name: "wider",
        level: "system",
        duration: 1,
        permissions: [
          { kind: "project", namespace: "team", access: [{ resource: "repository", action: "push" }] },
        ],
      }),
    );
    expect(wider).toMatchObject({
      status: 403,
      code: "DENIED",
      harborMessage:
        "permission scope is invalid. It must be equal to or more restrictive than the creator robot's permissions: robot$parent",
    });
  });

  test("delete removes the robot; deleting its project removes project robots and scoped permissions", async () => {
    await h.admin.projects.create({ project_name: "doomed" });
    const inProject = await h.admin.robots.create(
      projectRobot("gone", "doomed", [{ resource: "repository", action: "pull" }]),
    );
    const system = await h.admin.robots.create({
      name: "survivor",
      level: "system",
      duration: -1,
      permissions: [
        { kind: "system", namespace: "/", access: [{ resource: "project", action: "list" }] },
        { kind: "project", namespace: "doomed", access: [{ resource: "repository", action: "pull" }] },
      ],
    });
    await h.admin.projects.delete("doomed");
    expect(await harborFailure(h.admin.robots.get(inProject.id))).toMatchObject({
      status: 404,
      harborMessage: `robot ${inProject.id} not found`,
    });
    expect((await h.admin.robots.get(system.id)).permissions?.map((p) => p.namespace)).toEqual(["/"]);
    expect(h.emulator.control.robots.verify(inProject.name, inProject.secret)).toBe(false);

    await h.admin.robots.delete(system.id);
    expect((await harborFailure(h.admin.robots.delete(system.id))).harborMessage).toBe(
      `robot ${system.id} not found`,
    );
    expect((await harborFailure(h.admin.robots.get(-1))).status).toBe(404);
    const nonInt = await h.api("/robots/abc");
    expect(nonInt.status).toBe(422);
  });

  test("robot writes are audited", async () => {
    const robot = await h.admin.robots.create(
      projectRobot("audited", "team", [{ resource: "repository", action: "pull" }]),
    );
    await h.admin.robots.refreshSecret(robot.id);
    await h.admin.robots.delete(robot.id);
    const entries = h.emulator.control.audit.list().filter((e) => e.resource === "robot$team+audited");
    expect(entries.map((e) => [e.operation, e.resource_type, e.project_id, e.username])).toEqual([
      ["create", "robot", teamId, "admin"],
      ["update", "robot", teamId, "admin"],
      ["delete", "robot", teamId, "admin"],
    ]);
  });
});

// The project robot v1 operations exist up to 2.12 (from 2.13 their routes are not found:
// versions.test.ts); these run on a 2.12.4 of their own, with a project "team" of its own.
describe("robot accounts v1 (Harbor up to 2.12)", () => {
  const h = useEmulator({ harborVersion: "2.12.4" });
  let teamId = 0;
  beforeAll(async () => {
    teamId = await h.admin.projects.create({ project_name: "team" });
  });

  describe("robot accounts (v1), as Harbor 2.12.4 has them", () => {
    test("create is broken: 201 with robot$+<name>, stored without a project, already expired", async () => {
      const res = await h.api("/projects/team/robots", {
        method: "POST",
        headers: { "X-Is-Resource-Name": "true" },
        body: JSON.stringify({
          name: "lost",
          access: [{ resource: `/project/${teamId}/repository`, action: "pull" }],
        }),
      });
      expect(res.status).toBe(201);
      const body = (await res.json()) as { id: number; name: string; secret: string };
      expect(res.headers.get("location")).toBe(`/api/v2.0/projects/team/robots/${body.id}`);
      expect(body.name).toBe("robot$+lost");
      expect(body).not.toHaveProperty("expires_at");

      // It is a system-level robot without permissions, expired at creation: its secret never works.
      const got = await h.admin.robots.get(body.id);
      const created = Math.floor(Date.parse(got.creation_time ?? "") / 1000);
      expect(got).toMatchObject({ name: "robot$+lost", level: "system", duration: 0, expires_at: created });
      expect(got.permissions ?? []).toEqual([]);
      expect((await h.admin.robots.list()).map((r) => r.name)).toContain("robot$+lost");
      expect((await h.admin.robots.list({ projectId: teamId })).map((r) => r.id)).not.toContain(body.id);
      expect(h.emulator.control.robots.verify("robot$+lost", body.secret)).toBe(false);

      // The project's v1 routes do not find it; only the v2 delete removes it.
      const message = `resource not found: cannot find robot with project id: ${teamId} and id: ${body.id}`;
      expect(await harborFailure(h.admin.robotsV1.get("team", body.id))).toMatchObject({
        status: 404,
        harborMessage: message,
      });
      expect(await harborFailure(h.admin.robotsV1.update("team", body.id, { disable: true }))).toMatchObject({
        status: 404,
      });
      expect(await harborFailure(h.admin.robotsV1.delete("team", body.id))).toMatchObject({ status: 404 });
      await h.admin.robots.delete(body.id);
      expect(await harborFailure(h.admin.robots.get(body.id))).toMatchObject({ status: 404 });
    });

    test("the client refuses the broken answer, naming it and the robot left behind", async () => {
      const err = await harborFailure(
        h.admin.robotsV1.create("team", {
          name: "refused",
          access: [{ resource: `/project/${teamId}/repository`, action: "pull" }],
        }),
      );
      expect(err).toMatchObject({ kind: "invalidResponse", operation: "CreateRobotV1", status: 201 });
      const left = (await h.admin.robots.list()).find((r) => r.name === "robot$+refused");
      expect(err.message).toContain(`robot$+refused (id ${left?.id})`);
      expect(err.message).toContain("v1 robot creation is broken on this Harbor");
      await h.admin.robots.delete(left?.id as number);
    });

    test("v1 get, update and delete work on robots created through v2", async () => {
      const robot = await h.admin.robots.create(
        projectRobot("via-v2", "team", [{ resource: "repository", action: "pull" }]),
      );
      expect((await h.admin.robotsV1.get("team", robot.id)).name).toBe("robot$team+via-v2");
      expect((await h.admin.robotsV1.list("team")).map((r) => r.id)).toContain(robot.id);
      await h.admin.robotsV1.update("team", robot.id, { disable: true, description: "off" });
      expect(await h.admin.robots.get(robot.id)).toMatchObject({ disable: true, description: "off" });
      await h.admin.robotsV1.delete("team", robot.id);
      expect(await harborFailure(h.admin.robots.get(robot.id))).toMatchObject({ status: 404 });
    });

    test("the 2.11 model keeps the project but expires the robot at creation", async () => {
      h.emulator.control.robots.setV1Create("2.11");
      try {
        const robot = await h.admin.robotsV1.create("team", {
          name: "short-lived",
          access: [{ resource: `/project/${teamId}/repository`, action: "pull" }],
        });
        expect(robot.name).toBe("robot$team+short-lived");
        const got = await h.admin.robotsV1.get("team", robot.id);
        expect(got).toMatchObject({ level: "project", duration: 0 });
        expect(got.expires_at).toBe(Math.floor(Date.parse(got.creation_time ?? "") / 1000));
        expect(h.emulator.control.robots.verify(robot.name, robot.secret)).toBe(false);
        await h.admin.robotsV1.delete("team", robot.id);
      } finally {
        h.emulator.control.robots.setV1Create("2.12");
      }
    });
  });

  describe("robot accounts (v1), as Harbor 2.8–2.10 create them (the switch set to 2.10)", () => {
    beforeAll(() => h.emulator.control.robots.setV1Create("2.10"));
    afterAll(() => h.emulator.control.robots.setV1Create("2.12"));

    test("create from the path's project with /project/<id>/<resource>; 30-day expiry; no expires_at in the response", async () => {
      const res = await h.api("/projects/team/robots", {
        method: "POST",
        headers: { "X-Is-Resource-Name": "true" },
        body: JSON.stringify({
          name: "legacy-ci",
          expires_at: 1,
          access: [{ resource: `/project/${teamId}/repository`, action: "pull" }],
        }),
      });
      expect(res.status).toBe(201);
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.headers.get("location")).toBe(`/api/v2.0/projects/team/robots/${body.id}`);
      expect(body).not.toHaveProperty("expires_at");
      expect(body).toMatchObject({ name: "robot$team+legacy-ci" });
      expect(body.secret).toEqual(expect.stringMatching(/^[A-Za-z0-9]{32}$/));

      const id = body.id as number;
      const got = await h.admin.robotsV1.get("team", id);
      const created = Math.floor(Date.parse(got.creation_time ?? "") / 1000);
      expect(got).toMatchObject({
        name: "robot$team+legacy-ci",
        level: "project",
        duration: 30,
        expires_at: created + 30 * DAY,
        editable: true,
        permissions: [
          { kind: "project", namespace: "team", access: [{ resource: "repository", action: "pull" }] },
        ],
      });
      // The same robot through v2 and the v2 project list.
      expect((await h.admin.robots.get(id)).name).toBe("robot$team+legacy-ci");
      expect((await h.admin.robots.list({ projectId: teamId })).map((r) => r.id)).toContain(id);
      expect(h.emulator.control.robots.verify("robot$team+legacy-ci", body.secret as string)).toBe(true);
    });

    test("client round trip: create, list, get, update (disable), delete", async () => {
      const robot = await h.admin.robotsV1.create(teamId, {
        name: "v1-bot",
        description: "first",
        access: [
          { resource: `/project/${teamId}/repository`, action: "pull" },
          { resource: `/project/${teamId}/repository`, action: "push" },
        ],
      });
      expect(robot.id).toBeGreaterThan(0);
      expect(robot.expires_at).toBeUndefined();
      expect(
        (await h.admin.robotsV1.list("team", { q: q().fuzzy("name", "v1-bot") })).map((r) => r.name),
      ).toEqual(["robot$team+v1-bot"]);
      await h.admin.robotsV1.update("team", robot.id, { disable: true });
      const got = await h.admin.robotsV1.get(teamId, robot.id);
      expect(got.disable).toBe(true);
      expect(got.description).toBeUndefined(); // v1 update sets the description too (omitted → cleared)
      expect(h.emulator.control.robots.verify(robot.name, robot.secret)).toBe(false);
      await h.admin.robotsV1.delete("team", robot.id);
      const err = await harborFailure(h.admin.robotsV1.get("team", robot.id));
      expect(err).toMatchObject({
        status: 404,
        harborMessage: `resource not found: cannot find robot with project id: ${teamId} and id: ${robot.id}`,
      });
    });

    test("v1 validation: resources must be /project/<this id>/<resource> from the role policies", async () => {
      const message = async (access: Array<{ resource: string; action: string }>) =>
        (await harborFailure(h.admin.robotsV1.create("team", { name: "bad", access }))).harborMessage;
      expect(await message([{ resource: "repository", action: "pull" }])).toBe(
        "pull action of repository resource not exist in project team",
      );
      expect(await message([{ resource: "/project/999/repository", action: "pull" }])).toBe(
        "pull action of /project/999/repository resource not exist in project team",
      );
      expect(await message([{ resource: `/project/${teamId}/repository`, action: "fly" }])).toBe(
        `fly action of /project/${teamId}/repository resource not exist in project team`,
      );
      expect(await message([{ resource: `/project/${teamId}`, action: "read" }])).toBe(
        `bad resource /project/${teamId}`,
      );
      const noAccess = await h.api(`/projects/${teamId}/robots`, {
        method: "POST",
        body: JSON.stringify({ name: "empty", access: [] }),
      });
      expect(await noAccess.json()).toEqual({
        errors: [{ code: "BAD_REQUEST", message: "bad request no access" }],
      });
      // A robot of another project is not found through this project's path.
      const other = await h.admin.projects.create({ project_name: "v1-other" });
      const robot = await h.admin.robotsV1.create(other, {
        name: "theirs",
        access: [{ resource: `/project/${other}/repository`, action: "pull" }],
      });
      expect((await harborFailure(h.admin.robotsV1.get("team", robot.id))).status).toBe(404);
      // v1 needs project robot permissions.
      h.addUser("nina");
      h.emulator.control.users.setMember("team", "nina", "developer");
      const nina = h.client({ username: "nina", password: "Nina12345" });
      await nina.robotsV1.list("team");
      expect(
        (
          await harborFailure(
            nina.robotsV1.create("team", {
              name: "x",
              access: [{ resource: `/project/${teamId}/repository`, action: "pull" }],
            }),
          )
        ).status,
      ).toBe(403);
    });
  });
});
