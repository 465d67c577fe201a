import { beforeAll, describe, expect, test, vi } from "vitest";
import { q } from "../../../src/harbor/query.ts";
import type { ReplicationPolicyReq } from "../../../src/harbor/replication.ts";
import { harborError, harborErrorOf, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();

let remote = 0;
const REMOTE_URL = "https://remote.example.com";
let seq = 0;
/** A push policy to the remote registry, enabled, with a unique name. */
const pushPolicy = (extra: Partial<ReplicationPolicyReq> = {}): ReplicationPolicyReq => ({
  name: `push-${++seq}`,
  src_registry: { id: 0 },
  dest_registry: { id: remote },
  enabled: true,
  filters: [{ type: "name", value: "library/**" }],
  ...extra,
});
const advance = (ms: number) => h.emulator.control.clock.advance(ms);
// Runs are looked at just before their planned end: the world's time moves only when advanced.
beforeAll(() => h.emulator.control.clock.freeze());

beforeAll(async () => {
  // What a push of library/** copies unless a test adds more: one image with one tag.
  h.emulator.control.projects.pushArtifact("library", "hello-world", { tag: "latest" });
  remote = await h.admin.registries.create({
    name: "remote",
    type: "harbor",
    url: REMOTE_URL,
    credential: { access_key: "robot", access_secret: "Remote-Secret-1" },
  });
});

describe("replication policies", () => {
  test("lifecycle through the client: create, get (both registries in full), list, update, delete", async () => {
    const id = await h.admin.replication.createPolicy(
      pushPolicy({
        name: "nightly",
        description: "to the DR site",
        dest_namespace: "dr/library",
        trigger: { type: "scheduled", trigger_settings: { cron: "0 0 2 * * *" } },
        filters: [
          { type: "name", value: "library/**" },
          { type: "tag", value: "v*", decoration: "matches" },
          { type: "label", value: ["prod"], decoration: "excludes" },
          { type: "resource", value: "image" },
        ],
        replicate_deletion: true,
        override: true,
        speed: 1024,
      }),
    );
    expect(id).toBeGreaterThan(0);

    const p = await h.admin.replication.getPolicy(id);
    expect(p).toMatchObject({
      id,
      name: "nightly",
      description: "to the DR site",
      dest_namespace: "dr/library",
      dest_namespace_replace_count: -1,
      trigger: { type: "scheduled", trigger_settings: { cron: "0 0 2 * * *" } },
      replicate_deletion: true,
      deletion: true,
      override: true,
      enabled: true,
      speed: 1024,
      copy_by_chunk: false,
    });
    expect(p.src_registry).toMatchObject({ id: 0, name: "Local", type: "harbor", status: "healthy" });
    expect(p.dest_registry).toMatchObject({ id: remote, name: "remote", url: REMOTE_URL });
    expect(p.dest_registry?.credential?.access_secret).toBe("*****");
    expect(p.filters).toEqual([
      { type: "name", value: "library/**" },
      { type: "tag", value: "v*", decoration: "matches" },
      { type: "label", value: ["prod"], decoration: "excludes" },
      { type: "resource", value: "image" },
    ]);

    expect((await h.admin.replication.listPolicies({ name: "NIGHT" })).map((x) => x.id)).toEqual([id]);
    expect(
      (await h.admin.replication.listPolicies({ q: q().exact("name", "nightly") })).map((x) => x.id),
    ).toEqual([id]);

    // PUT replaces everything: what is left out takes its default.
    await h.admin.replication.updatePolicy(id, {
      name: "nightly-2",
      src_registry: { id: remote },
      dest_registry: { id: 0 },
      dest_namespace_replace_count: 1,
    });
    const updated = await h.admin.replication.getPolicy(id);
    expect(updated).toMatchObject({ name: "nightly-2", dest_namespace_replace_count: 1, speed: 0 });
    expect(updated.src_registry?.id).toBe(remote);
    expect(updated.dest_registry).toMatchObject({ id: 0, name: "Local" });
    expect(updated.trigger).toBeUndefined();
    expect(updated.enabled).toBeUndefined();
    expect(updated.description).toBeUndefined();

    await h.admin.replication.deletePolicy(id);
    expect(await harborErrorOf(h.admin.replication.getPolicy(id))).toMatchObject({
      kind: "notFound",
      status: 404,
      harborMessage: `replication policy ${id} not found`,
    });
    expect(await harborErrorOf(h.admin.replication.deletePolicy(id))).toMatchObject({ status: 404 });
  });

  test("201 with a path-only Location; pointer fields are always in the JSON", async () => {
    const res = await h.raw("POST", "/replication/policies", {
      name: "wire",
      src_registry: { id: 0 },
      dest_registry: { id: remote },
    });
    expect(res.status).toBe(201);
    expect(res.text).toBe("");
    const location = res.headers.get("location") ?? "";
    expect(location).toMatch(/^\/api\/v2\.0\/replication\/policies\/\d+$/);
    const body = JSON.parse((await h.raw("GET", location.replace("/api/v2.0", ""))).text);
    expect(body).toMatchObject({ dest_namespace_replace_count: -1, speed: 0, copy_by_chunk: false });
    expect(body.src_registry.id).toBe(0);
  });

  test("replicate-deletion is read from `deletion` only; both fields come back", async () => {
    const onlyNew = await h.raw("POST", "/replication/policies", {
      name: "del-new",
      src_registry: { id: 0 },
      dest_registry: { id: remote },
      replicate_deletion: true,
    });
    const onlyOld = await h.raw("POST", "/replication/policies", {
      name: "del-old",
      src_registry: { id: 0 },
      dest_registry: { id: remote },
      deletion: true,
    });
    const read = async (location: string | null) =>
      JSON.parse((await h.raw("GET", (location ?? "").replace("/api/v2.0", ""))).text);
    const a = await read(onlyNew.headers.get("location"));
    expect(a.replicate_deletion).toBeUndefined();
    expect(a.deletion).toBeUndefined();
    const b = await read(onlyOld.headers.get("location"));
    expect(b).toMatchObject({ replicate_deletion: true, deletion: true });
  });

  test("speed is clamped at 0", async () => {
    const id = await h.admin.replication.createPolicy(pushPolicy({ speed: -50 }));
    expect((await h.admin.replication.getPolicy(id)).speed).toBe(0);
  });

  test("exactly one side must be the Local registry; both registries must exist", async () => {
    const message =
      "either src_registry or dest_registry should be empty and the other one shouldn't be empty";
    for (const [src, dest] of [
      [0, 0],
      [remote, remote],
    ]) {
      const err = await harborErrorOf(
        h.admin.replication.createPolicy({
          name: "sides",
          src_registry: { id: src ?? 0 },
          dest_registry: { id: dest ?? 0 },
        }),
      );
      expect(err).toMatchObject(harborError(400, message));
    }
    expect(
      await harborErrorOf(h.admin.replication.createPolicy(pushPolicy({ dest_registry: { id: 4242 } }))),
    ).toMatchObject({
      status: 404,
      harborMessage: "registry 4242 not found",
    });
    expect(await harborErrorOf(h.admin.replication.createPolicy(pushPolicy({ name: "" })))).toMatchObject({
      status: 400,
      harborMessage: "empty name",
    });
    expect(
      await harborErrorOf(h.admin.replication.createPolicy(pushPolicy({ dest_namespace: "Bad NS" }))),
    ).toMatchObject({
      status: 400,
      harborMessage: "invalid destination namespace: Bad NS",
    });
  });

  test("trigger and cron validation; only enabled scheduled policies hold a schedule", async () => {
    const bad = (trigger: unknown) =>
      h.raw("POST", "/replication/policies", {
        name: "trig",
        src_registry: { id: 0 },
        dest_registry: { id: remote },
        trigger,
      });
    const messageOf = async (trigger: unknown) => {
      const res = await bad(trigger);
      expect(res.status).toBe(400);
      return JSON.parse(res.text).errors[0].message as string;
    };
    expect(await messageOf({ type: "hourly" })).toBe("invalid trigger type");
    expect(await messageOf({ type: "scheduled" })).toBe(
      "the cron string cannot be empty when the trigger type is scheduled",
    );
    expect(await messageOf({ type: "scheduled", trigger_settings: { cron: "0 2 * * *" } })).toBe(
      "invalid cron string for scheduled trigger: 0 2 * * *",
    );
    expect(await messageOf({ type: "scheduled", trigger_settings: { cron: "5 0 * * * *" } })).toBe(
      "invalid cron string for scheduled trigger: 5 0 * * * *",
    );
    expect(await messageOf({ type: "scheduled", trigger_settings: { cron: "0 61 * * * *" } })).toBe(
      "invalid cron string for scheduled trigger: 0 61 * * * *",
    );
    expect(await messageOf({ type: "scheduled", trigger_settings: { cron: "0 * * * * *" } })).toBe(
      "* is not allowed for the Minutes field of the cron setting of replication policy",
    );

    const cron = "0 */15 * * * MON-FRI";
    const on = await h.admin.replication.createPolicy(
      pushPolicy({ trigger: { type: "scheduled", trigger_settings: { cron } } }),
    );
    const off = await h.admin.replication.createPolicy(
      pushPolicy({ enabled: false, trigger: { type: "scheduled", trigger_settings: { cron } } }),
    );
    const event = await h.admin.replication.createPolicy(pushPolicy({ trigger: { type: "event_based" } }));
    const scheduled = h.emulator.control.replication.schedules().map((s) => s.policy_id);
    expect(scheduled).toContain(on);
    expect(scheduled).not.toContain(off);
    expect(scheduled).not.toContain(event);
    expect(h.emulator.control.replication.schedules().find((s) => s.policy_id === on)?.cron).toBe(cron);

    // An update is checked as a creation is, on every release (2.14's swagger only declares the 400).
    const update = await h.raw("PUT", `/replication/policies/${on}`, {
      ...pushPolicy({ name: "trig-on" }),
      trigger: { type: "scheduled", trigger_settings: { cron: "0 * * * * *" } },
    });
    expect(update.status).toBe(400);
    expect(JSON.parse(update.text).errors[0].message).toBe(
      "* is not allowed for the Minutes field of the cron setting of replication policy",
    );
  });

  test("filter validation", async () => {
    const messageOf = async (filter: unknown) => {
      const res = await h.raw("POST", "/replication/policies", {
        name: "filt",
        src_registry: { id: 0 },
        dest_registry: { id: remote },
        filters: [filter],
      });
      expect(res.status).toBe(400);
      return JSON.parse(res.text).errors[0].message as string;
    };
    expect(await messageOf({ type: "label", value: "prod" })).toBe(
      "the type of label filter value isn't string slice",
    );
    expect(await messageOf({ type: "name", value: ["a"] })).toBe("the type of filter value isn't string");
    expect(await messageOf({ type: "resource", value: "chart" })).toBe("invalid resource filter: chart");
    expect(await messageOf({ type: "name", value: "a/**", decoration: "matches" })).toBe(
      "only tag and label filter support decoration",
    );
    expect(await messageOf({ type: "tag", value: "v*", decoration: "maybe" })).toBe(
      "invalid filter decoration, :maybe",
    );
    expect(await messageOf({ type: "repository", value: "a" })).toBe("invalid filter type");
  });

  test("names are unique: 409 on create and on rename", async () => {
    await h.admin.replication.createPolicy(pushPolicy({ name: "unique-one" }));
    const other = await h.admin.replication.createPolicy(pushPolicy({ name: "unique-two" }));
    expect(
      await harborErrorOf(h.admin.replication.createPolicy(pushPolicy({ name: "unique-one" }))),
    ).toMatchObject(harborError(409, "replication policy unique-one already exists"));
    expect(
      await harborErrorOf(h.admin.replication.updatePolicy(other, pushPolicy({ name: "unique-one" }))),
    ).toMatchObject({
      status: 409,
    });
  });

  test("default order is creation_time desc; sort keys override it", async () => {
    const older = await h.admin.replication.createPolicy(pushPolicy({ name: "order-b" }));
    advance(1000);
    const newer = await h.admin.replication.createPolicy(pushPolicy({ name: "order-a" }));
    const ids = (await h.admin.replication.listPolicies({ name: "order-" })).map((p) => p.id);
    expect(ids).toEqual([newer, older]);
    const byName = (await h.admin.replication.listPolicies({ name: "order-", sort: "name" })).map(
      (p) => p.name,
    );
    expect(byName).toEqual(["order-a", "order-b"]);
    const res = await h.raw("GET", "/replication/policies?page_size=1&name=order-");
    expect(res.headers.get("x-total-count")).toBe("2");
    expect(res.headers.get("link")).toBe(
      '</api/v2.0/replication/policies?name=order-&page=2&page_size=1>; rel="next"',
    );
  });
});

describe("replication executions", () => {
  test("a run moves from InProgress to its planned outcome, task by task, on the world clock", async () => {
    await h.admin.projects.create({ project_name: "shop" });
    for (const [repo, tag] of [
      ["a", "1.0"],
      ["b", "2.0"],
      ["c", "3.0"],
    ] as const) {
      h.emulator.control.projects.pushArtifact("shop", repo, { tag });
    }
    const id = await h.admin.replication.createPolicy(
      pushPolicy({ filters: [{ type: "name", value: "shop/**" }] }),
    );
    h.emulator.control.replication.setPolicyPlan(id, { durationMs: 3000, failing: ["shop/b"] });
    const exec = await h.admin.replication.start(id);
    const running = await h.admin.replication.getExecution(exec);
    expect(running).toMatchObject({
      id: exec,
      policy_id: id,
      status: "InProgress",
      trigger: "manual",
      total: 3,
      in_progress: 3,
      succeed: 0,
      failed: 0,
      stopped: 0,
      status_text: "",
      end_time: "0001-01-01T00:00:00.000Z",
    });
    expect(
      (await h.admin.replication.listTasks(exec, { status: "InProgress" })).map((t) => t.src_resource),
    ).toEqual(["shop/a [1 item(s) in total]"]);
    expect(await h.admin.replication.listTasks(exec, { status: "Pending" })).toHaveLength(2);

    advance(1000);
    const tasks = await h.admin.replication.listTasks(exec);
    // start_time desc, then id desc: the pending ones (no start) come last, newest id first.
    expect(tasks.map((t) => [t.src_resource, t.status])).toEqual([
      ["shop/b [1 item(s) in total]", "InProgress"],
      ["shop/a [1 item(s) in total]", "Succeed"],
      ["shop/c [1 item(s) in total]", "Pending"],
    ]);
    expect(await h.admin.replication.getExecution(exec)).toMatchObject({
      status: "InProgress",
      succeed: 1,
      in_progress: 2,
    });

    advance(2000);
    const done = await h.admin.replication.getExecution(exec);
    expect(done).toMatchObject({ status: "Failed", total: 3, succeed: 2, failed: 1, in_progress: 0 });
    expect(done.end_time).not.toBe("0001-01-01T00:00:00.000Z");
    expect(Date.parse(done.end_time ?? "") - Date.parse(done.start_time ?? "")).toBe(3000);
    expect(
      (await h.admin.replication.listTasks(exec, { status: "Failed" })).map((t) => t.src_resource),
    ).toEqual(["shop/b [1 item(s) in total]"]);
    // Harbor's own adapter (the Local registry is one) copies artifacts, not images.
    expect(await h.admin.replication.listTasks(exec, { resourceType: "image" })).toEqual([]);
    const [task] = await h.admin.replication.listTasks(exec, { status: "Succeed", sort: "id" });
    expect(task).toMatchObject({ execution_id: exec, operation: "copy", resource_type: "artifact" });
    expect(task?.job_id).toMatch(/^[0-9a-f]{24}$/);

    expect(
      (await h.admin.replication.listExecutions({ policyId: id, status: "Failed" })).map((e) => e.id),
    ).toEqual([exec]);
    expect(await h.admin.replication.listExecutions({ policyId: id, status: "Succeed" })).toEqual([]);
    expect(
      (await h.admin.replication.listExecutions({ policyId: id, trigger: "manual" })).map((e) => e.id),
    ).toEqual([exec]);
  });

  test("the filters select what a push copies: one task per repository, tags and labels per artifact", async () => {
    await h.admin.projects.create({ project_name: "filt" });
    const push = (repo: string, tag: string, labels: string[] = []) =>
      h.emulator.control.projects.pushArtifact("filt", repo, { tag, labels });
    push("app", "v1", ["prod"]);
    push("app", "v2"); // untagged once v2 moves to the next push
    push("app", "latest", ["prod", "qa"]);
    push("app", "v2");
    push("tools/cli", "v1");
    push("docs", "latest");

    const run = async (
      filters: ReplicationPolicyReq["filters"],
      extra: Partial<ReplicationPolicyReq> = {},
    ) => {
      const id = await h.admin.replication.createPolicy(pushPolicy({ filters, ...extra }));
      const exec = await h.admin.replication.start(id);
      advance(1000);
      const tasks = await h.admin.replication.listTasks(exec, { sort: "id" });
      return tasks.map((t) => [t.src_resource, t.dst_resource]);
    };
    // v* tags of artifacts labelled prod: only app's v1.
    expect(
      await run(
        [
          { type: "name", value: "filt/**" },
          { type: "tag", value: "v*", decoration: "matches" },
          { type: "label", value: ["prod"], decoration: "matches" },
        ],
        { dest_namespace: "mirror" },
      ),
    ).toEqual([["filt/app [1 item(s) in total]", "mirror/app [1 item(s) in total]"]]);
    // One segment only, every tag but latest; the untagged artifact counts as one item.
    expect(
      await run([
        { type: "name", value: "filt/*" },
        { type: "tag", value: "latest", decoration: "excludes" },
      ]),
    ).toEqual([["filt/app [3 item(s) in total]", "filt/app [3 item(s) in total]"]]);
    // Everything not labelled prod, in every repository, nested ones too.
    expect(
      await run([
        { type: "name", value: "filt/**" },
        { type: "label", value: ["prod"], decoration: "excludes" },
      ]),
    ).toEqual([
      ["filt/app [2 item(s) in total]", "filt/app [2 item(s) in total]"],
      ["filt/tools/cli [1 item(s) in total]", "filt/tools/cli [1 item(s) in total]"],
      ["filt/docs [1 item(s) in total]", "filt/docs [1 item(s) in total]"],
    ]);
    // A brace alternative, and the resource filter, which Harbor 2.12's flow no longer reads.
    expect(
      await run([
        { type: "name", value: "filt/{docs,nothing}" },
        { type: "resource", value: "image" },
      ]),
    ).toEqual([["filt/docs [1 item(s) in total]", "filt/docs [1 item(s) in total]"]]);
  });

  test("nothing matches: InProgress with total 0, then Succeed after 0.1 s, no tasks and no task log", async () => {
    const id = await h.admin.replication.createPolicy(
      pushPolicy({
        filters: [
          { type: "name", value: "library/**" },
          { type: "tag", value: "no-such-tag" },
        ],
      }),
    );
    const exec = await h.admin.replication.start(id);
    expect(await h.admin.replication.getExecution(exec)).toMatchObject({
      status: "InProgress",
      total: 0,
      in_progress: 0,
      status_text: "",
      end_time: "0001-01-01T00:00:00.000Z",
    });
    advance(50);
    expect((await h.admin.replication.getExecution(exec)).status).toBe("InProgress");
    advance(50);
    const done = await h.admin.replication.getExecution(exec);
    expect(done).toMatchObject({
      status: "Succeed",
      total: 0,
      succeed: 0,
      failed: 0,
      status_text: "no resources need to be replicated",
    });
    expect(Date.parse(done.end_time ?? "") - Date.parse(done.start_time ?? "")).toBe(100);
    expect(await h.admin.replication.listTasks(exec)).toEqual([]);
    expect(await harborErrorOf(h.admin.replication.getTaskLog(exec, 1))).toMatchObject({ status: 404 });
  });

  test("a pull copies the remote's registered content under the destination namespace, as images", async () => {
    const url = "https://hub.example.com";
    const hub = await h.admin.registries.create({ name: "hub", type: "docker-registry", url });
    for (const tag of ["3.19", "3.20", "latest"]) {
      h.emulator.control.replication.addRemoteArtifact(url, "library/alpine", { tags: [tag] });
    }
    h.emulator.control.replication.addRemoteArtifact(url, "library/nginx", { tags: ["1.27"] });
    const pull = (extra: Partial<ReplicationPolicyReq>) =>
      h.admin.replication.createPolicy({
        name: `pull-${++seq}`,
        src_registry: { id: hub },
        dest_registry: { id: 0 },
        enabled: true,
        filters: [
          { type: "name", value: "library/alpine" },
          { type: "tag", value: "3.*" },
        ],
        ...extra,
      });
    const id = await pull({ dest_namespace: "mirror", dest_namespace_replace_count: 1 });
    const exec = await h.admin.replication.start(id);
    advance(1000);
    expect(await h.admin.replication.getExecution(exec)).toMatchObject({ status: "Succeed", total: 1 });
    expect(await h.admin.replication.listTasks(exec)).toMatchObject([
      {
        resource_type: "image",
        src_resource: "library/alpine [2 item(s) in total]",
        dst_resource: "mirror/alpine [2 item(s) in total]",
      },
    ]);

    // More segments to replace than the source has: the flow fails with Harbor's text.
    const tooDeep = await h.admin.replication.start(
      await pull({ dest_namespace: "mirror", dest_namespace_replace_count: 3 }),
    );
    advance(100);
    expect(await h.admin.replication.getExecution(tooDeep)).toMatchObject({
      status: "Failed",
      total: 0,
      status_text:
        'the source repository "library/alpine" contains only 1 path components [library] excepting the last one, but the destination namespace flattening level is 3',
    });
    // A malformed pattern fails the flow too.
    const bad = await h.admin.replication.start(
      await pull({ filters: [{ type: "name", value: "library/[" }] }),
    );
    advance(100);
    expect(await h.admin.replication.getExecution(bad)).toMatchObject({
      status: "Failed",
      status_text: "failed to fetch artifacts: syntax error in pattern",
    });
  });

  test("201 with a path-only Location; counters are present even when zero", async () => {
    const id = await h.admin.replication.createPolicy(pushPolicy());
    const res = await h.raw("POST", "/replication/executions", { policy_id: id });
    expect(res.status).toBe(201);
    expect(res.text).toBe("");
    const location = res.headers.get("location") ?? "";
    expect(location).toMatch(/^\/api\/v2\.0\/replication\/executions\/\d+$/);
    const body = JSON.parse((await h.raw("GET", location.replace("/api/v2.0", ""))).text);
    expect(body).toMatchObject({ status: "InProgress", succeed: 0, failed: 0, stopped: 0, status_text: "" });
    advance(1000);
    const after = JSON.parse((await h.raw("GET", location.replace("/api/v2.0", ""))).text);
    expect(after).toMatchObject({
      status: "Succeed",
      total: 1,
      succeed: 1,
      failed: 0,
      in_progress: 0,
      stopped: 0,
    });
  });

  test("nothing to copy ends Succeed with Harbor's status text; a flow error ends Failed with it", async () => {
    const empty = await h.admin.replication.createPolicy(
      pushPolicy({ filters: [{ type: "name", value: "nowhere/**" }] }),
    );
    const e1 = await h.admin.replication.start(empty);
    advance(100);
    expect(await h.admin.replication.getExecution(e1)).toMatchObject({
      status: "Succeed",
      total: 0,
      status_text: "no resources need to be replicated",
    });

    const broken = await h.admin.replication.createPolicy(pushPolicy());
    h.emulator.control.replication.setPolicyPlan(broken, {
      durationMs: 100,
      error: "failed to fetch artifacts: boom",
    });
    const e2 = await h.admin.replication.start(broken);
    advance(100);
    expect(await h.admin.replication.getExecution(e2)).toMatchObject({
      status: "Failed",
      total: 0,
      status_text: "failed to fetch artifacts: boom",
    });
  });

  test("a remote that is unhealthy at start makes the run fail with the reason in status_text", async () => {
    const url = "https://down-remote.example.com";
    const reg = await h.admin.registries.create({ name: "down-remote", type: "harbor", url });
    const id = await h.admin.replication.createPolicy(pushPolicy({ dest_registry: { id: reg } }));
    h.emulator.control.registries.setHealth(url, false);
    const exec = await h.admin.replication.start(id);
    advance(10);
    const got = await h.admin.replication.getExecution(exec);
    expect(got.status).toBe("Failed");
    expect(got.status_text).toContain("unhealthy");
    expect(got.total).toBe(0);
    h.emulator.control.registries.setHealth(url, true);
  });

  test("a global plan applies to policies without their own", async () => {
    h.emulator.control.replication.setPlan({ durationMs: 50, failing: ["library/*"] });
    const id = await h.admin.replication.createPolicy(pushPolicy());
    const exec = await h.admin.replication.start(id);
    advance(50);
    expect(await h.admin.replication.getExecution(exec)).toMatchObject({ status: "Failed", failed: 1 });
    h.emulator.control.replication.setPlan(null);
    const exec2 = await h.admin.replication.start(id);
    advance(1000);
    expect(await h.admin.replication.getExecution(exec2)).toMatchObject({ status: "Succeed", total: 1 });
  });

  test("PUT stops a running execution and its unfinished tasks; stopping again or a final one is a no-op", async () => {
    await h.admin.projects.create({ project_name: "stopper" });
    h.emulator.control.projects.pushArtifact("stopper", "x", { tag: "1" });
    h.emulator.control.projects.pushArtifact("stopper", "y", { tag: "1" });
    const id = await h.admin.replication.createPolicy(
      pushPolicy({ filters: [{ type: "name", value: "stopper/**" }] }),
    );
    h.emulator.control.replication.setPolicyPlan(id, { durationMs: 2000 });
    const exec = await h.admin.replication.start(id);
    advance(1000);
    const res = await h.raw("PUT", `/replication/executions/${exec}`);
    // Harbor v2.12.4 answers the stop with a JSON null, not an empty body.
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.text).toBe("null");
    const stopped = await h.admin.replication.getExecution(exec);
    expect(stopped).toMatchObject({ status: "Stopped", succeed: 1, stopped: 1, in_progress: 0 });
    await h.admin.replication.stop(exec);
    advance(5000);
    expect((await h.admin.replication.getExecution(exec)).status).toBe("Stopped");
    expect(
      (await h.admin.replication.listExecutions({ policyId: id, status: "Stopped" })).map((e) => e.id),
    ).toEqual([exec]);

    const finished = await h.admin.replication.start(id);
    advance(2000);
    await h.admin.replication.stop(finished);
    expect((await h.admin.replication.getExecution(finished)).status).toBe("Succeed");

    expect(await harborErrorOf(h.admin.replication.stop(999999))).toMatchObject({
      kind: "notFound",
      status: 404,
      harborMessage: "replication execution 999999 not found",
    });
  });

  test("a disabled policy cannot start: 412", async () => {
    const id = await h.admin.replication.createPolicy(pushPolicy({ enabled: false }));
    expect(await harborErrorOf(h.admin.replication.start(id))).toMatchObject(
      harborError(412, `the policy ${id} is disabled`),
    );
    expect(await harborErrorOf(h.admin.replication.start(777777))).toMatchObject({
      status: 404,
      harborMessage: "replication policy 777777 not found",
    });
  });

  test("deleting a policy with a running execution is 412; afterwards its executions go with it", async () => {
    const id = await h.admin.replication.createPolicy(pushPolicy());
    const exec = await h.admin.replication.start(id);
    expect(await harborErrorOf(h.admin.replication.deletePolicy(id))).toMatchObject({
      kind: "precondition",
      status: 412,
      harborMessage: "contains executions that aren't in final status, stop the execution first",
    });
    await h.admin.replication.stop(exec);
    await h.admin.replication.deletePolicy(id);
    expect(await harborErrorOf(h.admin.replication.getExecution(exec))).toMatchObject({
      status: 404,
      harborMessage: `replication execution ${exec} not found`,
    });
    expect(await h.admin.replication.listExecutions({ policyId: id })).toEqual([]);
  });

  test("task logs are text/plain; a task of another execution is 404 with Harbor's message", async () => {
    const id = await h.admin.replication.createPolicy(pushPolicy());
    const first = await h.admin.replication.start(id);
    const second = await h.admin.replication.start(id);
    advance(1000);
    const [task] = await h.admin.replication.listTasks(first);
    const log = await h.admin.replication.getTaskLog(first, task?.id ?? 0);
    expect(log).toContain("library/hello-world [1 item(s) in total]");
    const res = await h.raw("GET", `/replication/executions/${first}/tasks/${task?.id}/log`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await harborErrorOf(h.admin.replication.getTaskLog(second, task?.id ?? 0))).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      harborMessage: `execution ${second} contains no task with ID ${task?.id}`,
    });
    expect(await harborErrorOf(h.admin.replication.getTaskLog(888888, task?.id ?? 0))).toMatchObject({
      status: 404,
      harborMessage: "replication execution 888888 not found",
    });
    expect(await harborErrorOf(h.admin.replication.listTasks(888888))).toMatchObject({ status: 404 });
  });

  test("scheduled and event-based runs come from the simulated world; ?trigger=scheduled too", async () => {
    const scheduled = await h.admin.replication.createPolicy(
      pushPolicy({ trigger: { type: "scheduled", trigger_settings: { cron: "0 0 * * * *" } } }),
    );
    const evented = await h.admin.replication.createPolicy(pushPolicy({ trigger: { type: "event_based" } }));
    const s = h.emulator.control.replication.trigger(scheduled, "scheduled");
    const e = h.emulator.control.replication.trigger(evented, "event_based");
    expect((await h.admin.replication.getExecution(s)).trigger).toBe("scheduled");
    expect((await h.admin.replication.getExecution(e)).trigger).toBe("event_based");
    expect(() => h.emulator.control.replication.trigger(evented, "scheduled")).toThrow(
      /no enabled scheduled trigger/,
    );

    const res = await h.raw("POST", `/replication/executions?trigger=scheduled`, { policy_id: evented });
    const viaQuery = Number(res.headers.get("location")?.split("/").pop());
    expect((await h.admin.replication.getExecution(viaQuery)).trigger).toBe("scheduled");

    const listed = await h.admin.replication.listExecutions({ trigger: "event_based" });
    expect(listed.map((x) => x.id)).toEqual([e]);
    // Newest first by default.
    const mine = await h.admin.replication.listExecutions({ policyId: evented });
    expect(mine.map((x) => x.id)).toEqual([viaQuery, e]);
  });

  test("executions take no q: a malformed q is ignored rather than a 400", async () => {
    const res = await h.raw("GET", "/replication/executions?q=nonsense&page_size=1");
    expect(res.status).toBe(200);
    expect(Number(res.headers.get("x-total-count"))).toBeGreaterThan(1);
    expect(res.headers.get("link")).toContain('rel="next"');
  });

  test("a finished run notifies the local project's webhooks with a REPLICATION event", async () => {
    advance(60_000); // lets earlier runs finish first
    const notify = vi.spyOn(h.emulator.world.webhooks, "notify");
    const id = await h.admin.replication.createPolicy(pushPolicy());
    const exec = await h.admin.replication.start(id);
    expect(notify).not.toHaveBeenCalled();
    advance(1000);
    await h.admin.replication.getExecution(exec);
    expect(notify).toHaveBeenCalledTimes(1);
    const library = h.emulator.world.projects.byName("library");
    expect(notify.mock.calls[0]?.[0]).toMatchObject({
      projectId: library?.project_id,
      eventType: "REPLICATION",
      data: { replication: { job_status: "Success", trigger_type: "MANUAL", policy_creator: "admin" } },
    });
    notify.mockRestore();
  });

  test("permissions: replication is system scope", async () => {
    const olga = h.client(h.addUser("olga"));
    expect(await harborErrorOf(olga.replication.listPolicies())).toMatchObject({
      kind: "forbidden",
      status: 403,
      harborMessage: "olga",
    });
    expect(await harborErrorOf(olga.replication.listExecutions())).toMatchObject({ status: 403 });
    expect(await harborErrorOf(olga.replication.start(1))).toMatchObject({ status: 403 });
  });

  test("writes leave audit entries", () => {
    const entries = h.emulator.control.audit.list();
    const ops = entries.filter((e) => e.resource_type === "replication-policy").map((e) => e.operation);
    expect(ops).toEqual(expect.arrayContaining(["create", "update", "delete"]));
    expect(entries.some((e) => e.resource_type === "replication" && e.operation === "create")).toBe(true);
  });
});
