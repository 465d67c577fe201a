// The operator's half of the input rules (src/api): every rule the CRD applies at admission is
// applied again when the operator parses a spec (objects stored before the rule existed), and the
// rules the apiserver cannot express are applied only here. The apiserver's half is proven in
// test/integration/cluster/admission.test.ts.
import { describe, expect, test } from "vitest";
import { HarborAuditLogPurgeSpec } from "../../../src/api/audit-log-purge.ts";
import {
  harborNameProblem,
  NO_HIDDEN_CHARACTERS,
  NO_HIDDEN_CHARACTERS_IN_TEXT,
  NO_USER_INFO,
} from "../../../src/api/common.ts";
import { HarborConfigurationSpec } from "../../../src/api/configuration.ts";
import { ClusterHarborConnectionSpec, HarborConnectionSpec } from "../../../src/api/connection.ts";
import { HARBOR_CRON, SCHEDULE_CRON } from "../../../src/api/cron.ts";
import { HarborGarbageCollectionSpec } from "../../../src/api/garbage-collection.ts";
import { HarborJobServiceSpec } from "../../../src/api/job-service.ts";
import { HarborProjectSpec, PROJECT_NAME } from "../../../src/api/project.ts";
import { storageBytes } from "../../../src/api/quantity.ts";
import { HarborRegistrySpec, REGISTRY_NAME } from "../../../src/api/registry.ts";
import { globClosed, HarborReplicationPolicySpec } from "../../../src/api/replication.ts";
import { HarborRobotSpec } from "../../../src/api/robot.ts";
import { HarborWebhookPolicySpec } from "../../../src/api/webhook.ts";
import { describeIssues, quoteValue } from "../../../src/runtime/invalid-spec.ts";

/** Characters no name may hold: controls, separators and invisible format characters. */
const HIDDEN: Array<[string, string]> = [
  ["NUL", "\u0000"],
  ["ESC", "\u001b"],
  ["a line feed", "\n"],
  ["DEL", "\u007f"],
  ["NEL (C1)", "\u0085"],
  ["U+009F (C1)", "\u009f"],
  ["a zero-width space", "\u200b"],
  ["a zero-width joiner", "\u200d"],
  ["a right-to-left mark", "\u200f"],
  ["a line separator", "\u2028"],
  ["a left-to-right embedding", "\u202a"],
  ["a right-to-left override", "\u202e"],
  ["a left-to-right isolate", "\u2066"],
  ["a pop directional isolate", "\u2069"],
  ["a word joiner", "\u2060"],
  ["a byte order mark", "\ufeff"],
  ["a soft hyphen", "\u00ad"],
  ["a tag character", "\u{e0041}"],
];

/** The operator's side of a rule. */
const passes = (rule: { test?: (v: string) => boolean }, v: string) =>
  (rule.test as (v: string) => boolean)(v);

describe("hidden characters", () => {
  test.each(HIDDEN)("a name with %s is refused", (_what, c) => {
    expect(passes(NO_HIDDEN_CHARACTERS, `team${c}a`)).toBe(false);
  });

  test.each(["team-a", "Team A (prod)", "Überprüfung", "生产环境", "café ☕", "a/b:c@d"])(
    "%s is a name like any other",
    (name) => {
      expect(passes(NO_HIDDEN_CHARACTERS, name)).toBe(true);
    },
  );

  test("descriptions may hold tabs and line breaks, nothing else hidden", () => {
    expect(passes(NO_HIDDEN_CHARACTERS_IN_TEXT, "first line\n\tsecond line\r\n")).toBe(true);
    for (const [, c] of HIDDEN.filter(([what]) => what !== "a line feed")) {
      expect(passes(NO_HIDDEN_CHARACTERS_IN_TEXT, `text${c}`), JSON.stringify(c)).toBe(false);
    }
  });
});

describe("URLs", () => {
  test.each([
    "https://user:password@harbor.example.com",
    "https://user@harbor.example.com/",
    "http://:token@harbor.example.com:8443/x",
  ])("%s carries user info and is refused", (url) => {
    expect(passes(NO_USER_INFO, url)).toBe(false);
  });

  test.each(["https://harbor.example.com/a@b", "https://harbor.example.com?to=a@b", "https://h:8443/x"])(
    "%s has no user info",
    (url) => {
      expect(passes(NO_USER_INFO, url)).toBe(true);
    },
  );

  const connection = (url: string) => ({ url, credentialsSecretRef: { name: "creds" } });
  test.each([
    "https://admin:Harbor12345@harbor.example.com",
    "https://harbor.example.com:99999",
    "https://exa\u200bmple.com",
  ])("a connection to %s is refused", (url) => {
    expect(HarborConnectionSpec.safeParse(connection(url)).success).toBe(false);
    expect(
      ClusterHarborConnectionSpec.safeParse({
        ...connection(url),
        credentialsSecretRef: { name: "creds", namespace: "ops" },
        allowedNamespaces: ["*"],
      }).success,
    ).toBe(false);
  });

  test("a CA bundle must hold readable certificates", () => {
    const parse = (caBundle: string) =>
      HarborConnectionSpec.safeParse({ ...connection("https://h"), caBundle });
    expect(parse("not a certificate").success).toBe(false);
    expect(parse("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").success).toBe(false);
  });

  const base = { connectionRef: { name: "h" } };
  test("registry URLs and webhook addresses refuse user info", () => {
    const registry = { ...base, type: "harbor", url: "https://robot:secret@registry.example.com" };
    expect(HarborRegistrySpec.safeParse(registry).success).toBe(false);
    const webhook = {
      ...base,
      projectRef: { name: "p" },
      eventTypes: ["PUSH_ARTIFACT"],
      targets: [{ address: "https://ci:token@ci.example.com/hook" }],
    };
    expect(HarborWebhookPolicySpec.safeParse(webhook).success).toBe(false);
    expect(
      HarborWebhookPolicySpec.safeParse({ ...webhook, targets: [{ address: "https://ci.example.com/a@b" }] })
        .success,
    ).toBe(true);
  });
});

describe("names and free text of every kind", () => {
  const base = { connectionRef: { name: "h" } };
  const kinds: Array<[string, { safeParse(v: unknown): { success: boolean } }, Record<string, unknown>]> = [
    ["HarborProject", HarborProjectSpec, base],
    [
      "HarborRobot",
      HarborRobotSpec,
      {
        ...base,
        projectRef: { name: "p" },
        permissions: [{ access: [{ resource: "repository", action: "pull" }] }],
      },
    ],
    ["HarborRegistry", HarborRegistrySpec, { ...base, type: "harbor", url: "https://r.example.com" }],
    [
      "HarborReplicationPolicy",
      HarborReplicationPolicySpec,
      { ...base, direction: "push", registryRef: { name: "r" } },
    ],
    [
      "HarborWebhookPolicy",
      HarborWebhookPolicySpec,
      {
        ...base,
        projectRef: { name: "p" },
        eventTypes: ["PUSH_ARTIFACT"],
        targets: [{ address: "https://h/x" }],
      },
    ],
  ];

  test.each(kinds)("%s: a valid spec parses", (_kind, schema, spec) => {
    expect(schema.safeParse(spec).success).toBe(true);
  });

  test.each(kinds)("%s: spec.name refuses control and invisible characters", (_kind, schema, spec) => {
    for (const c of ["\u0007", "\u200b", "\u202e"]) {
      expect(schema.safeParse({ ...spec, name: `name${c}x` }).success, JSON.stringify(c)).toBe(false);
    }
  });

  test.each(kinds.filter(([k]) => k !== "HarborProject"))(
    "%s: the description refuses invisible characters and keeps line breaks",
    (_kind, schema, spec) => {
      expect(schema.safeParse({ ...spec, description: "pulls for CI\nowned by team a" }).success).toBe(true);
      expect(schema.safeParse({ ...spec, description: "evil\u202eexe.txt" }).success).toBe(false);
    },
  );

  test("replication filters and CVE ids refuse invisible characters", () => {
    const policy = kinds[3]?.[2] as Record<string, unknown>;
    for (const filters of [
      { name: "library/\u200b**" },
      { tag: { pattern: "v\u0000" } },
      { labels: { values: ["pr\u2066od"] } },
    ]) {
      expect(
        HarborReplicationPolicySpec.safeParse({ ...policy, filters }).success,
        JSON.stringify(filters),
      ).toBe(false);
    }
    expect(
      HarborProjectSpec.safeParse({ ...base, cveAllowlist: { items: ["CVE-2024-1\u200b"] } }).success,
    ).toBe(false);
  });

  test("a name Harbor refuses is named with the rule", () => {
    expect(harborNameProblem(PROJECT_NAME, "team-a")).toBeUndefined();
    expect(harborNameProblem(PROJECT_NAME, "team--a")).toBe(
      '"team--a" is not a valid Harbor project name (lower-case letters and digits, with a single . _ or - between them)',
    );
    expect(harborNameProblem(REGISTRY_NAME, "r".repeat(64))).toBeUndefined();
    expect(harborNameProblem(REGISTRY_NAME, "r".repeat(65))).toContain("at most 64 characters");
  });
});

describe("values", () => {
  test.each([
    ["10Gi", 10 * 2 ** 30],
    ["1.5Gi", 1.5 * 2 ** 30],
    ["1.1k", 1100],
    ["1", 1],
    ["1Pi", 2 ** 50],
    ["unlimited", -1],
    ["-1", -1],
  ])("storage %s is %d bytes", (text, bytes) => {
    expect(storageBytes(text)).toBe(bytes);
  });

  test.each(["0", "1.5", "0.1Ki", "1025Ti", "2Pi", "-2", "10GB", "1e3", "500m", ""])(
    "storage %j is nothing Harbor can store",
    (text) => {
      expect(storageBytes(text)).toBeUndefined();
    },
  );

  test.each([
    "0 0 2 * * *",
    "0 */15 * * * *",
    "0 0,30 8-18/2 1,15 * 1-5",
    "0 5 2 * JAN-mar MON-fri",
    "0 5/10 * * * sun-sat",
  ])("cron %j is a schedule Harbor runs", (cron) => {
    expect(passes(HARBOR_CRON, cron)).toBe(true);
  });

  test.each([
    ["seconds other than 0", "5 0 2 * * *"],
    ["every minute", "0 * * * * *"],
    ["every minute, written ?", "0 ? * * * *"],
    ["minute 60", "0 60 * * * *"],
    ["hour 24", "0 0 24 * * *"],
    ["day of month 0", "0 0 0 0 * *"],
    ["month 13", "0 0 0 1 13 *"],
    ["day of week 7", "0 0 0 * * 7"],
    ["a step of 0", "0 0 */0 * * *"],
    ["five fields", "0 0 2 * *"],
    ["seven fields", "0 0 2 * * * 2030"],
    ["a range from high to low (only the operator sees it)", "0 0 5-2 * * *"],
    ["months from high to low (only the operator sees it)", "0 0 2 * dec-jan *"],
  ])("cron with %s is refused", (_what, cron) => {
    expect(passes(HARBOR_CRON, cron)).toBe(false);
  });

  test.each(["0 * * * * *", "0 ? * * * *", "0 */5 * * * *", "0 0 3 * * *", "0 0 0 * * 0"])(
    "a GC or purge schedule may run every minute, as Harbor lets it: %j",
    (cron) => {
      expect(passes(SCHEDULE_CRON, cron)).toBe(true);
    },
  );

  test.each([
    ["seconds other than 0", "5 0 2 * * *"],
    ["minute 60", "0 60 * * * *"],
    ["five fields", "0 0 2 * *"],
    ["a range from high to low (only the operator sees it)", "0 0 5-2 * * *"],
  ])("a GC or purge schedule with %s is refused", (_what, cron) => {
    expect(passes(SCHEDULE_CRON, cron)).toBe(false);
  });

  const conn = { connectionRef: { name: "harbor" } };
  test.each([
    [{ type: "Manual" }, "schedule.type"],
    [{ type: "Schedule" }, "schedule.type"],
    [{ type: "Custom" }, "schedule.cron"],
    [{ type: "None", cron: "0 0 0 * * *" }, "schedule.cron"],
    [{ type: "Daily", cron: "5 0 0 * * *" }, "schedule.cron"],
  ])("a GC or purge schedule %j is refused at %s", (schedule, path) => {
    for (const parsed of [
      HarborGarbageCollectionSpec.safeParse({ ...conn, schedule }),
      HarborAuditLogPurgeSpec.safeParse({ ...conn, schedule, retentionHours: 24 }),
    ]) {
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((i) => i.path.join("."))).toContain(path);
    }
  });

  test("GC parameters: workers 1 to 10 (Harbor 2.13's limit; 2.12's 5 is checked against the connection); defaults as Harbor's UI", () => {
    const ok = HarborGarbageCollectionSpec.parse({ ...conn, schedule: { type: "Daily" } });
    expect(ok).toMatchObject({ deleteUntagged: false, workers: 1, dryRun: false, creationPolicy: "Create" });
    expect(
      HarborGarbageCollectionSpec.parse({ ...conn, schedule: { type: "None" }, workers: 10 }).workers,
    ).toBe(10);
    for (const workers of [0, 11, 1.5])
      expect(
        HarborGarbageCollectionSpec.safeParse({ ...conn, schedule: { type: "None" }, workers }).success,
      ).toBe(false);
  });

  test("purge parameters: retention 1 to 876,000 hours, known operations only, event types in Harbor's form", () => {
    const ok = HarborAuditLogPurgeSpec.parse({ ...conn, schedule: { type: "None" }, retentionHours: 168 });
    // Unset: what the release purges by default (all three operations, or every event type listed).
    expect(ok.includeOperations).toBeUndefined();
    expect(ok.includeEventTypes).toBeUndefined();
    expect(
      HarborAuditLogPurgeSpec.parse({
        ...conn,
        schedule: { type: "None" },
        retentionHours: 1,
        includeEventTypes: ["create_artifact", "update_configuration"],
      }).includeEventTypes,
    ).toEqual(["create_artifact", "update_configuration"]);
    for (const bad of [
      { retentionHours: 0 },
      { retentionHours: 876_001 },
      {},
      { retentionHours: 1, includeOperations: [] },
      { retentionHours: 1, includeOperations: ["push"] },
      { retentionHours: 1, includeEventTypes: [] },
      { retentionHours: 1, includeEventTypes: ["Create_Artifact"] },
      { retentionHours: 1, includeEventTypes: ["create artifact"] },
      { retentionHours: 1, includeEventTypes: ["create_"] },
    ])
      expect(HarborAuditLogPurgeSpec.safeParse({ ...conn, schedule: { type: "None" }, ...bad }).success).toBe(
        false,
      );
  });

  test.each(["ALL", "all", "Replication", "REPLICATION\u200b", ""])("job type %j is refused", (jobType) => {
    const parsed = HarborJobServiceSpec.safeParse({ ...conn, queues: [{ jobType, paused: true }] });
    expect(parsed.success).toBe(false);
  });

  test.each(["library/**", "v*", "{v1,v2}.*", "release-[0-9]*", "[]]x", "a\\*b", "x}"])(
    "pattern %j closes",
    (p) => {
      expect(globClosed(p)).toBe(true);
    },
  );

  test.each(["v[1-2", "{v1,v2", "release-[", "[]", "a\\"])("pattern %j never closes and is refused", (p) => {
    expect(globClosed(p)).toBe(false);
  });
});

describe("the InvalidSpec message", () => {
  test("names each field with the value found there", () => {
    const spec = {
      connectionRef: { name: "h" },
      storageLimit: "1.5",
      cveAllowlist: { items: ["CVE-1", "CVE-2\u200b"] },
    };
    const r = HarborProjectSpec.safeParse(spec);
    expect(r.success).toBe(false);
    const message = describeIssues(r.error?.issues ?? [], spec);
    expect(message).toContain('spec.storageLimit "1.5": must be "unlimited"');
    expect(message).toContain(
      'spec.cveAllowlist.items[1] "CVE-2\\u200b": must not contain control characters',
    );
  });

  test("shows hidden characters as escapes, leaves out user info, caps long values", () => {
    expect(quoteValue("a\u202eb\u0085")).toBe('"a\\u202eb\\u0085"');
    expect(quoteValue("https://admin:Harbor12345@h.example.com/x")).toBe('"https://…@h.example.com/x"');
    expect(quoteValue("x".repeat(500))).toHaveLength(80);
  });
});

describe("URLs that receive secrets: the operator applies the CRD's rules to what was stored before them", () => {
  const config = (auth: object) =>
    HarborConfigurationSpec.safeParse({ connectionRef: { name: "h" }, auth }).success;
  test.each<[string, object, boolean]>([
    ["LDAP over ldaps://", { ldap: { url: "ldaps://ldap.example.com:636" } }, true],
    ["LDAP as a bare host (Harbor's ldap://)", { ldap: { url: "ldap.example.com" } }, true],
    ["LDAP over http://", { ldap: { url: "http://ldap.example.com" } }, false],
    ["LDAP with user info", { ldap: { url: "ldap://cn=admin:pw@ldap.example.com" } }, false],
    ["OIDC over https://", { oidc: { endpoint: "https://idp.example.com/realms/x" } }, true],
    ["OIDC over http:// to loopback", { oidc: { endpoint: "http://127.0.0.1:5556/dex" } }, true],
    ["OIDC over http:// elsewhere", { oidc: { endpoint: "http://idp.example.com" } }, false],
    [
      "OIDC to a host that only starts like loopback",
      { oidc: { endpoint: "http://127.0.0.1.evil.example.com" } },
      false,
    ],
    ["the auth proxy over http://", { http: { endpoint: "http://authproxy.auth.svc" } }, false],
    [
      "the token review with user info",
      { http: { tokenReviewEndpoint: "https://u:p@r.example.com" } },
      false,
    ],
    ["UAA over https://", { uaa: { endpoint: "https://uaa.example.com" } }, true],
  ])("%s", (_what, auth, ok) => {
    expect(config(auth)).toBe(ok);
  });
});
