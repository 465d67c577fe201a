// The quota API (/quotas) of the client against the emulator, as Harbor 2.12 has it: a project's
// quota listed by reference, read by id, its hard limit replaced; system access only.
import { describe, expect, test } from "vitest";
import { quotaProjectId } from "../../../src/harbor/quotas.ts";
import { firstError, harborError, harborErrorOf, systemRobot, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();

const GiB = 2 ** 30;

describe("quotas", () => {
  test("list by reference: the project's one quota, with its own id, the project as ref, hard and used", async () => {
    const id = await h.admin.projects.create({ project_name: "q-list", storage_limit: 10 * GiB });
    h.emulator.control.projects.addRepository("q-list", "app", 1, 1500);

    const listed = await h.admin.quotas.list({ reference: "project", referenceId: id });
    expect(listed).toHaveLength(1);
    const quota = listed[0];
    expect(quota).toMatchObject({
      ref: { id, name: "q-list", owner_name: "admin" },
      hard: { storage: 10 * GiB },
      used: { storage: 1500 },
    });
    expect(quota?.id).not.toBe(id); // a quota id is not the project id
    expect(typeof quota?.creation_time).toBe("string");
    expect(quotaProjectId(quota as NonNullable<typeof quota>)).toBe(id);
    expect(await h.admin.quotas.ofProject(id)).toEqual(quota);

    // reference_id is compared as a string; an unknown reference matches nothing.
    expect(await h.admin.quotas.list({ reference: "project", referenceId: 999_999 })).toEqual([]);
    expect(await h.admin.quotas.list({ reference: "nothing" })).toEqual([]);
    // Without a reference id: every project's quota, the library project's too.
    const all = await h.admin.quotas.list({ reference: "project" });
    expect(all.map((q) => q.ref?.name)).toEqual(expect.arrayContaining(["library", "q-list"]));
  });

  test("list paging: X-Total-Count and Link; newest first unless one sort key says otherwise", async () => {
    for (const n of [1, 2, 3, 4, 5]) {
      await h.admin.projects.create({ project_name: `q-page-${n}`, storage_limit: n * GiB });
    }
    const total = (await h.admin.quotas.list()).length;
    const first = await h.raw("GET", "/quotas?page=1&page_size=2");
    expect(first.status).toBe(200);
    expect(first.headers.get("x-total-count")).toBe(String(total));
    expect(first.headers.get("link")).toBe('</api/v2.0/quotas?page=2&page_size=2>; rel="next"');
    expect((JSON.parse(first.text) as unknown[]).length).toBe(2);
    expect((await h.raw("GET", "/quotas?page_size=101")).status).toBe(422);

    const names = async (sort?: string) =>
      (await h.admin.quotas.list({ reference: "project", ...(sort ? { sort } : {}) }))
        .map((q) => q.ref?.name as string)
        .filter((n) => n.startsWith("q-page-"));
    expect(await names()).toEqual(["q-page-5", "q-page-4", "q-page-3", "q-page-2", "q-page-1"]);
    expect(await names("creation_time")).toEqual([
      "q-page-1",
      "q-page-2",
      "q-page-3",
      "q-page-4",
      "q-page-5",
    ]);
    expect(await names("-hard.storage")).toEqual([
      "q-page-5",
      "q-page-4",
      "q-page-3",
      "q-page-2",
      "q-page-1",
    ]);
    expect(await names("hard.storage")).toEqual(["q-page-1", "q-page-2", "q-page-3", "q-page-4", "q-page-5"]);
    // Harbor reads one key: a list of keys, or an unknown one, is the default order.
    expect(await names("creation_time,hard.storage")).toEqual(await names());

    // The client reads every page.
    const many = await h.admin.quotas.list({ reference: "project" });
    expect(many).toHaveLength(total);
    let pages = 0;
    for await (const items of h.admin.quotas.pages({ reference: "project" })) {
      pages++;
      expect(items.length).toBe(total);
    }
    expect(pages).toBe(1);
  });

  test("get by id; an unknown id is 404 with Harbor's message, a non-integer one 422", async () => {
    const id = await h.admin.projects.create({ project_name: "q-get" });
    const quota = await h.admin.quotas.ofProject(id);
    const got = await h.admin.quotas.get(quota?.id as number);
    expect(got).toMatchObject({ id: quota?.id, ref: { id, name: "q-get" }, hard: { storage: -1 } });

    expect(await harborErrorOf(h.admin.quotas.get(987_654))).toMatchObject(
      harborError(404, "quota 987654 not found"),
    );
    expect((await h.raw("GET", "/quotas/abc")).status).toBe(422);
  });

  test("update replaces the hard limit: the summary shows it; -1 is unlimited; below usage is accepted", async () => {
    const id = await h.admin.projects.create({ project_name: "q-put", storage_limit: GiB });
    h.emulator.control.projects.addRepository("q-put", "app", 1, 5000);
    const quotaId = (await h.admin.quotas.ofProject(id))?.id as number;

    await h.admin.quotas.update(quotaId, { storage: 20 * GiB });
    expect((await h.admin.projects.summary(id)).quota).toEqual({
      hard: { storage: 20 * GiB },
      used: { storage: 5000 },
    });
    const raw = await h.raw("PUT", `/quotas/${quotaId}`, { hard: { storage: -1 } });
    expect(raw).toMatchObject({ status: 200, text: "" });
    expect((await h.admin.quotas.get(quotaId)).hard).toEqual({ storage: -1 });

    // Harbor lets an admin set a limit below what is used (pushes then fail): no refusal here.
    await h.admin.quotas.update(quotaId, { storage: 10 });
    expect((await h.admin.quotas.get(quotaId)).hard).toEqual({ storage: 10 });
    // Project PUT still ignores storage_limit.
    await h.api(`/projects/${id}`, { method: "PUT", body: JSON.stringify({ storage_limit: 7 }) });
    expect((await h.admin.quotas.get(quotaId)).hard).toEqual({ storage: 10 });
  });

  test("update refusals: Harbor's codes and messages", async () => {
    const id = await h.admin.projects.create({ project_name: "q-bad", storage_limit: GiB });
    const quotaId = (await h.admin.quotas.ofProject(id))?.id as number;
    const refused = async (body: unknown, path = `/quotas/${quotaId}`) => {
      const res = await h.api(path, { method: "PUT", body: JSON.stringify(body) });
      return { status: res.status, ...(await firstError(res)) };
    };
    expect(await refused({ hard: { storage: 0 } })).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      message: "invalid value for resource storage",
    });
    expect(await refused({ hard: { storage: -5 } })).toMatchObject({
      status: 400,
      message: "invalid value for resource storage",
    });
    expect(await refused({ hard: { count: 5 } })).toMatchObject({
      status: 400,
      message: "resource count not support",
    });
    expect(await refused({ hard: {} })).toMatchObject({ status: 400, message: "hard required in body" });
    expect(await refused({})).toMatchObject({ status: 400, message: "hard required in body" });
    expect(await refused({ hard: { storage: 1.5 } })).toMatchObject({
      status: 422,
      code: "UNPROCESSABLE_ENTITY",
    });
    expect(await refused({ hard: { storage: 5 } }, "/quotas/987654")).toMatchObject({
      status: 404,
      message: "quota 987654 not found",
    });
    const noBody = await h.api(`/quotas/${quotaId}`, { method: "PUT" });
    expect(noBody.status).toBe(422);
    expect((await firstError(noBody)).message).toContain("hard in body is required");

    // Through the client: kind invalid, Harbor's message kept.
    expect(await harborErrorOf(h.admin.quotas.update(quotaId, { storage: 0 }))).toMatchObject({
      kind: "invalid",
      status: 400,
      harborMessage: "invalid value for resource storage",
    });
    expect((await h.admin.quotas.get(quotaId)).hard).toEqual({ storage: GiB });
  });

  test("system access only: a project admin reads the summary but not /quotas (403, its name); robots need the permission", async () => {
    const owner = h.addUser("quotaowner");
    const ownerClient = h.client(owner);
    const id = await ownerClient.projects.create({ project_name: "q-owned" });
    const quotaId = (await h.admin.quotas.ofProject(id))?.id as number;

    // The project admin sees the numbers in the summary …
    expect((await ownerClient.projects.summary(id)).quota).toEqual({
      hard: { storage: -1 },
      used: { storage: 0 },
    });
    // … but every quota operation needs system access: 403 with the caller's name.
    for (const call of [
      ownerClient.quotas.list({ reference: "project", referenceId: id }),
      ownerClient.quotas.get(quotaId),
      ownerClient.quotas.update(quotaId, { storage: GiB }),
    ]) {
      expect(await harborErrorOf(call)).toMatchObject(harborError(403, "quotaowner"));
    }
    const anonymous = await fetch(`${h.emulator.url}/api/v2.0/quotas`);
    expect(anonymous.status).toBe(401);

    const reader = await h.admin.robots.create(
      systemRobot("quota-reader", [{ resource: "quota", action: "list" }], -1),
    );
    const readerClient = h.client({ username: reader.name, password: reader.secret });
    expect(await readerClient.quotas.ofProject(id)).toMatchObject({ id: quotaId });
    expect(await harborErrorOf(readerClient.quotas.update(quotaId, { storage: GiB }))).toMatchObject({
      status: 403,
      harborMessage: reader.name,
    });
    const writer = await h.admin.robots.create(
      systemRobot("quota-writer", [{ resource: "quota", action: "update" }], -1),
    );
    await h
      .client({ username: writer.name, password: writer.secret })
      .quotas.update(quotaId, { storage: GiB });
    expect((await h.admin.quotas.get(quotaId)).hard).toEqual({ storage: GiB });
  });

  test("a deleted project's quota is gone", async () => {
    const id = await h.admin.projects.create({ project_name: "q-gone" });
    const quotaId = (await h.admin.quotas.ofProject(id))?.id as number;
    await h.admin.projects.delete(id);
    expect(await h.admin.quotas.ofProject(id)).toBeUndefined();
    expect((await harborErrorOf(h.admin.quotas.get(quotaId)))?.status).toBe(404);
  });
});
