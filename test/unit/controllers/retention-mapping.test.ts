import { describe, expect, test } from "vitest";
import { HarborRetentionPolicySpec } from "../../../src/api/retention.ts";
import { retentionExternal } from "../../../src/controllers/retention/external.ts";
import {
  compared,
  diff,
  isEmpty,
  type ObservedRetention,
  policyRequest,
  scheduleFromCron,
  specFromPolicy,
  stored,
} from "../../../src/controllers/retention/mapping.ts";
import type { RetentionPolicy } from "../../../src/harbor/retention.ts";
import type { ManagedObject } from "../../../src/runtime/external-client.ts";
import type { Informer } from "../../../src/runtime/informer.ts";

const spec = (s: Record<string, unknown> = {}) =>
  HarborRetentionPolicySpec.parse({ connectionRef: { name: "h" }, projectRef: { name: "team" }, ...s });
const observed = (policy: RetentionPolicy): ObservedRetention => ({ id: 4, projectId: 7, policy });

describe("retention policy mapping", () => {
  const s = spec({
    schedule: { type: "Daily" },
    rules: [
      { template: "latestPushedK", count: 10 },
      {
        template: "nDaysSinceLastPull",
        days: 30,
        tags: { decoration: "excludes", pattern: "dev-*" },
        untagged: true,
      },
      { template: "always", repositories: { decoration: "excludes", pattern: "tmp/**" }, disabled: true },
    ],
  });

  test("the request is what Harbor's UI sends", () => {
    const r = policyRequest(s, 7);
    expect(r).toMatchObject({
      algorithm: "or",
      trigger: { kind: "Schedule", settings: { cron: "0 0 0 * * *" } },
      scope: { level: "project", ref: 7 },
    });
    expect(r.rules?.[1]).toEqual({
      disabled: false,
      action: "retain",
      template: "nDaysSinceLastPull",
      params: { nDaysSinceLastPull: 30 },
      tag_selectors: [
        { kind: "doublestar", decoration: "excludes", pattern: "dev-*", extras: '{"untagged":true}' },
      ],
      scope_selectors: { repository: [{ kind: "doublestar", decoration: "repoMatches", pattern: "**" }] },
    });
    expect(r.rules?.[2]?.params).toEqual({});
    expect(r.rules?.[2]?.scope_selectors?.repository?.[0]?.decoration).toBe("repoExcludes");
    expect(policyRequest(spec(), 7).trigger?.settings).toEqual({ cron: "" });
  });

  test("what Harbor stores for the request reads back as the spec: no drift", () => {
    const back = stored(4, policyRequest(s, 7));
    expect(diff(s, observed(back))).toEqual([]);
    expect(compared(back.rules?.[1] ?? {})).toEqual(s.rules[1]);
  });

  test("drift is named per rule and field; a different number of rules is named rules", () => {
    const back = stored(4, policyRequest(s, 7));
    const changed = structuredClone(back);
    const r0 = changed.rules?.[0];
    if (r0) {
      r0.params = { latestPushedK: 3 };
      r0.disabled = true;
    }
    const r2 = changed.rules?.[2];
    if (r2?.scope_selectors)
      r2.scope_selectors = { repository: [{ decoration: "repoMatches", pattern: "tmp/**" }] };
    if (changed.trigger) changed.trigger.settings = { cron: "0 0 1 * * *" };
    expect(diff(s, observed(changed))).toEqual([
      "schedule",
      "rules[0].count",
      "rules[0].disabled",
      "rules[2].repositories.decoration",
    ]);
    expect(diff(s, observed({ ...back, rules: back.rules?.slice(0, 2) }))).toEqual(["rules"]);
  });

  test("the claim is the project: one resource per project's policy, whatever its rules", () => {
    const { claim } = retentionExternal({
      projects: {} as Informer<ManagedObject>,
      kube: { patchStatus: async () => ({}) as never },
      events: { record: () => undefined, routine: () => undefined },
      type: { group: "harborconfig.io", version: "v1alpha1", plural: "x", kind: "X", namespaced: true },
    });
    expect(claim(s, "a", "ns")).toBe(claim(spec({ rules: [{ template: "always" }] }), "b", "ns"));
    expect(claim(s, "a", "ns")).not.toBe(claim(spec({ projectRef: { name: "other" } }), "a", "ns"));
  });

  test("a policy with no rules and no schedule counts as none", () => {
    expect(isEmpty({ rules: [], trigger: { kind: "Schedule", settings: { cron: "" } } })).toBe(true);
    expect(isEmpty({})).toBe(true);
    expect(isEmpty(stored(4, policyRequest(spec({ schedule: { type: "Hourly" } }), 7)))).toBe(false);
  });

  test("the schema refuses what Harbor refuses: over 15 rules, rules alike, parameters out of place", () => {
    const rule = { template: "always" };
    expect(HarborRetentionPolicySpec.safeParse({ ...spec(), rules: Array(16).fill(rule) }).success).toBe(
      false,
    );
    expect(HarborRetentionPolicySpec.safeParse({ ...spec(), rules: [rule, rule] }).success).toBe(false);
    expect(
      HarborRetentionPolicySpec.safeParse({ ...spec(), rules: [rule, { ...rule, disabled: true }] }).success,
    ).toBe(true);
    expect(
      HarborRetentionPolicySpec.safeParse({ ...spec(), rules: [{ template: "latestPulledN" }] }).success,
    ).toBe(false);
    expect(
      HarborRetentionPolicySpec.safeParse({ ...spec(), rules: [{ template: "always", count: 1 }] }).success,
    ).toBe(false);
  });
});

describe("retention policy export (Harbor → spec)", () => {
  test("the spec read back from what Harbor stores has no drift against it", () => {
    for (const schedule of [{ type: "None" }, { type: "Weekly" }, { type: "Custom", cron: "0 15 4 * * 1" }]) {
      const s = spec({
        schedule,
        rules: [
          { template: "latestPulledN", count: 0, untagged: true },
          {
            template: "nDaysSinceLastPush",
            days: 7,
            repositories: { decoration: "excludes", pattern: "{a,b}/**" },
          },
          { template: "always", disabled: true },
        ],
      });
      const back = stored(4, policyRequest(s, 7));
      const out = specFromPolicy(back, "team");
      if ("skip" in out) throw new Error(out.skip);
      const again = HarborRetentionPolicySpec.parse({ ...out.spec, connectionRef: { name: "h" } });
      expect(diff(again, observed(back))).toEqual([]);
      expect(again.schedule).toEqual(s.schedule);
    }
  });

  test("a cron is the type whose default it is; an empty policy and odd rules are skipped", () => {
    expect(scheduleFromCron("0 0 0 * * *")).toEqual({ type: "Daily" });
    expect(scheduleFromCron("")).toEqual({ type: "None" });
    expect(specFromPolicy({ rules: [] }, "team")).toEqual({ skip: "no rules and no schedule" });
    const two = stored(4, policyRequest(spec({ rules: [{ template: "always" }] }), 7));
    const r0 = two.rules?.[0];
    if (r0)
      r0.tag_selectors = [
        ...(r0.tag_selectors ?? []),
        { kind: "doublestar", decoration: "matches", pattern: "x" },
      ];
    expect(specFromPolicy(two, "team")).toMatchObject({ skip: expect.stringContaining("one tag selector") });
    expect(specFromPolicy(two, undefined)).toMatchObject({ skip: expect.stringContaining("not exported") });
  });
});
