// HarborImmutableTagRule end to end: kubectl → apiserver → the operator process → Harbor (the
// emulator). A rule as Harbor's UI writes it, a disabled rule (Harbor stores new rules enabled),
// changed selectors and flag (Harbor's update changes only the flag when it differs), drift reverted
// and named, adoption by selectors, a second resource with the same selectors in Conflict, deletion,
// and bad input refused by kubectl.
import { describe, expect, test } from "vitest";
import type { ImmutableRule } from "../../src/harbor/immutable.ts";
import { useOperator } from "../env/operator.ts";
import { refusedByKubectl } from "../env/refused.ts";
import {
  condition,
  eventReasons,
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

describe("HarborImmutableTagRule", () => {
  test("apply → Harbor holds the rule as its UI writes it; kubectl get shows it", async () => {
    await op.kubectl.apply([
      project("team"),
      immutableTagRule("releases", "team", { tags: { pattern: "v*" } }),
    ]);
    const cr = await op.waitReady<ImmutableTagRuleCR>(KIND, "releases");
    const id = cr.status?.harborId as number;
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
  });

  test("a disabled rule is created, then disabled", async () => {
    await op.kubectl.apply(
      immutableTagRule("frozen", "team", { tags: { pattern: "frozen-*" }, disabled: true }),
    );
    const cr = await op.waitReady<ImmutableTagRuleCR>(KIND, "frozen");
    expect(await ruleOf("team", cr.status?.harborId as number)).toMatchObject({
      disabled: true,
      tag_selectors: [{ pattern: "frozen-*" }],
    });
  });

  test("changing selectors and the flag together updates the rule in place", async () => {
    await op.kubectl.apply(
      immutableTagRule("releases", "team", {
        repositories: { decoration: "excludes", pattern: "scratch/**" },
        tags: { pattern: "release-*" },
        disabled: true,
      }),
    );
    const cr = await op.waitFor<ImmutableTagRuleCR>(KIND, "releases", readyForSpec);
    const rule = await ruleOf("team", cr.status?.harborId as number);
    expect(rule).toMatchObject({
      disabled: true,
      tag_selectors: [{ decoration: "matches", pattern: "release-*" }],
      scope_selectors: { repository: [{ decoration: "repoExcludes", pattern: "scratch/**" }] },
    });
    expect(await rulesOf("team")).toHaveLength(2);
  });

  test("a change made in Harbor is put back and named", async () => {
    const cr = await op.kubectl.get<ImmutableTagRuleCR>(KIND, "releases");
    const id = cr.status?.harborId as number;
    const current = (await ruleOf("team", id)) as ImmutableRule;
    const corrected = (fields: string[]) =>
      op.waitFor<ImmutableTagRuleCR>(
        KIND,
        "releases",
        (o) => JSON.stringify(o.status?.lastDriftCorrection?.fields) === JSON.stringify(fields),
        30_000,
      );
    // Harbor changes either the selectors or the flag in one update: one at a time.
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
    expect(await eventReasons(op.kubectl, "releases", "HarborImmutableTagRule")).toContain("DriftCorrected");
  });

  test("adoption finds a rule by its selectors; Create refuses it", async () => {
    const id = await op.harbor.immutable.create("team", {
      action: "immutable",
      template: "immutable_template",
      tag_selectors: [{ kind: "doublestar", decoration: "matches", pattern: "stable" }],
      scope_selectors: { repository: [{ kind: "doublestar", decoration: "repoMatches", pattern: "app" }] },
    });
    const spec = { repositories: { pattern: "app" }, tags: { pattern: "stable" } };
    await op.kubectl.apply(immutableTagRule("stable", "team", spec));
    const refused = await op.waitFor<ImmutableTagRuleCR>(
      KIND,
      "stable",
      (o) => condition(o, "Ready")?.reason === "AlreadyExists",
    );
    expect(refused.status?.harborId).toBeUndefined();
    await op.kubectl.apply(immutableTagRule("stable", "team", { ...spec, creationPolicy: "Adopt" }));
    const adopted = await op.waitFor<ImmutableTagRuleCR>(KIND, "stable", readyForSpec);
    expect(adopted.status?.harborId).toBe(id);
    expect(await eventReasons(op.kubectl, "stable", "HarborImmutableTagRule")).toContain("Adopted");
  });

  test("a second resource with the same selectors in the project is a Conflict", async () => {
    await op.kubectl.apply(
      immutableTagRule("stable-again", "team", {
        repositories: { pattern: "app" },
        tags: { pattern: "stable" },
      }),
    );
    const cr = await op.waitFor<ImmutableTagRuleCR>(
      KIND,
      "stable-again",
      (o) => condition(o, "Ready")?.reason === "Conflict",
    );
    expect(condition(cr, "Ready")?.message).toContain("stable");
    await op.kubectl.delete(KIND, "stable-again", { wait: true });
    expect((await rulesOf("team")).some((r) => r.tag_selectors?.[0]?.pattern === "stable")).toBe(true);
  });

  test("deleting the resource deletes the rule", async () => {
    const cr = await op.kubectl.get<ImmutableTagRuleCR>(KIND, "stable");
    await op.kubectl.delete(KIND, "stable", { wait: true });
    expect(await ruleOf("team", cr.status?.harborId as number)).toBeUndefined();
  });

  test("a rule and its project deleted together both go", async () => {
    await op.kubectl.apply([project("short-lived"), immutableTagRule("short-lived-rule", "short-lived")]);
    await op.waitReady<ImmutableTagRuleCR>(KIND, "short-lived-rule");
    await op.kubectl.run(["delete", "harborproject/short-lived", `${KIND}/short-lived-rule`, "--wait=false"]);
    await op.kubectl.run([
      "wait",
      "--for=delete",
      `${KIND}/short-lived-rule`,
      "harborproject/short-lived",
      "--timeout=60s",
    ]);
    expect(await op.harbor.projects.exists("short-lived")).toBe(false);
  });

  test("invalid YAML is refused by kubectl, naming the field", async () => {
    const refused = (o: object) => refusedByKubectl(op.kubectl, o);
    expect(await refused(immutableTagRule("bad", "team", { tags: { pattern: "" } }))).toMatch(
      /spec\.tags\.pattern/,
    );
    expect(
      await refused(
        immutableTagRule("bad", "team", { repositories: { decoration: "repoMatches" as never } }),
      ),
    ).toMatch(/spec\.repositories\.decoration: Unsupported value/);
    expect(
      await refused(immutableTagRule("releases", "team", { projectRef: { name: "other" } } as never)),
    ).toMatch(/projectRef is immutable: it stays "team"/);
  });
});
