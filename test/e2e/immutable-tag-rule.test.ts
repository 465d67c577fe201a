// HarborImmutableTagRule end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator). What needs them for the rule: a rule as Harbor's UI writes it, a disabled rule (Harbor
// stores new rules enabled), changed selectors and flag (Harbor's update changes only the flag when
// it differs), drift reverted and named, adoption of the rule Harbor has with those selectors, and
// deletion alone or with its project. The rule's request, drift, identity by selectors and claim
// are rows of test/unit/controllers/immutable-tag-rule-mapping.test.ts, its refusals rows of the admission
// table (test/integration/cluster/admission.test.ts), and the lifecycle every kind shares is proven
// in test/unit/runtime/managed-lifecycle.test.ts.
import { beforeAll, describe, expect, test } from "vitest";
import type { ImmutableRule } from "../../src/harbor/immutable-tag-rule.ts";
import { budget } from "../env/budget.ts";
import { useOperator } from "../env/operator.ts";
import {
  eventOf,
  harborIdOf,
  type ImmutableTagRuleCR,
  immutableTagRule,
  project,
  readyForSpec,
} from "../env/resources.ts";

const op = useOperator({ namespacePrefix: "immutable" });
const KIND = "harborimmutabletagrule";

const rulesOf = (projectName: string): Promise<ImmutableRule[]> => op.harbor.immutable.list(projectName);
const ruleOf = async (projectName: string, id: number) =>
  (await rulesOf(projectName)).find((r) => r.id === id);

beforeAll(async () => {
  await op.kubectl.apply(project("team"));
  await op.waitReady("harborproject", "team");
});

describe("HarborImmutableTagRule", () => {
  test("adoption takes the rule Harbor has with exactly those selectors", async () => {
    const rule = (repository: string, tag: string, tagDecoration = "matches") => ({
      action: "immutable",
      template: "immutable_template",
      tag_selectors: [{ kind: "doublestar", decoration: tagDecoration, pattern: tag }],
      scope_selectors: {
        repository: [{ kind: "doublestar", decoration: "repoMatches", pattern: repository }],
      },
    });
    // Decoys: the same tags in every repository, the same patterns excluding the tags.
    await op.harbor.immutable.create("team", rule("**", "stable"));
    await op.harbor.immutable.create("team", rule("app", "stable", "excludes"));
    const id = await op.harbor.immutable.create("team", rule("app", "stable"));
    await op.kubectl.apply(
      immutableTagRule("stable", "team", {
        repositories: { pattern: "app" },
        tags: { pattern: "stable" },
        creationPolicy: "Adopt",
      }),
    );
    const adopted = await op.waitReady<ImmutableTagRuleCR>(KIND, "stable");
    expect(harborIdOf(adopted)).toBe(id);
    await eventOf(op.kubectl, "stable", "HarborImmutableTagRule", "Adopted");
    expect(await rulesOf("team")).toHaveLength(3);
  });

  test("a rule's life: held as Harbor's UI writes it (a disabled one created, then disabled), changed in place, put back when changed in Harbor, deleted alone or with its project", async () => {
    await op.kubectl.apply([
      immutableTagRule("releases", "team", { tags: { pattern: "v*" } }),
      immutableTagRule("frozen", "team", { tags: { pattern: "frozen-*" }, disabled: true }),
    ]);
    const cr = await op.waitReady<ImmutableTagRuleCR>(KIND, "releases");
    const id = harborIdOf(cr);
    expect(await ruleOf("team", id)).toMatchObject({
      disabled: false,
      action: "immutable",
      template: "immutable_template",
      tag_selectors: [{ kind: "doublestar", decoration: "matches", pattern: "v*" }],
      scope_selectors: { repository: [{ kind: "doublestar", decoration: "repoMatches", pattern: "**" }] },
    });
    expect(cr.status?.projectId).toBe((await op.harbor.projects.get("team")).project_id);
    const table = await op.kubectl.run(["get", "harborimmutabletagrules"]);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+HARBOR ID\s+PROJECT\s+REPOSITORIES\s+TAGS\s+AGE/);
    expect(table).toMatch(new RegExp(`releases\\s+True\\s+Synced\\s+${id}\\s+team\\s+\\*\\*\\s+v\\*\\s`));
    const frozen = await op.waitReady<ImmutableTagRuleCR>(KIND, "frozen");
    expect(await ruleOf("team", harborIdOf(frozen))).toMatchObject({
      disabled: true,
      tag_selectors: [{ pattern: "frozen-*" }],
    });

    // Selectors and the flag together: the same rule, updated.
    await op.kubectl.apply(
      immutableTagRule("releases", "team", {
        repositories: { decoration: "excludes", pattern: "scratch/**" },
        tags: { pattern: "release-*" },
        disabled: true,
      }),
    );
    await op.waitFor<ImmutableTagRuleCR>(KIND, "releases", readyForSpec);
    const current = (await ruleOf("team", id)) as ImmutableRule;
    expect(current).toMatchObject({
      disabled: true,
      tag_selectors: [{ decoration: "matches", pattern: "release-*" }],
      scope_selectors: { repository: [{ decoration: "repoExcludes", pattern: "scratch/**" }] },
    });
    expect(await rulesOf("team")).toHaveLength(5);

    // Harbor changes either the selectors or the flag in one update: one at a time.
    const corrected = (fields: string[]) =>
      op.waitFor<ImmutableTagRuleCR>(
        KIND,
        "releases",
        (o) => JSON.stringify(o.status?.lastDriftCorrection?.fields) === JSON.stringify(fields),
      );
    await op.harbor.immutable.update("team", id, {
      ...current,
      tag_selectors: [{ kind: "doublestar", decoration: "matches", pattern: "anything" }],
    });
    await corrected(["tags.pattern"]);
    expect((await ruleOf("team", id))?.tag_selectors?.[0]?.pattern).toBe("release-*");
    await op.harbor.immutable.update("team", id, { ...current, disabled: false });
    await corrected(["disabled"]);
    expect(await ruleOf("team", id)).toMatchObject({
      disabled: true,
      tag_selectors: [{ pattern: "release-*" }],
    });
    await eventOf(op.kubectl, "releases", "HarborImmutableTagRule", "DriftCorrected");

    await op.kubectl.delete(KIND, "releases", { wait: true });
    expect(await ruleOf("team", id)).toBeUndefined();
    expect(await rulesOf("team")).toHaveLength(4);

    // The project and the rules left in it, deleted at once: each rule's deletion uses the project
    // id it recorded, whichever goes first.
    await op.kubectl.run([
      "delete",
      "harborproject/team",
      `${KIND}/frozen`,
      `${KIND}/stable`,
      "--wait=false",
    ]);
    for (const [kind, name] of [
      ["harborproject", "team"],
      [KIND, "frozen"],
      [KIND, "stable"],
    ] as const)
      await op.kubectl.wait(kind, name, "delete", budget.operatorMs);
    expect(await op.harbor.projects.exists("team")).toBe(false);
  });
});
