import { describe, expect, test } from "vitest";
import { q } from "../../../src/harbor/query.ts";
import { harborError, harborFailure, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();

describe("labels", () => {
  test("global label lifecycle: create, get, list, update, delete", async () => {
    const id = await h.admin.labels.create({
      name: "tier-1",
      scope: "g",
      color: "#ff0000",
      description: "hot",
    });
    expect(id).toBeGreaterThan(0);

    const got = await h.admin.labels.get(id);
    expect(got).toMatchObject({ id, name: "tier-1", scope: "g", color: "#ff0000", description: "hot" });
    expect(got.project_id).toBeUndefined(); // 0 is omitted, as Harbor's omitempty does
    expect(got.creation_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    await h.admin.labels.update(id, { name: "tier-one", color: "#00ff00" });
    expect(await h.admin.labels.get(id)).toMatchObject({ name: "tier-one", color: "#00ff00" });

    const listed = await h.admin.labels.list({ scope: "g", name: "tier" });
    expect(listed.map((l) => l.id)).toContain(id);

    await h.admin.labels.delete(id);
    await expect(h.admin.labels.get(id)).rejects.toMatchObject({ kind: "notFound", status: 404 });
  });

  test("project labels need a project id and are removed with their project", async () => {
    const library = h.emulator.world.projects.byName("library");
    const id = await h.admin.labels.create({ name: "team-a", scope: "p", project_id: library?.project_id });
    const inProject = await h.admin.labels.list({ scope: "p", projectId: library?.project_id });
    expect(inProject.map((l) => l.name)).toEqual(["team-a"]);
    const err = await harborFailure(h.admin.labels.list({ scope: "p" }));
    expect(err).toMatchObject({ kind: "invalid", status: 400, code: "BAD_REQUEST" });
    expect(err.harborMessage).toBe("must with project ID when to query project labels");
    await h.admin.labels.delete(id);
  });

  test("a duplicate name in the same scope is a conflict with Harbor's message", async () => {
    await h.admin.labels.create({ name: "dup", scope: "g" });
    const err = await harborFailure(h.admin.labels.create({ name: "dup", scope: "g" }));
    expect(err).toMatchObject(harborError(409, "label dup already exists"));
  });

  test("update validates the name; create does not", async () => {
    const id = await h.admin.labels.create({ name: "", scope: "g" });
    await expect(h.admin.labels.update(id, { name: "x".repeat(129) })).rejects.toMatchObject({
      kind: "invalid",
      status: 400,
    });
  });

  test("lists every page, following X-Total-Count past 100 items", async () => {
    const before = h.emulator.counters.total({ op: "ListLabels" });
    for (let i = 0; i < 230; i++)
      await h.admin.labels.create({ name: `bulk-${String(i).padStart(3, "0")}`, scope: "g" });
    const all = await h.admin.labels.list({ scope: "g", q: q().fuzzy("name", "bulk-") });
    expect(all).toHaveLength(230);
    expect(new Set(all.map((l) => l.name)).size).toBe(230);
    expect(h.emulator.counters.total({ op: "ListLabels" }) - before).toBe(3);
  });

  test("non-admins get 403 on global labels, with their username as Harbor's message", async () => {
    const bob = h.client(h.addUser("bob"));
    const err = await harborFailure(bob.labels.create({ name: "x", scope: "g" }));
    expect(err).toMatchObject({ kind: "forbidden", status: 403, code: "FORBIDDEN", harborMessage: "bob" });
  });
});
