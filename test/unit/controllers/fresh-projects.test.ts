// FreshProjects: the first lookup per kind in a project this operator created is answered without
// Harbor, once; nothing else is.
import { describe, expect, it } from "vitest";
import { FreshProjects } from "../../../src/controllers/shared/fresh-projects.ts";

describe("FreshProjects", () => {
  it("answers the first lookup of each kind in a new project, and only the first", () => {
    const fresh = new FreshProjects();
    fresh.created("h1", 7);
    expect(fresh.firstLookup("h1", 7, "robot")).toBe(true);
    expect(fresh.firstLookup("h1", 7, "robot")).toBe(false);
    expect(fresh.firstLookup("h1", 7, "label")).toBe(true);
    expect(fresh.firstLookup("h1", 8, "robot")).toBe(false); // not created here
    expect(fresh.firstLookup("h2", 7, "webhook policy")).toBe(false); // another Harbor
  });

  it("looks up the kinds Harbor created with the project (a proxy cache's retention policy)", () => {
    const fresh = new FreshProjects();
    fresh.created("h", 3, ["retention policy"]);
    expect(fresh.firstLookup("h", 3, "retention policy")).toBe(false);
    expect(fresh.firstLookup("h", 3, "immutable tag rule")).toBe(true);
  });

  it("remembers the latest projects however long their kinds wait, and forgets the oldest beyond the limit", () => {
    const fresh = new FreshProjects(3);
    for (const id of [1, 2, 3]) fresh.created("h", id);
    expect(fresh.firstLookup("h", 1, "robot")).toBe(true);
    fresh.created("h", 4); // the fourth pushes out the oldest creation, project 1
    expect(fresh.firstLookup("h", 1, "label")).toBe(false);
    for (const id of [2, 3, 4]) expect(fresh.firstLookup("h", id, "robot")).toBe(true);
  });

  it("a project told again counts as created at that moment, with nothing looked up", () => {
    const fresh = new FreshProjects(2);
    fresh.created("h", 1);
    fresh.created("h", 2);
    expect(fresh.firstLookup("h", 1, "robot")).toBe(true);
    fresh.created("h", 1); // now the latest: project 2 is the oldest
    fresh.created("h", 3);
    expect(fresh.firstLookup("h", 2, "robot")).toBe(false);
    expect(fresh.firstLookup("h", 1, "robot")).toBe(true);
  });
});
