// The pure mappings of HarborScanAll (what of Harbor's schedule is compared, the metrics in status)
// and of the preheat kinds: an instance's request and drift (the credential Harbor shows back is
// compared, never shown; one Harbor no longer shows is not compared), a policy's filters and trigger
// as Harbor's JSON text, compared by meaning, and its scope where each release keeps it; and the
// exporters' inverse mappings, whose specs the kinds' own diffs find in sync. HarborScanAll's
// external client too, with Harbor faked: its tenancy check, the wait for a default scanner (and a
// deletion that does not wait for one), what "exists" means, its claim and what deletion sends.
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, test } from "vitest";
import { HarborPreheatInstanceSpec } from "../../../src/api/preheat-instance.ts";
import { HarborPreheatPolicySpec } from "../../../src/api/preheat-policy.ts";
import { HarborScanAllSpec } from "../../../src/api/scan-all.ts";
import {
  DEFAULT_INSTANCE_CLAIM,
  preheatInstanceExternal,
} from "../../../src/controllers/preheat-instance/external.ts";
import * as instance from "../../../src/controllers/preheat-instance/mapping.ts";
import { preheatPolicyExternal } from "../../../src/controllers/preheat-policy/external.ts";
import * as policy from "../../../src/controllers/preheat-policy/mapping.ts";
import { scanAllExternal } from "../../../src/controllers/scan-all/external.ts";
import { scanAllKind } from "../../../src/controllers/scan-all/index.ts";
import * as scanAll from "../../../src/controllers/scan-all/mapping.ts";
import { harborRelease } from "../../../src/controllers/shared/harbor-release.ts";
import type { SecretUses } from "../../../src/controllers/shared/secret-uses.ts";
import { HarborError } from "../../../src/harbor/errors.ts";
import { NotReady, Stalled } from "../../../src/runtime/external-client.ts";
import { fakeHarborCalls, handle, inputOf, tenantConnection } from "./fakes.ts";

const conn = { connectionRef: { name: "harbor" } };
const V2_12 = harborRelease({ harborVersion: "v2.12.4-e12a4c0e" });
const V2_13 = harborRelease({ harborVersion: "v2.13.5-e13a5c0e" });
const V2_15 = harborRelease({ harborVersion: "v2.15.2-e15a2c0e" });

describe("HarborScanAll", () => {
  const spec = (o: object = {}) => HarborScanAllSpec.parse({ ...conn, schedule: { type: "Daily" }, ...o });

  test("the schedule: the type's default cron, a change named by field, None as no schedule", () => {
    expect(scanAll.scheduleRequest(spec())).toEqual({ schedule: { type: "Daily", cron: "0 0 0 * * *" } });
    const same = { schedule: scanAll.scheduleFrom({ schedule: { type: "Daily", cron: "0 0 0 * * *" } }) };
    expect(scanAll.diff(spec(), same)).toEqual([]);
    expect(scanAll.diff(spec({ schedule: { type: "Daily", cron: "0 0 3 * * *" } }), same)).toEqual([
      "schedule.cron",
    ]);
    expect(scanAll.diff(spec({ schedule: { type: "None" } }), same)).toEqual(["schedule.type"]);
    expect(scanAll.diff(spec({ schedule: { type: "None" } }), {})).toEqual([]);
    expect(scanAll.scheduleFrom({ schedule: { type: "None" } })).toBeUndefined();
    expect(scanAll.describe(same)).toBe("schedule Daily, 0 0 0 * * *");
  });

  test("the metrics: {} is no run; counts by status", () => {
    expect(scanAll.runStatus({})).toBeUndefined();
    expect(
      scanAll.runStatus({
        total: 5,
        completed: 4,
        metrics: { Pending: 0, Running: 1, Success: 3, Error: 1, Stopped: 0 },
        ongoing: true,
        trigger: "Manual",
      }),
    ).toEqual({
      trigger: "Manual",
      ongoing: true,
      total: 5,
      completed: 4,
      succeeded: 3,
      failed: 1,
      stopped: 0,
    });
  });
});

describe("HarborScanAll against Harbor", () => {
  const spec = (o: object = {}) => HarborScanAllSpec.parse({ ...conn, schedule: { type: "Daily" }, ...o });
  const deps = { kube: {}, events: {}, type: {} } as unknown as Parameters<typeof scanAllExternal>[0];
  /** Harbor's scan-all API with `schedule` set (or none), every write written down; no default scanner: 412. */
  const harbor = (calls: string[], schedule?: object, o: { noScanner?: boolean } = {}) => {
    let held = schedule;
    const refuse = () => {
      if (o.noScanner)
        throw new HarborError({
          operation: "getScanAllSchedule",
          kind: "precondition",
          harborMessage: "no scanner is configured, it's not possible to scan",
          requestId: "r1",
        });
    };
    return fakeHarborCalls({
      scanAll: {
        getSchedule: async () => {
          refuse();
          return held;
        },
        updateSchedule: async (req: { schedule: { type: string } }) => {
          refuse();
          calls.push(`updateSchedule ${JSON.stringify(req)}`);
          held = req.schedule.type === "None" ? undefined : req;
        },
        metrics: async () => ({}),
        scheduledMetrics: async () => ({}),
      },
    });
  };
  const theirs = { schedule: { type: "Daily", cron: "0 0 4 * * *" } };

  test("through a ClusterHarborConnection, only a tenancy with allowSystemSettings may manage it; before any call", async () => {
    const calls: string[] = [];
    const refused = await scanAllExternal(deps)
      .prepare(inputOf(spec(), { conn: tenantConnection({ allowSystemSettings: false }, harbor(calls)) }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Stalled);
    expect(refused).toMatchObject({
      reason: "NotAllowed",
      message:
        "not allowed: ClusterHarborConnection shared does not let namespace team manage the scan-all schedule, which every tenant of this Harbor shares (spec.tenancy.allowSystemSettings)",
    });
    await scanAllExternal(deps).prepare(
      inputOf(spec(), { conn: tenantConnection({ allowSystemSettings: true }, harbor(calls)) }),
    );
    expect(calls).toEqual([]);
  });

  test("without a default scanner Harbor refuses every call: a wait (NoDefaultScanner) saying what to do", async () => {
    const waiting = await scanAllExternal(deps)
      .observe(inputOf(spec(), { conn: handle(harbor([], undefined, { noScanner: true })) }))
      .catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(NotReady);
    expect(waiting).toMatchObject({ reason: "NoDefaultScanner" });
    expect((waiting as Error).message).toContain("no scanner is configured");
    expect((waiting as Error).message).toContain("a HarborScannerRegistration with default: true");
    // A registration appearing, turning Ready or going queues every HarborScanAll at once.
    const watch = scanAllKind.watches?.references?.HarborScannerRegistration;
    const target = {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "HarborScannerRegistration",
      metadata: { name: "trivy" },
    };
    expect(typeof watch === "object" && watch.matches(spec(), "team", target)).toBe(true);
  });

  test("exists when Harbor has a schedule (someone else's is named); one per Harbor; deletion sets None", async () => {
    const calls: string[] = [];
    const ext = scanAllExternal(deps);
    expect(await ext.observe(inputOf(spec(), { conn: handle(harbor(calls)) }))).toBeUndefined();
    const input = inputOf(spec(), { conn: handle(harbor(calls, theirs)) });
    const found = await ext.observe(input);
    expect(ext.describe?.(found as never)).toBe("schedule Daily, 0 0 4 * * *");
    expect(ext.claim(spec(), "a", "team")).toBe("scan-all-schedule");
    expect(ext.claim(spec({ schedule: { type: "Weekly" } }), "b", "other")).toBe("scan-all-schedule");
    await ext.delete(input, found as never);
    expect(calls).toEqual(['updateSchedule {"schedule":{"type":"None"}}']);
  });

  test("deleted on a Harbor without a default scanner: a schedule Harbor cannot read is nothing to delete, and the log says so", async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: "info" },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const calls: string[] = [];
    const input = {
      ...inputOf(spec(), {
        conn: handle(harbor(calls, theirs, { noScanner: true })),
        knownId: 0,
        resource: {
          metadata: { name: "res", namespace: "team", deletionTimestamp: "2030-01-01T00:00:00Z" },
        },
      }),
      logger,
    };
    expect(await scanAllExternal(deps).observe(input)).toBeUndefined();
    expect(calls).toEqual([]);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        reason: "NoDefaultScanner",
        msg: expect.stringContaining("no scan-all schedule: nothing to delete"),
      }),
    ]);
  });
});

describe("HarborPreheatInstance", () => {
  const spec = (o: object = {}) =>
    HarborPreheatInstanceSpec.parse({ ...conn, vendor: "dragonfly", endpoint: "http://df:8080", ...o });
  const credential = { info: { username: "u", password: "p" }, version: "7" };
  const harbor = (o: object = {}) => ({
    id: 3,
    name: "df",
    vendor: "dragonfly",
    endpoint: "http://df:8080/",
    auth_mode: "NONE",
    auth_info: {},
    enabled: true,
    default: false,
    insecure: false,
    status: "Unknown",
    ...o,
  });

  test("the request carries the credential and keeps a default Harbor has", () => {
    const basic = spec({ auth: { mode: "BASIC", secretRef: { name: "s" } } });
    expect(instance.instanceRequest(basic, "df", credential)).toMatchObject({
      name: "df",
      auth_mode: "BASIC",
      auth_info: { username: "u", password: "p" },
      default: false,
    });
    expect(instance.instanceRequest(spec(), "df", undefined, harbor({ default: true }))).toMatchObject({
      id: 3,
      auth_info: {},
      default: true,
    });
  });

  test("drift: every field, the credential by value and by the Secret's version", () => {
    expect(instance.diff(spec(), "df", undefined, undefined, harbor())).toEqual([]);
    expect(
      instance.diff(
        spec({ default: true, insecure: true }),
        "df",
        undefined,
        undefined,
        harbor({ enabled: false }),
      ),
    ).toEqual(["enabled", "default", "insecure"]);
    const basic = spec({ auth: { mode: "BASIC", secretRef: { name: "s" } } });
    const shown = harbor({ auth_mode: "BASIC", auth_info: { username: "u", password: "p" } });
    expect(instance.diff(basic, "df", credential, "7", shown)).toEqual([]);
    expect(instance.diff(basic, "df", credential, "6", shown)).toEqual(["auth.secretRef"]);
    expect(
      instance.diff(basic, "df", credential, "7", { ...shown, auth_info: { username: "u", password: "x" } }),
    ).toEqual(["auth.secretRef"]);
    expect(instance.diff(basic, "df", credential, "7", harbor())).toEqual(["auth.mode"]);
  });

  test("from 2.14.4 Harbor shows no auth_info: not compared, so no drift sweep pushes it again; a new Secret version still is", () => {
    const basic = spec({ auth: { mode: "BASIC", secretRef: { name: "s" } } });
    const { auth_info: _hidden, ...hidden } = harbor({ auth_mode: "BASIC" });
    expect(instance.diff(basic, "df", credential, "7", hidden)).toEqual([]);
    expect(instance.diff(basic, "df", credential, "6", hidden)).toEqual(["auth.secretRef"]);
    expect(instance.diff(basic, "df", credential, undefined, hidden)).toEqual(["auth.secretRef"]);
    // The update that pushes it carries the Secret's credential (an empty one would keep Harbor's).
    expect(instance.instanceRequest(basic, "df", credential, { ...hidden, id: 3 }).auth_info).toEqual(
      credential.info,
    );
  });

  describe("what the shared lifecycle asks of the kind", () => {
    /** Reading a Secret would mean the tenancy check came too late. */
    const secrets: SecretUses = {
      read: () => Promise.reject(new Error("no Secret should be read")),
    };
    const ext = preheatInstanceExternal({ secrets, statusRefreshMs: 3_600_000 });

    test("one resource per instance name in a Harbor; adopted only by its exact name", () => {
      expect(ext.claim(spec(), "df", "a")).toBe(ext.claim(spec({ vendor: "kraken" }), "df", "b"));
      expect(ext.claim(spec(), "df", "a")).not.toBe(ext.claim(spec(), "kr", "a"));
      const input = inputOf(spec(), { harborName: "df", extra: {} });
      expect(ext.identifies?.(input, harbor())).toBe(true);
      expect(ext.identifies?.(input, harbor({ name: "df-2" }))).toBe(false);
    });

    test("default: true also takes Harbor's default instance, a setting of its own, held while status shows it", () => {
      expect(ext.setting?.(spec())).toBeUndefined();
      expect(ext.setting?.(spec({ default: true }))).toEqual({
        claim: DEFAULT_INSTANCE_CLAIM,
        what: "Harbor's default preheat instance (spec.default: true)",
      });
      expect(ext.holdsSetting?.({ isDefault: true } as never)).toBe(true);
      expect(ext.holdsSetting?.({} as never)).toBe(false);
    });

    test("an instance is Harbor-wide: a tenant of a shared connection needs allowSystemSettings", async () => {
      const basic = spec({ auth: { mode: "BASIC", secretRef: { name: "s" } } });
      await expect(
        ext.prepare(inputOf(basic, { harborName: "df", conn: tenantConnection() })),
      ).rejects.toMatchObject({
        name: "Stalled",
        reason: "NotAllowed",
        message: expect.stringContaining(
          "does not let namespace team manage P2P preheat provider instances, which every tenant of this Harbor shares (spec.tenancy.allowSystemSettings)",
        ),
      });
      expect(
        await ext.prepare(
          inputOf(spec(), { harborName: "df", conn: tenantConnection({ allowSystemSettings: true }) }),
        ),
      ).toEqual({});
    });
  });
});

describe("HarborPreheatPolicy", () => {
  const spec = (o: object = {}) =>
    HarborPreheatPolicySpec.parse({ ...conn, projectRef: { name: "p" }, instanceRef: { name: "df" }, ...o });

  test("filters and trigger as Harbor's JSON text", () => {
    const s = spec({
      filters: { tag: "v*", labels: ["b", "a"] },
      trigger: { type: "scheduled", cron: "0 0 2 * * *" },
    });
    expect(JSON.parse(policy.filtersText(s))).toEqual([
      { type: "repository", value: "**" },
      { type: "tag", value: "v*" },
      { type: "label", value: ["b", "a"] },
    ]);
    expect(JSON.parse(policy.triggerText(s))).toEqual({
      type: "scheduled",
      trigger_setting: { cron: "0 0 2 * * *" },
    });
    expect(policy.policyRequest(s, "rel", 4, V2_12)).toMatchObject({
      name: "rel",
      provider_id: 4,
      enabled: true,
      scope: "single_peer",
    });
  });

  test("the scope: `scope` up to 2.12, extra_attrs from 2.13, each in its release's words", () => {
    const request = (scope: string | undefined, rel: typeof V2_12, current?: object) =>
      policy.policyRequest(spec(scope ? { scope } : {}), "rel", 4, rel, current as never);
    // The default, one seed peer, is single_peer on 2.12 and single_seed_peer from 2.13.
    expect(request(undefined, V2_12)).toMatchObject({ scope: "single_peer" });
    expect(request(undefined, V2_12)).not.toHaveProperty("extra_attrs");
    expect(request(undefined, V2_13)).toMatchObject({ extra_attrs: '{"scope":"single_seed_peer"}' });
    expect(request(undefined, V2_13)).not.toHaveProperty("scope");
    expect(request("single_peer", V2_15).extra_attrs).toBe('{"scope":"single_seed_peer"}');
    expect(request("all_peers", V2_12).scope).toBe("all_peers");
    expect(request("all_seed_peers", V2_15).extra_attrs).toBe('{"scope":"all_seed_peers"}');
    // Harbor's update replaces extra_attrs: its other attributes go back as Harbor has them.
    const current = { id: 1, extra_attrs: '{"other":1,"scope":"all_peers"}' };
    expect(JSON.parse(request("all_seed_peers", V2_15, current).extra_attrs ?? "")).toEqual({
      other: 1,
      scope: "all_seed_peers",
    });
    // A release that names none is taken as the newest known.
    expect(request(undefined, harborRelease({ harborVersion: "dev" }))).toMatchObject({
      extra_attrs: '{"scope":"single_seed_peer"}',
    });
  });

  test("a scope only 2.13 has is refused on 2.12 by name; a release that names none is taken as the newest", () => {
    expect(policy.unsupportedScope(spec({ scope: "all_seed_peers" }), V2_12)).toBe(
      "spec.scope all_seed_peers needs Harbor 2.13 or later; this Harbor is v2.12.4-e12a4c0e, whose scopes are single_peer (single_seed_peer) and all_peers",
    );
    expect(policy.unsupportedScope(spec({ scope: "all_seed_peers" }), V2_13)).toBeUndefined();
    expect(policy.unsupportedScope(spec({ scope: "all_peers" }), V2_12)).toBeUndefined();
    expect(
      policy.unsupportedScope(spec({ scope: "all_seed_peers" }), harborRelease({ harborVersion: "" })),
    ).toBeUndefined();
  });

  test("from 2.13 the scope is compared in extra_attrs (none there is Harbor's default): a change reaches Harbor, drift on it is seen", () => {
    const harbor = {
      id: 1,
      name: "rel",
      provider_id: 4,
      enabled: true,
      filters: policy.filtersText(spec()),
      trigger: policy.triggerText(spec()),
      extra_attrs: '{"scope":"single_seed_peer"}',
    };
    expect(policy.diff(spec(), "rel", 4, V2_15, harbor)).toEqual([]);
    expect(policy.diff(spec({ scope: "single_peer" }), "rel", 4, V2_15, harbor)).toEqual([]);
    expect(policy.diff(spec({ scope: "all_peers" }), "rel", 4, V2_15, harbor)).toEqual(["scope"]);
    expect(policy.diff(spec(), "rel", 4, V2_15, { ...harbor, extra_attrs: '{"scope":"all_peers"}' })).toEqual(
      ["scope"],
    );
    // None in Harbor is Harbor's default, one seed peer.
    const { extra_attrs: _none, ...without } = harbor;
    expect(policy.diff(spec(), "rel", 4, V2_15, without)).toEqual([]);
    expect(policy.diff(spec({ scope: "all_peers" }), "rel", 4, V2_15, without)).toEqual(["scope"]);
    // 2.12 shows `scope`; 2.12's single_peer is the default.
    const old = { ...without, scope: "single_peer" };
    expect(policy.diff(spec(), "rel", 4, V2_12, old)).toEqual([]);
    expect(policy.diff(spec({ scope: "all_peers" }), "rel", 4, V2_12, old)).toEqual(["scope"]);
  });

  test("compared by meaning: order and Harbor's re-encoding are no drift; other filters are", () => {
    const s = spec({ filters: { tag: "v*", labels: ["b", "a"] } });
    const harbor = {
      id: 1,
      name: "rel",
      provider_id: 4,
      enabled: true,
      filters: JSON.stringify([
        { type: "label", value: ["a", "b"] },
        { type: "tag", value: "v*" },
        { type: "repository", value: "**" },
      ]),
      trigger: '{"type":"manual","trigger_setting":{}}',
    };
    expect(policy.diff(s, "rel", 4, V2_12, harbor)).toEqual([]);
    expect(policy.diff(s, "rel", 5, V2_12, { ...harbor, enabled: false })).toEqual([
      "instanceRef",
      "enabled",
    ]);
    const withVuln = JSON.stringify([...JSON.parse(harbor.filters), { type: "vulnerability", value: 3 }]);
    expect(policy.diff(s, "rel", 4, V2_12, { ...harbor, filters: withVuln })).toEqual(["filters.repository"]);
    expect(
      policy.diff(spec({ trigger: { type: "scheduled", cron: "0 0 2 * * *" } }), "rel", 4, V2_12, harbor),
    ).toContain("trigger.type");
    // On 2.12 a scope Harbor shows is compared (one it does not show, as above, is not).
    expect(policy.diff(s, "rel", 4, V2_12, { ...harbor, scope: "all_peers" })).toEqual(["scope"]);
  });

  describe("what the shared lifecycle asks of the kind", () => {
    const ext = preheatPolicyExternal({} as never);

    test("one resource per policy name in a project: the same name in another project is another policy", () => {
      expect(ext.claim(spec(), "rel", "a")).toBe(
        ext.claim(spec({ instanceRef: { name: "kr" } }), "rel", "a"),
      );
      expect(ext.claim(spec(), "rel", "a")).not.toBe(
        ext.claim(spec({ projectRef: { name: "q" } }), "rel", "a"),
      );
      expect(ext.claim(spec(), "rel", "a")).not.toBe(ext.claim(spec(), "rel2", "a"));
      const input = inputOf(spec(), { harborName: "rel", extra: { project: { name: "p", id: 7 } } });
      const found = { id: 1, name: "rel", project_id: 7 };
      expect(ext.identifies?.(input, found)).toBe(true);
      expect(ext.identifies?.(input, { ...found, name: "rel2" })).toBe(false);
      expect(ext.identifies?.(input, { ...found, project_id: 8 })).toBe(false);
    });
  });
});

describe("exported specs parse, and the kind's diff against the object they came from is empty", () => {
  const MANAGED = { connectionRef: { name: "harbor" }, creationPolicy: "Adopt", deletionPolicy: "Orphan" };
  const spec = <T>(r: { spec: object } | { skip: string } | undefined): T => {
    if (!r || "skip" in r) throw new Error(r ? r.skip : "no resource");
    return r.spec as T;
  };

  test("HarborScanAll: a schedule, with the type's default cron left out; none is Harbor's default", () => {
    const schedule = scanAll.scheduleFrom({ schedule: { type: "Weekly", cron: "0 0 0 * * 0" } });
    const exported = spec<object>(scanAll.specFromScanAll(schedule));
    expect(exported).toEqual({ schedule: { type: "Weekly" } });
    expect(scanAll.diff(HarborScanAllSpec.parse({ ...MANAGED, ...exported }), { schedule })).toEqual([]);
    expect(scanAll.specFromScanAll(undefined)).toBeUndefined();
  });

  test("HarborPreheatInstance: a stub for the credential, never its password; CUSTOM auth is skipped", () => {
    const i = {
      id: 2,
      name: "Dragonfly_EU",
      vendor: "dragonfly",
      endpoint: "http://df:8080",
      auth_mode: "BASIC",
      auth_info: { username: "harbor", password: "s3cret" },
      enabled: true,
      default: true,
      insecure: false,
    };
    const r = instance.specFromInstance(i, "dragonfly-eu");
    if ("skip" in r) throw new Error(r.skip);
    expect(r.secrets).toEqual([
      expect.objectContaining({
        name: "dragonfly-eu-credential",
        values: { username: "harbor", password: "" },
      }),
    ]);
    expect(JSON.stringify(r)).not.toContain("s3cret");
    const parsed = HarborPreheatInstanceSpec.parse({ ...MANAGED, ...r.spec });
    expect(instance.diff(parsed, "Dragonfly_EU", undefined, "x", i)).toEqual([]);
    expect(instance.specFromInstance({ ...i, auth_mode: "CUSTOM" }, "x")).toMatchObject({
      skip: expect.any(String),
    });
  });

  test("HarborPreheatPolicy: references by resource name; a vulnerability filter is skipped", () => {
    const p = {
      id: 5,
      name: "Releases",
      provider_id: 2,
      filters: JSON.stringify([
        { type: "repository", value: "**" },
        { type: "tag", value: "v*" },
      ]),
      trigger: '{"type":"scheduled","trigger_setting":{"cron":"0 0 2 * * *"}}',
      enabled: true,
      scope: "single_peer",
    };
    const exported = spec<object>(policy.specFromPolicy(p, "team-a", "dragonfly-eu", V2_12));
    expect(exported).toMatchObject({
      projectRef: { name: "team-a" },
      instanceRef: { name: "dragonfly-eu" },
      trigger: { type: "scheduled", cron: "0 0 2 * * *" },
    });
    expect(
      policy.diff(HarborPreheatPolicySpec.parse({ ...MANAGED, ...exported }), "Releases", 2, V2_12, p),
    ).toEqual([]);
    // From 2.13 the scope is read from extra_attrs.
    const { scope: _scope, ...newer } = { ...p, extra_attrs: '{"scope":"all_seed_peers"}' };
    const exported13 = spec<object>(policy.specFromPolicy(newer, "team-a", "dragonfly-eu", V2_15));
    expect(exported13).toMatchObject({ scope: "all_seed_peers" });
    expect(
      policy.diff(HarborPreheatPolicySpec.parse({ ...MANAGED, ...exported13 }), "Releases", 2, V2_15, newer),
    ).toEqual([]);
    // One made without a scope (Harbor's default) exports in sync too.
    const { extra_attrs: _none, ...plain } = newer;
    const exportedPlain = spec<object>(policy.specFromPolicy(plain, "team-a", "dragonfly-eu", V2_15));
    expect(
      policy.diff(
        HarborPreheatPolicySpec.parse({ ...MANAGED, ...exportedPlain }),
        "Releases",
        2,
        V2_15,
        plain,
      ),
    ).toEqual([]);
    const vuln = JSON.stringify([{ type: "vulnerability", value: 3 }]);
    expect(policy.specFromPolicy({ ...p, filters: vuln }, "team-a", "df", V2_12)).toMatchObject({
      skip: "it filters by vulnerability, which a spec cannot express",
    });
    expect(policy.specFromPolicy(p, "team-a", undefined, V2_12)).toMatchObject({
      skip: "its preheat instance is not exported",
    });
  });
});
