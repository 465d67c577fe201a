// FreshProjects: the first lookup per kind in a project this operator just created is answered
// without Harbor, once; nothing else is.
import { describe, expect, it } from "vitest";
import { FreshProjects } from "../../../src/controllers/shared/fresh-projects.ts";

describe("FreshProjects", () => {
  it("answers the first lookup of each kind in a new project, and only the first", () => {
    const fresh = new FreshProjects(() => 1000);
    fresh.created("h1", 7);
    expect(fresh.firstLookup("h1", 7, "robot")).toBe(true);
    expect(fresh.firstLookup("h1", 7, "robot")).toBe(false);
    expect(fresh.firstLookup("h1", 7, "label")).toBe(true);
    expect(fresh.firstLookup("h1", 8, "robot")).toBe(false); // not created here
    expect(fresh.firstLookup("h2", 7, "webhook policy")).toBe(false); // another Harbor
  });

  it("looks up the kinds Harbor created with the project (a proxy cache's retention policy)", () => {
    const fresh = new FreshProjects(() => 1000);
    fresh.created("h", 3, ["retention policy"]);
    expect(fresh.firstLookup("h", 3, "retention policy")).toBe(false);
    expect(fresh.firstLookup("h", 3, "immutable tag rule")).toBe(true);
  });

  it("forgets a project a minute after its creation", () => {
    let now = 0;
    const fresh = new FreshProjects(() => now);
    fresh.created("h", 1);
    now = 60_000;
    expect(fresh.firstLookup("h", 1, "robot")).toBe(false);
    fresh.created("h", 2); // and drops the old entry meanwhile
    now = 60_500;
    expect(fresh.firstLookup("h", 2, "robot")).toBe(true);
  });
});
