// Every managed kind can be exported, and the inverse mappings of the kinds that joined later —
// scanner registrations, labels, user groups, project members, the GC and purge schedules and the
// job service — give specs that parse and whose own diff against the object they came from is
// empty (adopting writes nothing). Per-Harbor settings at Harbor's defaults give no resource.
import { describe, expect, test } from "vitest";
import { HarborAuditLogPurgeSpec } from "../../../src/api/audit-log-purge.ts";
import { HarborGarbageCollectionSpec } from "../../../src/api/garbage-collection.ts";
import { HarborJobServiceSpec } from "../../../src/api/job-service.ts";
import { HarborLabelSpec } from "../../../src/api/label.ts";
import { HarborProjectMemberSpec } from "../../../src/api/member.ts";
import type { HarborProjectSpec } from "../../../src/api/project.ts";
import { HarborScannerRegistrationSpec } from "../../../src/api/scanner.ts";
import { HarborUserGroupSpec } from "../../../src/api/user-group.ts";
import {
  diff as purgeDiff,
  scheduleFrom as purgeScheduleFrom,
  purgeTarget,
  specFromPurge,
} from "../../../src/controllers/audit-log-purge/mapping.ts";
import {
  diff as gcDiff,
  scheduleFrom as gcScheduleFrom,
  specFromGc,
} from "../../../src/controllers/garbage-collection/mapping.ts";
import { diff as jobServiceDiff, specFromJobService } from "../../../src/controllers/job-service/mapping.ts";
import { MANAGED_KINDS, RUN_KINDS } from "../../../src/controllers/kind-list.ts";
import { diff as labelDiff, specFromLabel } from "../../../src/controllers/label/mapping.ts";
import { diff as memberDiff, specFromMember } from "../../../src/controllers/member/mapping.ts";
import { scannerDrift, scannerSpecFrom } from "../../../src/controllers/project/mapping.ts";
import { diff as scannerDiff, specFromRegistration } from "../../../src/controllers/scanner/mapping.ts";
import { harborRelease } from "../../../src/controllers/shared/harbor-release.ts";
import { diff as groupDiff, specFromGroup } from "../../../src/controllers/user-group/mapping.ts";
import type { JobQueue } from "../../../src/harbor/job-service.ts";

const MANAGED = { connectionRef: { name: "harbor" }, creationPolicy: "Adopt", deletionPolicy: "Orphan" };

function exported<T>(r: { spec: object } | { skip: string } | undefined): T & Record<string, unknown> {
  if (r === undefined) throw new Error("no resource");
  if ("skip" in r) throw new Error(`skipped: ${r.skip}`);
  return r.spec as T & Record<string, unknown>;
}

test("every managed kind has an exporter (a new kind cannot forget one); run kinds are history, not exported", () => {
  const without = MANAGED_KINDS.filter((k) => !k.exporter).map((k) => k.def.kind);
  expect(without).toEqual([]);
  for (const k of RUN_KINDS) expect("exporter" in k).toBe(false);
});

describe("HarborScannerRegistration", () => {
  const base = { uuid: "u-1", name: "Trivy Adapter", url: "http://trivy.example.com:8080" };
  test.each([
    ["no auth, the default", { ...base, auth: "", is_default: true }],
    [
      "disabled, with flags and a description",
      { ...base, disabled: true, skip_certVerify: true, use_internal_addr: true, description: "d" },
    ],
    ["the built-in Trivy", { ...base, name: "Trivy", url: "http://trivy-adapter:8080", is_default: true }],
  ])("%s: parses, and the diff against it is empty", (_what, r) => {
    const spec = HarborScannerRegistrationSpec.parse({
      ...MANAGED,
      ...exported<object>(specFromRegistration(r, "x")),
    });
    expect(scannerDiff(spec, r.name, undefined, undefined, r)).toEqual([]);
  });

  test("a credential becomes a Secret stub without a value; comparing it needs the folder's value", () => {
    const r = { ...base, auth: "APIKey", access_credential: "Api-Key-77" };
    const out = specFromRegistration(r, "trivy-adapter");
    expect(out.spec.auth).toEqual({ type: "APIKey", secretRef: { name: "trivy-adapter-credential" } });
    expect(out.secrets).toEqual([
      expect.objectContaining({
        name: "trivy-adapter-credential",
        values: { credential: "" },
        usableAs: "scanner-credential",
      }),
    ]);
    expect(JSON.stringify(out)).not.toContain("Api-Key-77");
    const spec = HarborScannerRegistrationSpec.parse({ ...MANAGED, ...out.spec });
    expect(scannerDiff(spec, r.name, undefined, "v", r)).toEqual([]);
    expect(scannerDiff(spec, r.name, { value: "other", version: "v" }, "v", r)).toEqual(["auth.secretRef"]);
  });

  test("a project's scanner: Harbor's default → systemDefault, another → its resource, none → unmanaged", () => {
    const spec = (s: HarborProjectSpec["scanner"]) => ({ name: "p", scanner: s }) as HarborProjectSpec;
    const d = { uuid: "u-1", isDefault: true };
    const own = { uuid: "u-2", name: "Clair", isDefault: false };
    expect(scannerSpecFrom(d, undefined)).toEqual({ spec: { systemDefault: true } });
    expect(scannerDrift(spec({ systemDefault: true }), d, undefined)).toEqual([]);
    const ref = scannerSpecFrom(own, "clair").spec;
    expect(ref).toEqual({ registrationRef: { name: "clair" } });
    expect(scannerDrift(spec(ref), own, "u-2")).toEqual([]);
    expect(scannerSpecFrom(own, undefined).note).toMatch(/not exported/);
    expect(scannerSpecFrom(null, undefined)).toEqual({});
  });
});

describe("HarborLabel", () => {
  test.each([
    [
      "global, with colour and description",
      { id: 1, name: "Release: Approved", scope: "g", project_id: 0, color: "#0065AB", description: "ok" },
      undefined,
    ],
    [
      "a project label without colour",
      { id: 2, name: "needs review", scope: "p", project_id: 7, color: "" },
      "team-a",
    ],
  ])("%s: parses, and the diff against it is empty", (_what, l, project) => {
    const spec = HarborLabelSpec.parse({ ...MANAGED, ...exported<object>(specFromLabel(l, project)) });
    expect(spec.projectRef?.name).toBe(project);
    expect(labelDiff(spec, l)).toEqual([]);
  });

  test("a colour the CRD does not take is left unmanaged and said", () => {
    const out = specFromLabel({ name: "x", scope: "g", color: "red" }, undefined);
    expect(exported<object>(out)).not.toHaveProperty("color");
    expect("notes" in out && out.notes.join()).toMatch(/color is left unmanaged/);
  });
});

describe("HarborUserGroup", () => {
  test.each([
    [
      "ldap",
      {
        id: 1,
        group_name: "Developers",
        group_type: 1,
        ldap_group_dn: "cn=developers,ou=groups,dc=example,dc=com",
      },
    ],
    ["http", { id: 2, group_name: "ops team", group_type: 2 }],
    ["oidc", { id: 3, group_name: "/admins", group_type: 3 }],
  ])("%s: parses, and the diff against it is empty", (_what, g) => {
    const spec = HarborUserGroupSpec.parse({ ...MANAGED, ...exported<object>(specFromGroup(g)) });
    expect(groupDiff(spec, g.group_name, g)).toEqual([]);
  });

  test("a group type the CRD does not know is skipped", () => {
    expect(specFromGroup({ group_name: "x", group_type: 9 })).toEqual({
      skip: expect.stringMatching(/group type 9/),
    });
  });
});

describe("HarborProjectMember", () => {
  const ldap = {
    id: 4,
    group_name: "Developers",
    group_type: 1,
    ldap_group_dn: "cn=developers,dc=example,dc=com",
  };
  test.each([
    ["a user", { entity_type: "u", entity_name: "alice", entity_id: 3, role_id: 2 }, undefined, undefined],
    [
      "a group by reference",
      { entity_type: "g", entity_name: "Developers", entity_id: 4, role_id: 3 },
      ldap,
      "developers",
    ],
    [
      "an LDAP group inline",
      { entity_type: "g", entity_name: "Developers", entity_id: 4, role_id: 5 },
      ldap,
      undefined,
    ],
    [
      "an HTTP group inline",
      { entity_type: "g", entity_name: "ops", entity_id: 5, role_id: 1 },
      { id: 5, group_name: "ops", group_type: 2 },
      undefined,
    ],
  ])("%s: parses, and the diff against it is empty", (_what, m, group, groupRef) => {
    const out = specFromMember({ project_id: 7, ...m }, "team-a", group, groupRef);
    const spec = HarborProjectMemberSpec.parse({ ...MANAGED, ...exported<object>(out) });
    expect(spec.projectRef.name).toBe("team-a");
    expect(memberDiff(spec, m)).toEqual([]);
    if (groupRef) expect(spec.group).toEqual({ groupRef: { name: groupRef } });
  });

  test("a group Harbor does not list (another auth mode) or a role the CRD does not know is skipped", () => {
    expect(
      specFromMember(
        { entity_type: "g", entity_name: "x", entity_id: 9, role_id: 2 },
        "p",
        undefined,
        undefined,
      ),
    ).toEqual({
      skip: expect.stringMatching(/does not list its group/),
    });
    expect(
      specFromMember({ entity_type: "u", entity_name: "x", role_id: 42 }, "p", undefined, undefined),
    ).toEqual({
      skip: expect.stringMatching(/role 42/),
    });
  });
});

describe("per-Harbor settings", () => {
  const history = (type: string, cron: string | undefined, parameters: object) => ({
    id: 1,
    schedule: { type, ...(cron ? { cron } : {}) },
    job_parameters: JSON.stringify(parameters),
  });

  test.each([
    [
      "Daily at Harbor's default cron",
      history("Daily", "0 0 0 * * *", { delete_untagged: false, workers: 1 }),
      {},
    ],
    [
      "Custom with parameters",
      history("Custom", "0 30 2 * * 6", { delete_untagged: true, workers: 3 }),
      { deleteUntagged: true, workers: 3 },
    ],
  ])("GC %s: parses, the diff is empty, defaults are left out", (_what, h, extra) => {
    const s = gcScheduleFrom(h);
    const raw = exported<object>(specFromGc(s));
    expect(raw).toMatchObject(extra);
    const spec = HarborGarbageCollectionSpec.parse({ ...MANAGED, ...raw });
    expect(gcDiff(spec, { schedule: s })).toEqual([]);
  });

  test("no GC schedule (Harbor's default) is no resource; Manual is none a spec can hold", () => {
    expect(specFromGc(gcScheduleFrom(undefined))).toBeUndefined();
    expect(specFromGc(gcScheduleFrom(history("None", undefined, {})))).toBeUndefined();
    expect(specFromGc(gcScheduleFrom(history("Manual", undefined, {})))).toEqual({
      skip: expect.stringMatching(/Manual/),
    });
  });

  test.each([
    [
      "weekly, every operation",
      history("Weekly", "0 0 0 * * 0", {
        audit_retention_hour: 720,
        include_operations: "create,delete,pull",
        dry_run: false,
      }),
      {},
      "v2.12.4-e12a4c0e",
    ],
    [
      "custom, pulls only, dry",
      history("Custom", "0 0 4 * * *", {
        audit_retention_hour: 48,
        include_operations: "pull",
        dry_run: true,
      }),
      { includeOperations: ["pull"], dryRun: true },
      "v2.12.4-e12a4c0e",
    ],
    [
      "daily on 2.15, event types as Harbor stored them",
      history("Daily", "0 0 0 * * *", {
        audit_retention_hour: 24,
        include_event_types: "pull_artifact,create_project",
        dry_run: false,
      }),
      { includeEventTypes: ["create_project", "pull_artifact"] },
      "v2.15.2-e15a2c0e",
    ],
  ])("purge %s: parses, and the diff is empty", (_what, h, extra, version) => {
    const s = purgeScheduleFrom(h);
    const raw = exported<object>(specFromPurge(s));
    expect(raw).toMatchObject(extra);
    const spec = HarborAuditLogPurgeSpec.parse({ ...MANAGED, ...raw });
    const events = ["create_artifact", "pull_artifact", "create_project"];
    const r = purgeTarget(spec, harborRelease({ harborVersion: version }), events);
    if ("refused" in r) throw new Error(r.refused.message);
    expect(purgeDiff(spec, { schedule: s }, r.target)).toEqual([]);
    expect(specFromPurge(undefined)).toBeUndefined();
  });

  test("job service: the paused queues, sorted; none paused is no resource", () => {
    const queues: JobQueue[] = [
      { job_type: "SCHEDULER", paused: true },
      { job_type: "REPLICATION", paused: false },
      { job_type: "RETENTION", paused: true },
    ];
    const raw = exported<{ queues: unknown }>(specFromJobService(queues));
    expect(raw.queues).toEqual([
      { jobType: "RETENTION", paused: true },
      { jobType: "SCHEDULER", paused: true },
    ]);
    const spec = HarborJobServiceSpec.parse({ ...MANAGED, ...raw });
    expect(jobServiceDiff(spec, { queues, pools: [], workers: [] })).toEqual([]);
    expect(specFromJobService([{ job_type: "SCHEDULER", paused: false }])).toBeUndefined();
  });
});
