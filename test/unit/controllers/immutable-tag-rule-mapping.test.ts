import { describe, expect, test } from "vitest";
import { HarborImmutableTagRuleSpec } from "../../../src/api/immutable-tag-rule.ts";
import {
  applied,
  claimOf,
  diff,
  ruleRequest,
  selectorDrift,
  specFromRule,
} from "../../../src/controllers/immutable-tag-rule/mapping.ts";

const rule = (s: Record<string, unknown>) =>
  HarborImmutableTagRuleSpec.parse({ connectionRef: { name: "h" }, projectRef: { name: "team" }, ...s });
const s = rule({ repositories: { decoration: "excludes", pattern: "tmp/**" }, tags: { pattern: "v*" } });

describe("immutable tag rule mapping", () => {
  test("the request is what Harbor's UI writes; what Harbor stores for it is no drift", () => {
    const req = ruleRequest(s, false);
    expect(req).toEqual({
      disabled: false,
      action: "immutable",
      template: "immutable_template",
      tag_selectors: [{ kind: "doublestar", decoration: "matches", pattern: "v*" }],
      scope_selectors: {
        repository: [{ kind: "doublestar", decoration: "repoExcludes", pattern: "tmp/**" }],
      },
    });
    expect(diff(s, applied(1, req))).toEqual([]);
  });

  test("drift names the selector fields and the flag", () => {
    expect(
      diff(
        { ...s, disabled: true },
        applied(1, ruleRequest({ ...s, tags: { ...s.tags, pattern: "x" } }, false)),
      ),
    ).toEqual(["tags.pattern", "disabled"]);
    expect(
      diff(
        s,
        applied(1, ruleRequest({ ...s, repositories: { decoration: "matches", pattern: "tmp/**" } }, false)),
      ),
    ).toEqual(["repositories.decoration"]);
  });

  test("a rule is found by both selectors, decoration and pattern, whatever its flag", () => {
    // What observe takes before the rule has an id: the Harbor rule whose selectors do not differ.
    const found = (r: Record<string, unknown>, disabled = false) =>
      selectorDrift(s, applied(1, ruleRequest(rule(r), disabled))).length === 0;
    const repositories = { decoration: "excludes", pattern: "tmp/**" };
    const tags = { pattern: "v*" };
    expect(found({ repositories, tags })).toBe(true);
    expect(found({ repositories, tags }, true)).toBe(true);
    expect(found({ repositories: { ...repositories, decoration: "matches" }, tags })).toBe(false);
    expect(found({ repositories: { ...repositories, pattern: "**" }, tags })).toBe(false);
    expect(found({ repositories, tags: { ...tags, decoration: "excludes" } })).toBe(false);
    expect(found({ repositories, tags: { pattern: "v" } })).toBe(false);
  });

  test("the claim is the project and the selectors: the same rule in one project has one owner", () => {
    expect(claimOf(s, "apps")).toBe("immutable:apps/team/excludes:tmp/**/matches:v*");
    expect(claimOf({ ...s, disabled: true }, "apps")).toBe(claimOf(s, "apps"));
    expect(claimOf({ ...s, tags: { decoration: "excludes", pattern: "v*" } }, "apps")).not.toBe(
      claimOf(s, "apps"),
    );
    expect(claimOf({ ...s, projectRef: { name: "other" } }, "apps")).not.toBe(claimOf(s, "apps"));
  });

  test("the spec exported from Harbor's rule has no drift against it", () => {
    const out = specFromRule(applied(1, ruleRequest(s, true)), "team");
    if ("skip" in out) throw new Error(out.skip);
    const again = HarborImmutableTagRuleSpec.parse({ ...out.spec, connectionRef: { name: "h" } });
    expect(diff(again, applied(1, ruleRequest(s, true)))).toEqual([]);
    expect(again.disabled).toBe(true);
  });
});
