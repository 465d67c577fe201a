import { describe, expect, test } from "vitest";
import type { ImmutableRuleRequest } from "../../../src/harbor/immutable-tag-rule.ts";
import { harborError, harborFailure, useEmulator } from "../../env/harbor.ts";

const h = useEmulator();

const rule = (repo: string, tag: string, disabled = false): ImmutableRuleRequest => ({
  disabled,
  action: "immutable",
  template: "immutable_template",
  tag_selectors: [{ kind: "doublestar", decoration: "matches", pattern: tag }],
  scope_selectors: { repository: [{ kind: "doublestar", decoration: "repoMatches", pattern: repo }] },
});

describe("immutable tag rules", () => {
  test("create, list, update selectors, toggle, delete", async () => {
    await h.admin.projects.create({ project_name: "imm-a" });
    const id = await h.admin.immutable.create("imm-a", rule("**", "v*"));
    let [got] = await h.admin.immutable.list("imm-a");
    expect(got).toMatchObject({
      id,
      disabled: false,
      tag_selectors: [{ decoration: "matches", pattern: "v*" }],
    });

    await h.admin.immutable.update("imm-a", id, rule("app/**", "release-*"));
    [got] = await h.admin.immutable.list("imm-a");
    expect(got?.scope_selectors?.repository?.[0]?.pattern).toBe("app/**");
    expect(got?.tag_selectors?.[0]?.pattern).toBe("release-*");

    // A changed flag changes only the flag: the selectors sent with it are ignored.
    await h.admin.immutable.update("imm-a", id, rule("other", "other", true));
    [got] = await h.admin.immutable.list("imm-a");
    expect(got).toMatchObject({ disabled: true, tag_selectors: [{ pattern: "release-*" }] });

    await h.admin.immutable.delete("imm-a", id);
    expect(await h.admin.immutable.list("imm-a")).toEqual([]);
    expect(await harborFailure(h.admin.immutable.delete("imm-a", id))).toMatchObject(
      harborError(404, `immutable rule ${id} not found`),
    );
  });

  test("a new rule is stored enabled; an identical create is a conflict", async () => {
    await h.admin.projects.create({ project_name: "imm-b" });
    const id = await h.admin.immutable.create("imm-b", rule("**", "**", true));
    expect((await h.admin.immutable.list("imm-b"))[0]).toMatchObject({ id, disabled: false });
    expect(await harborFailure(h.admin.immutable.create("imm-b", rule("**", "**", true)))).toMatchObject(
      harborError(409, "immutable rule already exists"),
    );
  });

  test("the body's id must be the path's; another project's rule is not found", async () => {
    await h.admin.projects.create({ project_name: "imm-c" });
    await h.admin.projects.create({ project_name: "imm-d" });
    const id = await h.admin.immutable.create("imm-c", rule("**", "x"));
    const wrongBody = await harborFailure(
      h.admin.transport.noContent({
        operation: "UpdateImmuRule",
        method: "PUT",
        path: `/projects/imm-c/immutabletagrules/${id}`,
        headers: { "x-is-resource-name": "true" },
        body: { ...rule("**", "x"), id: id + 1 },
      }),
    );
    expect(wrongBody).toMatchObject(
      harborError(400, "the immutable_rule_id doesn't match the id in the payload body of ImmutableRule"),
    );
    const d = (await h.admin.projects.get("imm-d")).project_id as number;
    expect(await harborFailure(h.admin.immutable.update("imm-d", id, rule("**", "y")))).toMatchObject(
      harborError(404, `project id ${d} does not match`),
    );
  });
});
