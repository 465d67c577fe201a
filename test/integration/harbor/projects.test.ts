import { describe, expect, test, vi } from "vitest";
import { q } from "../../../src/harbor/query.ts";
import { harborError, harborFailure, type Login, systemRobot, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();

describe("projects", () => {
  test("lifecycle: create, exists, get, list, update, delete", async () => {
    const id = await h.admin.projects.create({ project_name: "life", metadata: { auto_scan: "true" } });
    expect(id).toBeGreaterThan(1);
    expect(await h.admin.projects.exists("life")).toBe(true);
    expect(await h.admin.projects.exists("nope")).toBe(false);

    const got = await h.admin.projects.get(id);
    expect(got).toMatchObject({
      project_id: id,
      name: "life",
      owner_id: 1,
      owner_name: "admin",
      repo_count: 0,
      current_user_role_id: 1,
      current_user_role_ids: [1],
      metadata: { public: "false", auto_scan: "true" },
      cve_allowlist: { project_id: id, items: [] },
    });
    expect(got.registry_id).toBeUndefined(); // 0 is omitted
    expect(await h.admin.projects.get("life")).toMatchObject({ project_id: id });

    const listed = await h.admin.projects.list({ name: "lif" });
    expect(listed.map((p) => p.name)).toEqual(["life"]);

    await h.admin.projects.update("life", { metadata: { prevent_vul: "true", severity: "high" } });
    expect((await h.admin.projects.get(id)).metadata).toEqual({
      public: "false",
      auto_scan: "true",
      prevent_vul: "true",
      severity: "high",
    });

    await h.admin.projects.delete(id);
    expect(await h.admin.projects.exists("life")).toBe(false);
    const err = await harborFailure(h.admin.projects.get(id));
    expect(err).toMatchObject(harborError(404, `project ${id} not found`));
  });

  test("201 has an empty body and a path-only Location: the id, or the name on request", async () => {
    const byId = await h.api("/projects", {
      method: "POST",
      body: JSON.stringify({ project_name: "loc-id" }),
    });
    expect(byId.status).toBe(201);
    expect(await byId.text()).toBe("");
    const id = h.emulator.world.projects.byName("loc-id")?.project_id;
    expect(byId.headers.get("location")).toBe(`/api/v2.0/projects/${id}`);

    const byName = await h.api("/projects/", {
      method: "POST",
      headers: { "X-Resource-Name-In-Location": "true" },
      body: JSON.stringify({ project_name: "loc-name" }),
    });
    expect(byName.status).toBe(201);
    expect(byName.headers.get("location")).toBe("/api/v2.0/projects/loc-name");
  });

  test("names: the pattern, a 409 for duplicates and a 422 past 255 characters", async () => {
    const bad = await harborFailure(h.admin.projects.create({ project_name: "Bad_Name" }));
    expect(bad).toMatchObject(
      harborError(400, "project name is not in lower case or contains illegal characters"),
    );
    await h.admin.projects.create({ project_name: "twice" });
    const dup = await harborFailure(h.admin.projects.create({ project_name: "twice" }));
    expect(dup).toMatchObject(harborError(409, "The project named twice already exists"));
    const dupLibrary = await harborFailure(h.admin.projects.create({ project_name: "library" }));
    expect(dupLibrary.harborMessage).toBe("The project named library already exists");

    const long = await h.api("/projects", {
      method: "POST",
      body: JSON.stringify({ project_name: "a".repeat(256) }),
    });
    expect(long.status).toBe(422);
    const body = (await long.json()) as { errors: Array<{ code: string; message: string }> };
    expect(body.errors[0]?.code).toBe("UNPROCESSABLE_ENTITY");
    expect(body.errors[0]?.message).toContain("project_name in body should be at most 255 chars long");
  });

  test("metadata: strings only, public defaults to false, invalid public and retention_id refused", async () => {
    const post = (body: unknown) =>
      h.api("/projects", {
        method: "POST",
        body: JSON.stringify(body),
      });
    const invalidPublic = await post({ project_name: "md-bad", metadata: { public: "yes" } });
    expect(invalidPublic.status).toBe(400);
    expect(await invalidPublic.json()).toEqual({
      errors: [
        { code: "BAD_REQUEST", message: "metadata.public should only be 'true' or 'false', but got: 'yes'" },
      ],
    });
    const boolPublic = await post({ project_name: "md-bool", metadata: { public: true } });
    expect(boolPublic.status).toBe(422);
    const retention = await post({ project_name: "md-ret", metadata: { retention_id: "7" } });
    expect(retention.status).toBe(400);
    expect(((await retention.json()) as { errors: Array<{ message: string }> }).errors[0]?.message).toBe(
      "bad request: the retention_id in the request's payload when creating a project should be omitted, alternatively passing an empty string",
    );
    // The deprecated top-level flag counts when metadata.public is absent.
    expect((await post({ project_name: "md-legacy", public: true })).status).toBe(201);
    expect((await h.admin.projects.get("md-legacy")).metadata?.public).toBe("true");

    await h.admin.projects.create({ project_name: "md-default", metadata: { severity: "critical" } });
    const raw = (await (
      await h.api("/projects/md-default", { headers: { "X-Is-Resource-Name": "true" } })
    ).json()) as Record<string, unknown>;
    expect(raw.metadata).toEqual({ public: "false", severity: "critical" });
    expect(raw.repo_count).toBe(0); // always emitted
    expect(raw).not.toHaveProperty("deleted");
    expect(raw).not.toHaveProperty("togglable");
  });

  test("PUT merges metadata and ignores name, storage_limit and registry_id", async () => {
    await h.admin.projects.create({ project_name: "merge", metadata: { auto_scan: "true", public: "true" } });
    const put = await h.api("/projects/merge", {
      method: "PUT",
      headers: { "X-Is-Resource-Name": "true" },
      body: JSON.stringify({
        project_name: "renamed",
        storage_limit: 5,
        registry_id: 3,
        metadata: { prevent_vul: "true" },
      }),
    });
    expect(put.status).toBe(200);
    expect(await put.text()).toBe("");
    expect(put.headers.get("content-type")).toBeNull();
    const p = await h.admin.projects.get("merge");
    expect(p.name).toBe("merge");
    expect(p.registry_id).toBeUndefined();
    expect(p.metadata).toEqual({ public: "true", auto_scan: "true", prevent_vul: "true" });
    expect((await h.admin.projects.summary("merge")).quota?.hard).toEqual({ storage: -1 });

    await h.admin.projects.update("merge", { metadata: { public: "false" } });
    expect((await h.admin.projects.get("merge")).metadata?.public).toBe("false");

    const retention = await harborFailure(
      h.admin.projects.update("merge", { metadata: { retention_id: "99" } }),
    );
    expect(retention).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    expect(retention.harborMessage).toContain(
      "the retention_id in the request's payload when updating a project",
    );
  });

  test("PUT replaces the CVE allowlist; a foreign project_id is refused", async () => {
    const id = await h.admin.projects.create({ project_name: "cve" });
    await h.admin.projects.update(id, {
      cve_allowlist: { items: [{ cve_id: "CVE-2024-1" }, { cve_id: "CVE-2024-2" }], expires_at: 2000000000 },
    });
    expect((await h.admin.projects.get(id)).cve_allowlist).toMatchObject({
      project_id: id,
      expires_at: 2000000000,
      items: [{ cve_id: "CVE-2024-1" }, { cve_id: "CVE-2024-2" }],
    });
    await h.admin.projects.update(id, { cve_allowlist: { items: [{ cve_id: "CVE-2024-3" }] } });
    const replaced = (await h.admin.projects.get(id)).cve_allowlist;
    expect(replaced?.items).toEqual([{ cve_id: "CVE-2024-3" }]);
    expect(replaced?.expires_at).toBeUndefined();

    const err = await harborFailure(
      h.admin.projects.update(id, { cve_allowlist: { project_id: 1, items: [] } }),
    );
    expect(err).toMatchObject({
      status: 400,
      harborMessage: `project_id in cve_allowlist must be ${id} but it's 1`,
    });
  });

  test("a numeric path value is an id unless X-Is-Resource-Name: true (a project named 123)", async () => {
    const id = await h.admin.projects.create({ project_name: "123" });
    expect(id).not.toBe(123);
    // The client sends names with the header, so "123" is found by name.
    expect(await h.admin.projects.get("123")).toMatchObject({ project_id: id, name: "123" });
    expect(await h.admin.projects.get(id)).toMatchObject({ name: "123" });

    const asId = await h.api("/projects/123");
    expect(asId.status).toBe(404);
    expect(await asId.json()).toEqual({ errors: [{ code: "NOT_FOUND", message: "project 123 not found" }] });
    const asName = await h.api("/projects/123", {
      headers: { "X-Is-Resource-Name": "true" },
    });
    expect(asName.status).toBe(200);
    expect(((await asName.json()) as { project_id: number }).project_id).toBe(id);
    const badHeader = await h.api("/projects/123", {
      headers: { "X-Is-Resource-Name": "maybe" },
    });
    expect(badHeader.status).toBe(422);
  });

  test("unknown projects: 404 for admins, 403 for users, 401 for anonymous callers", async () => {
    const err = await harborFailure(h.admin.projects.get("ghost"));
    expect(err).toMatchObject({ kind: "notFound", harborMessage: "project ghost not found" });

    const carol = h.addUser("carol");
    const c = h.client(carol);
    expect(await harborFailure(c.projects.get("ghost"))).toMatchObject(harborError(403, "forbidden"));
    const anon = await h.api("/projects/ghost", {
      as: "anonymous",
      headers: { "X-Is-Resource-Name": "true" },
    });
    expect(anon.status).toBe(401);
    expect(await anon.json()).toEqual({ errors: [{ code: "UNAUTHORIZED", message: "unauthorized" }] });
  });

  test("HEAD needs an authenticated caller", async () => {
    const anon = await h.api("/projects?project_name=library", { method: "HEAD", as: "anonymous" });
    expect(anon.status).toBe(401);
    const dave = h.addUser("dave");
    expect(await h.client(dave).projects.exists("library")).toBe(true);
    const missingParam = await h.api("/projects", { method: "HEAD" });
    expect(missingParam.status).toBe(422);
  });

  test("a project with repositories: 412 on delete, _deletable and summary say why", async () => {
    const id = await h.admin.projects.create({ project_name: "full", storage_limit: 1024 ** 3 });
    h.emulator.control.projects.addRepository("full", "app", 3, 1000);
    h.emulator.control.projects.addRepository("full", "db", 1, 500);
    const erin = h.addUser("erin");
    h.emulator.control.users.setMember("full", erin.username, "developer");

    const err = await harborFailure(h.admin.projects.delete("full"));
    expect(err).toMatchObject(
      harborError(412, "precondition failed: the project contains repositories, can not be deleted"),
    );
    const raw = await h.api(`/projects/${id}/_deletable`);
    // deletable=false is left out (omitempty).
    expect(await raw.json()).toEqual({ message: "the project contains repositories, can not be deleted" });
    expect(await h.admin.projects.deletable(id)).toEqual({
      message: "the project contains repositories, can not be deleted",
    });

    expect(await h.admin.projects.summary("full")).toEqual({
      repo_count: 2,
      project_admin_count: 1,
      developer_count: 1,
      quota: { hard: { storage: 1024 ** 3 }, used: { storage: 1500 } },
    });
    expect((await h.admin.projects.get(id)).repo_count).toBe(2);

    h.emulator.control.projects.removeRepository("full", "app");
    h.emulator.control.projects.removeRepository("full", "db");
    expect(await h.admin.projects.deletable(id)).toEqual({ deletable: true });
    await h.admin.projects.delete("full");
  });

  test("summary shows member counts and quota only to callers allowed to see them", async () => {
    await h.admin.projects.create({ project_name: "sum-vis", metadata: { public: "true" } });
    const stranger = h.client(h.addUser("stranger"));
    expect(await stranger.projects.summary("sum-vis")).toEqual({ repo_count: 0 });
  });

  test("storage_limit: admins set it; 0, omitted or a non-admin's value mean the default; bad values 400", async () => {
    await h.admin.projects.create({ project_name: "quota-zero", storage_limit: 0 });
    expect((await h.admin.projects.summary("quota-zero")).quota?.hard).toEqual({ storage: -1 });

    const frank = h.addUser("frank");
    await h.client(frank).projects.create({ project_name: "quota-user", storage_limit: 10 });
    expect((await h.admin.projects.summary("quota-user")).quota?.hard).toEqual({ storage: -1 });

    const bad = await harborFailure(
      h.admin.projects.create({ project_name: "quota-bad", storage_limit: -5 }),
    );
    expect(bad).toMatchObject({
      status: 400,
      harborMessage: "bad request: invalid value for resource storage",
    });
    const tooBig = await harborFailure(
      h.admin.projects.create({ project_name: "quota-big", storage_limit: 1025 * 1024 ** 4 }),
    );
    expect(tooBig.status).toBe(400);
    expect(await h.admin.projects.exists("quota-bad")).toBe(false);
  });

  test("proxy cache projects: admin only, a positive id of a registry of a permitted type", async () => {
    const hub = await h.admin.registries.create({
      name: "hub",
      type: "docker-hub",
      url: "https://hub.example.com",
    });
    const lab = await h.admin.registries.create({
      name: "lab",
      type: "gitlab",
      url: "https://gitlab.example.com",
    });

    const grace = h.addUser("grace");
    const denied = await harborFailure(
      h.client(grace).projects.create({ project_name: "proxy-user", registry_id: hub }),
    );
    expect(denied).toMatchObject({
      status: 403,
      harborMessage: "Only system admin can create proxy cache project",
    });

    const zero = await harborFailure(h.admin.projects.create({ project_name: "proxy-zero", registry_id: 0 }));
    expect(zero).toMatchObject({
      status: 400,
      harborMessage: "bad request: 0 is invalid value of registry_id, it should be geater than 0",
    });
    const wrongType = await harborFailure(
      h.admin.projects.create({ project_name: "proxy-lab", registry_id: lab }),
    );
    expect(wrongType).toMatchObject({
      status: 400,
      harborMessage: "bad request: unsupported registry type gitlab",
    });
    // Harbor wraps the failed registry lookup in a plain error: a masked 500.
    const missing = await harborFailure(
      h.admin.projects.create({ project_name: "proxy-missing", registry_id: 9999 }),
    );
    expect(missing).toMatchObject(harborError(500, "internal server error"));
    const speed = await harborFailure(
      h.admin.projects.create({
        project_name: "proxy-speed",
        registry_id: hub,
        metadata: { proxy_speed_kb: "fast" },
      }),
    );
    expect(speed.harborMessage).toBe(
      `metadata.proxy_speed_kb should by an int32, but got: 'fast', err: strconv.ParseInt: parsing "fast": invalid syntax`,
    );

    const id = await h.admin.projects.create({
      project_name: "proxy",
      registry_id: hub,
      metadata: { proxy_speed_kb: "2048", enable_content_trust: "true" },
    });
    const p = await h.admin.projects.get(id);
    expect(p.registry_id).toBe(hub);
    expect(p.metadata?.proxy_speed_kb).toBe("2048");
    expect(p.metadata?.enable_content_trust).toBeUndefined(); // ignored for proxy caches
    expect(p.metadata?.retention_id).toMatch(/^\d+$/); // the automatic retention policy
    expect((await h.admin.projects.summary(id)).registry).toMatchObject({
      id: hub,
      name: "hub",
      type: "docker-hub",
      url: "https://hub.example.com",
    });
    // proxy_speed_kb is dropped for projects that are not proxy caches.
    await h.admin.projects.create({ project_name: "not-proxy", metadata: { proxy_speed_kb: "5" } });
    expect((await h.admin.projects.get("not-proxy")).metadata?.proxy_speed_kb).toBeUndefined();
  });

  test("list: anonymous and wrong credentials see public projects only, users also their own", async () => {
    await h.admin.projects.create({ project_name: "vis-public", metadata: { public: "true" } });
    await h.admin.projects.create({ project_name: "vis-private" });
    await h.admin.projects.create({ project_name: "vis-member" });
    const henry = h.addUser("henry");
    h.emulator.control.users.setMember("vis-member", henry.username, "guest");

    const names = async (as?: Login | "anonymous") => {
      const res = await h.api("/projects?page_size=100&name=vis-", { ...(as ? { as } : {}) });
      expect(res.status).toBe(200);
      return ((await res.json()) as Array<{ name: string }>).map((p) => p.name);
    };
    expect(await names("anonymous")).toEqual(["vis-public"]);
    expect(await names({ username: "admin", password: "wrong-password" })).toEqual(["vis-public"]);
    expect(await names(henry)).toEqual(["vis-member", "vis-public"]);
    expect(await names()).toEqual(["vis-member", "vis-private", "vis-public"]);

    const member = (await h.client(henry).projects.list({ name: "vis-member" }))[0];
    expect(member?.current_user_role_ids).toEqual([3]);

    // Anonymous callers asking for private projects get an empty list without Link.
    const anonPrivate = await h.api("/projects?public=false", { as: "anonymous" });
    expect(anonPrivate.headers.get("x-total-count")).toBe("0");
    expect(anonPrivate.headers.get("link")).toBeNull();
    expect(await anonPrivate.json()).toEqual([]);
  });

  test("list filters: name (fuzzy), owner, public, q and sort; default order name asc", async () => {
    const ivy = h.addUser("ivy");
    const ivyClient = h.client(ivy);
    await ivyClient.projects.create({ project_name: "flt-b", metadata: { public: "true" } });
    await ivyClient.projects.create({ project_name: "flt-a" });
    await h.admin.projects.create({ project_name: "flt-c" });

    expect((await h.admin.projects.list({ name: "FLT" })).map((p) => p.name)).toEqual([
      "flt-a",
      "flt-b",
      "flt-c",
    ]);
    expect((await h.admin.projects.list({ name: "flt", owner: "ivy" })).map((p) => p.name)).toEqual([
      "flt-a",
      "flt-b",
    ]);
    expect((await h.admin.projects.list({ name: "flt", public: true })).map((p) => p.name)).toEqual([
      "flt-b",
    ]);
    expect(
      (await h.admin.projects.list({ q: q().fuzzy("name", "flt-"), sort: "-name" })).map((p) => p.name),
    ).toEqual(["flt-c", "flt-b", "flt-a"]);
    expect(
      (await h.admin.projects.list({ q: q().exact("name", "flt-a").exact("unknown_key", "x") })).length,
    ).toBe(1);
    const noDetail = await h.admin.projects.list({ name: "flt-a", withDetail: false });
    expect(noDetail[0]?.metadata).toBeUndefined();
    expect(noDetail[0]?.owner_name).toBe("ivy");
  });

  test("list paging: X-Total-Count, Link, and no Link when nothing matches", async () => {
    for (const n of ["pg-1", "pg-2", "pg-3"]) await h.admin.projects.create({ project_name: n });
    const res = await h.api("/projects?name=pg-&page=2&page_size=1");
    expect(res.headers.get("x-total-count")).toBe("3");
    expect(res.headers.get("link")).toBe(
      '</api/v2.0/projects?name=pg-&page=1&page_size=1>; rel="prev" , </api/v2.0/projects?name=pg-&page=3&page_size=1>; rel="next"',
    );
    expect(((await res.json()) as Array<{ name: string }>).map((p) => p.name)).toEqual(["pg-2"]);
    const none = await h.api("/projects?name=zzz-none&page=2&page_size=1");
    expect(none.headers.get("x-total-count")).toBe("0");
    expect(none.headers.get("link")).toBeNull();
    const tooBig = await h.api("/projects?page_size=101");
    expect(tooBig.status).toBe(422);
  });

  test("permissions: a guest reads but cannot update or delete; a project admin can", async () => {
    await h.admin.projects.create({ project_name: "perm" });
    const jack = h.addUser("jack");
    const kate = h.addUser("kate");
    h.emulator.control.users.setMember("perm", jack.username, "guest");
    h.emulator.control.users.setMember("perm", kate.username, "projectAdmin");
    const guest = h.client(jack);
    expect((await guest.projects.get("perm")).current_user_role_id).toBe(3);
    expect(
      await harborFailure(guest.projects.update("perm", { metadata: { auto_scan: "true" } })),
    ).toMatchObject({
      status: 403,
      harborMessage: "forbidden",
    });
    expect((await harborFailure(guest.projects.deletable("perm"))).status).toBe(403);
    const admin = h.client(kate);
    await admin.projects.update("perm", { metadata: { auto_scan: "true" } });
    await admin.projects.delete("perm");
  });

  test("robot callers: only system robots create projects, owned by the first admin", async () => {
    await h.admin.projects.create({ project_name: "robo-home" });
    const sys = await h.admin.robots.create(
      systemRobot("creator", [{ resource: "project", action: "create" }], -1),
    );
    const sysClient = h.client({ username: sys.name, password: sys.secret });
    const id = await sysClient.projects.create({ project_name: "robo-made" });
    expect(await h.admin.projects.get(id)).toMatchObject({ owner_id: 1, owner_name: "admin" });

    const proj = await h.admin.robots.create({
      name: "lister",
      level: "project",
      duration: -1,
      permissions: [
        { kind: "project", namespace: "robo-home", access: [{ resource: "robot", action: "list" }] },
      ],
    });
    const projClient = h.client({ username: proj.name, password: proj.secret });
    expect(await harborFailure(projClient.projects.create({ project_name: "robo-denied" }))).toMatchObject({
      status: 403,
      code: "FORBIDDEN",
      harborMessage: "Only system level robot can create project",
    });
    // A project robot sees its own project (and public ones) in lists.
    expect((await projClient.projects.list({ name: "robo-" })).map((p) => p.name)).toEqual(["robo-home"]);
  });

  test("control: pushArtifact adds content, audits the push and notifies webhooks", async () => {
    await h.admin.projects.create({ project_name: "pushed", metadata: { public: "true" } });
    const notify = vi.spyOn(h.emulator.world.webhooks, "notify");
    const { digest } = h.emulator.control.projects.pushArtifact("pushed", "app", {
      tag: "v1",
      sizeBytes: 42,
    });
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(notify).toHaveBeenCalledWith(
      expect.objectContaining({
        projectId: h.emulator.world.projects.byName("pushed")?.project_id,
        eventType: "PUSH_ARTIFACT",
        data: expect.objectContaining({
          resources: [{ digest, tag: "v1", resource_url: "pushed/app:v1" }],
          repository: expect.objectContaining({
            name: "app",
            namespace: "pushed",
            repo_full_name: "pushed/app",
            repo_type: "public",
          }),
        }),
      }),
    );
    notify.mockRestore();
    expect(await h.admin.projects.summary("pushed")).toMatchObject({
      repo_count: 1,
      quota: { used: { storage: 42 } },
    });
    expect(
      h.emulator.control.audit
        .list()
        .filter((e) => e.operation === "push")
        .map((e) => e.resource),
    ).toEqual(["pushed/app:v1"]);
    h.emulator.control.projects.setRepositorySize("pushed", "app", 7);
    expect((await h.admin.projects.summary("pushed")).quota?.used).toEqual({ storage: 7 });
    expect(h.emulator.control.projects.list().some((p) => p.name === "pushed")).toBe(true);
  });
});

// The old project audit log as Harbor up to 2.12 writes it; from 2.13 it only shows what an older
// release wrote, and the extended audit log takes over (versions.test.ts).
describe("project audit logs up to 2.12 (GET /projects/{p}/logs)", () => {
  const old = useEmulator({ harborVersion: "2.12.4" });

  test("the project's events, filtered by q, newest first, by name only", async () => {
    const id = await old.admin.projects.create({ project_name: "audited" });
    await old.admin.projects.update(id, { metadata: { auto_scan: "true" } });
    const robot = await old.admin.robots.create({
      name: "audit-bot",
      level: "project",
      duration: 30,
      permissions: [
        { kind: "project", namespace: "audited", access: [{ resource: "repository", action: "pull" }] },
      ],
    });
    old.emulator.control.projects.pushArtifact("audited", "app", { tag: "v1" });
    await old.admin.robots.delete(robot.id);
    const logs = await old.admin.projects.logs("audited");
    // The project update is not recorded, as in Harbor 2.12.4.
    expect(logs.map((l) => [l.operation, l.resource_type, l.resource, l.username])).toEqual([
      ["delete", "robot", "robot$audited+audit-bot", "admin"],
      ["push", "artifact", "audited/app:v1", "admin"],
      ["create", "robot", "robot$audited+audit-bot", "admin"],
      ["create", "project", "audited", "admin"],
    ]);
    expect(logs[0]).not.toHaveProperty("project_id");
    expect(logs[0]?.op_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const deletes = await old.admin.projects.logs("audited", { q: q().exact("operation", "delete") });
    expect(deletes.map((l) => l.resource_type)).toEqual(["robot"]);
    const oldestFirst = await old.admin.projects.logs("audited", { sort: "op_time,id" });
    expect(oldestFirst[0]?.resource_type).toBe("project");

    const outsider = old.client(old.addUser("liam"));
    expect((await harborFailure(outsider.projects.logs("audited"))).status).toBe(403);
    // {project_name} is a name even when it looks like an id.
    expect((await harborFailure(old.admin.projects.logs(String(id)))).harborMessage).toBe(
      `project ${id} not found`,
    );
  });

  test("they hold only what Harbor 2.12.4 records: no project updates, labels or webhook policies", async () => {
    const id = await old.admin.projects.create({ project_name: "quiet" });
    await old.admin.projects.update(id, { metadata: { public: "true" } });
    const label = await old.admin.labels.create({ name: "quiet-label", scope: "p", project_id: id });
    await old.admin.labels.update(label, { name: "quiet-label-2" });
    const hook = await old.admin.webhooks.createPolicy("quiet", {
      name: "quiet-hook",
      enabled: true,
      event_types: ["PUSH_ARTIFACT"],
      targets: [{ type: "http", address: "http://127.0.0.1:9/hook" }],
    });
    await old.admin.webhooks.deletePolicy("quiet", hook);
    await old.admin.labels.delete(label);
    const logs = await old.admin.projects.logs("quiet");
    expect(logs.map((l) => [l.operation, l.resource_type, l.resource])).toEqual([
      ["create", "project", "quiet"],
    ]);
    // The emulator's own record of writes (control API) still has them all.
    const written = old.emulator.control.audit.list().filter((e) => e.project_id === id);
    expect(written.map((e) => e.resource_type)).toEqual(
      expect.arrayContaining(["project", "label", "notification_policy"]),
    );
  });
});
