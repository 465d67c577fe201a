// The exporters' inverse mappings (Harbor object → spec, in each kind's mapping.ts): the spec
// parses with the kind's schema, and the kind's own diff of it against the object it came from is
// empty — so that adopting an exported resource writes nothing to Harbor. Plus what cannot be
// expressed (skipped, with the reason) and what is never written (secret values).
import { describe, expect, test } from "vitest";
import { HarborProjectSpec } from "../../../src/api/project.ts";
import { HarborRegistrySpec } from "../../../src/api/registry.ts";
import { HarborReplicationPolicySpec } from "../../../src/api/replication.ts";
import { HarborRobotSpec } from "../../../src/api/robot.ts";
import { HarborWebhookPolicySpec } from "../../../src/api/webhook.ts";
import {
  type ProjectState,
  diff as projectDiff,
  specFromProject,
} from "../../../src/controllers/project/mapping.ts";
import { diff as registryDiff, specFromRegistry } from "../../../src/controllers/registry/mapping.ts";
import {
  diff as replicationDiff,
  specFromPolicy as specFromReplication,
} from "../../../src/controllers/replication/mapping.ts";
import {
  DAY_MS,
  diff as robotDiff,
  specFromRobot,
  specNameOf,
} from "../../../src/controllers/robot/mapping.ts";
import { globMatches, kubernetesName } from "../../../src/controllers/shared/export.ts";
import {
  specFromPolicy as specFromWebhook,
  diff as webhookDiff,
} from "../../../src/controllers/webhook/mapping.ts";
import type { Registry } from "../../../src/harbor/registries.ts";
import type { ReplicationPolicy } from "../../../src/harbor/replication.ts";
import type { Robot } from "../../../src/harbor/robots.ts";
import type { WebhookPolicy } from "../../../src/harbor/webhooks.ts";

import { EXAMPLE_CA_PEM } from "../../env/certificates.ts";

const MANAGED = { connectionRef: { name: "harbor" }, creationPolicy: "Adopt", deletionPolicy: "Orphan" };

function exported<T>(r: { spec: object } | { skip: string }): T & Record<string, unknown> {
  if ("skip" in r) throw new Error(`skipped: ${r.skip}`);
  return r.spec as T & Record<string, unknown>;
}

describe("HarborProject", () => {
  const project = (p: Partial<ProjectState>): ProjectState => ({
    project_id: 7,
    name: "team_a",
    metadata: { public: "false" },
    cve_allowlist: { items: [] },
    ...p,
  });

  test.each([
    ["defaults", project({})],
    [
      "every flag, severity, allowlist with expiry, a limit",
      project({
        metadata: {
          public: "true",
          auto_scan: "true",
          prevent_vul: "true",
          severity: "High",
          enable_content_trust: "true",
          enable_content_trust_cosign: "false",
          auto_sbom_generation: "true",
          reuse_sys_cve_allowlist: "true",
        },
        cve_allowlist: {
          items: [{ cve_id: "CVE-2024-2" }, { cve_id: "CVE-2024-1" }],
          expires_at: 1_900_000_000,
        },
        quota: { id: 3, hard: 5 * 2 ** 30, used: 10 },
      }),
    ],
    ["unlimited", project({ quota: { hard: -1 } })],
    ["a limit that is not a whole binary unit", project({ quota: { hard: 1_000_000_123 } })],
    [
      "a proxy cache with a speed (content trust left to Harbor)",
      project({
        registry_id: 4,
        metadata: { public: "true", proxy_speed_kb: "2048", enable_content_trust: "true" },
      }),
    ],
    [
      "a proxy cache of 2.15 with an upstream limit and local serving",
      project({
        registry_id: 4,
        metadata: {
          public: "false",
          proxy_speed_kb: "-1",
          max_upstream_conn: "8",
          proxy_cache_local_on_not_found: "true",
        },
      }),
    ],
  ])("%s: parses, and the diff against the project is empty", (_what, p) => {
    const { spec, notes } = specFromProject(p, p.registry_id ? "docker-hub" : undefined);
    const parsed = HarborProjectSpec.parse({ ...MANAGED, ...spec });
    expect(projectDiff(parsed, p, p.registry_id)).toEqual([]);
    expect(notes).toEqual([]);
  });

  test("every flag is managed (false where Harbor has none), the allowlist sorted, the limit a quantity", () => {
    const { spec } = specFromProject(
      project({
        metadata: { public: "true", severity: "critical" },
        cve_allowlist: {
          items: [{ cve_id: "CVE-2" }, { cve_id: "CVE-1" }, { cve_id: "CVE-2" }],
          expires_at: 1_900_000_000,
        },
        quota: { hard: 10 * 2 ** 30 },
      }),
      undefined,
    );
    expect(spec).toEqual({
      name: "team_a",
      public: true,
      autoScan: false,
      preventVulnerable: false,
      contentTrust: false,
      contentTrustCosign: false,
      autoSbomGeneration: false,
      reuseSystemCveAllowlist: false,
      severity: "critical",
      cveAllowlist: { items: ["CVE-1", "CVE-2"], expiresAt: "2030-03-17T17:46:40Z" },
      storageLimit: "10Gi",
    });
  });

  test("what the CRD cannot hold is left unmanaged and said", () => {
    const { spec, notes } = specFromProject(
      project({ metadata: { prevent_vul: "true" }, quota: { hard: 2 ** 51 } }),
      undefined,
    );
    expect(spec).not.toHaveProperty("preventVulnerable");
    expect(spec).not.toHaveProperty("storageLimit");
    expect(notes.join("\n")).toMatch(
      /preventVulnerable is left unmanaged.*\n.*storageLimit is left unmanaged/,
    );
  });
});

describe("HarborRobot", () => {
  const created = Date.parse("2025-01-01T00:00:00Z");
  const now = created + 10 * DAY_MS;
  const robot = (r: Partial<Robot>): Robot => ({
    id: 9,
    name: "robot$team_a+ci",
    level: "project",
    duration: 30,
    expires_at: created / 1000 + 30 * 86_400,
    creation_time: new Date(created).toISOString(),
    disable: false,
    editable: true,
    permissions: [
      {
        kind: "project",
        namespace: "team_a",
        access: [
          { resource: "repository", action: "push" },
          { resource: "repository", action: "pull", effect: "allow" },
          { resource: "artifact", action: "delete", effect: "deny" },
        ],
      },
    ],
    ...r,
  });
  const project = { id: 1, name: "team_a" };

  test.each([
    ["a project robot", robot({}), project],
    ["a disabled one with a description", robot({ disable: true, description: "CI pulls" }), project],
    ["one that never expires", robot({ duration: -1, expires_at: -1 }), project],
    ["one without a duration (older Harbor)", robot({ duration: null }), project],
    [
      "a system robot on a project, every project and the system",
      robot({
        name: "robot$sys.bot",
        level: "system",
        permissions: [
          { kind: "system", namespace: "/", access: [{ resource: "project", action: "list" }] },
          { kind: "project", namespace: "*", access: [{ resource: "repository", action: "pull" }] },
          { kind: "project", namespace: "team_a", access: [{ resource: "repository", action: "push" }] },
        ],
      }),
      undefined,
    ],
  ])("%s: parses, and the diff against the robot is empty", (_what, r, p) => {
    const spec = exported<object>(specFromRobot(r, p, p ? "team-a" : undefined, false));
    const parsed = HarborRobotSpec.parse({ ...MANAGED, ...spec });
    expect(robotDiff(parsed, r, p, now)).toEqual([]);
  });

  test("the spec names the robot without Harbor's prefix, keeps its secret, and lists access sorted", () => {
    const r = specFromRobot(robot({}), project, "team-a", false);
    expect(exported(r)).toEqual({
      name: "ci",
      level: "project",
      projectRef: { name: "team-a" },
      description: "",
      durationDays: 30,
      disabled: false,
      permissions: [
        {
          access: [
            { resource: "artifact", action: "delete", effect: "deny" },
            { resource: "repository", action: "pull" },
            { resource: "repository", action: "push" },
          ],
        },
      ],
      secret: { deliver: false },
    });
    expect("notes" in r && r.notes.join()).toMatch(/secret stays with whoever holds it/);
    // Asked to deliver: the default delivery, and the note says what adopting then does.
    const issued = specFromRobot(robot({}), project, "team-a", true);
    expect(exported(issued)).not.toHaveProperty("secret");
    expect("notes" in issued && issued.notes.join()).toMatch(/issues the robot a new secret/);
  });

  test("names: prefix and project stripped, whatever the prefix", () => {
    expect(specNameOf("robot$team_a+ci", project)).toBe("ci");
    expect(specNameOf("bot$team_a+ci.x", project)).toBe("ci.x");
    expect(specNameOf("robot$sys", undefined)).toBe("sys");
    expect(specNameOf("robot$other+ci", project)).toBeUndefined();
  });

  test.each([
    ["a legacy robot", robot({ editable: false }), /legacy robot/],
    [
      "a permission the CRD does not know",
      robot({
        permissions: [
          { kind: "project", namespace: "team_a", access: [{ resource: "teleport", action: "do" }] },
        ],
      }),
      /teleport:do/,
    ],
    [
      "a project robot with a permission elsewhere",
      robot({
        permissions: [
          { kind: "project", namespace: "other", access: [{ resource: "repository", action: "pull" }] },
        ],
      }),
      /outside its project/,
    ],
  ])("%s is skipped with the reason", (_what, r, reason) => {
    const out = specFromRobot(r, project, "team-a", false);
    expect("skip" in out && out.skip).toMatch(reason);
  });
});

describe("HarborRegistry", () => {
  const registry = (r: Partial<Registry>): Registry => ({
    id: 3,
    name: "Docker Hub",
    type: "docker-hub",
    url: "https://hub.docker.com",
    insecure: false,
    ...r,
  });

  test.each([
    ["anonymous", registry({})],
    ["insecure, with a description", registry({ insecure: true, description: "the hub" })],
    [
      "with credentials",
      registry({ credential: { type: "basic", access_key: "bob", access_secret: "*****" } }),
    ],
    [
      "with an oauth token",
      registry({ credential: { type: "oauth", access_key: "x", access_secret: "*****" } }),
    ],
    ["with its own CA (2.15)", registry({ ca_certificate: EXAMPLE_CA_PEM })],
    ["without a CA (2.15)", registry({ ca_certificate: "" })],
  ])("%s: parses, and the diff against the registry is empty", (_what, r) => {
    const out = specFromRegistry(r, "docker-hub");
    const spec = HarborRegistrySpec.parse({ ...MANAGED, ...exported<object>(out) });
    const credentials = spec.credential
      ? { accessKey: r.credential?.access_key ?? "", accessSecret: "", version: "v" }
      : undefined;
    expect(registryDiff(spec, r.name ?? "", credentials, "v", r)).toEqual([]);
  });

  test("a credential becomes a Secret stub without a value: not even the access key", () => {
    const out = specFromRegistry(
      registry({ credential: { type: "basic", access_key: "bob", access_secret: "*****" } }),
      "docker-hub",
    );
    if ("skip" in out) throw new Error(out.skip);
    expect(out.spec.credential).toEqual({ type: "basic", secretRef: { name: "docker-hub-credentials" } });
    expect(out.secrets).toEqual([
      expect.objectContaining({
        name: "docker-hub-credentials",
        values: { accessKey: "", accessSecret: "" },
        usableAs: "registry-credential",
      }),
    ]);
    expect(JSON.stringify(out)).not.toContain("bob");
    expect(out.notes.join()).toMatch(/pushes them once when it adopts/);
  });

  test("a CA only a release that has it shows is exported; one the CRD cannot hold is left unmanaged", () => {
    const withCa = specFromRegistry(registry({ ca_certificate: EXAMPLE_CA_PEM }), "r");
    expect("spec" in withCa && withCa.spec.caCertificate).toBe(EXAMPLE_CA_PEM);
    const none = specFromRegistry(registry({}), "r");
    expect("spec" in none && "caCertificate" in none.spec).toBe(false);
    const junk = specFromRegistry(registry({ ca_certificate: "not a certificate" }), "r");
    if ("skip" in junk) throw new Error(junk.skip);
    expect("caCertificate" in junk.spec).toBe(false);
    expect(junk.notes.join()).toMatch(/caCertificate is left unmanaged/);
  });

  test("a URL with credentials in it is skipped", () => {
    const out = specFromRegistry(registry({ url: "https://u:p@r.example.com" }), "x");
    expect("skip" in out && out.skip).toMatch(/URL/);
  });
});

describe("HarborReplicationPolicy", () => {
  const policy = (p: Partial<ReplicationPolicy>): ReplicationPolicy => ({
    id: 5,
    name: "Push to mirror",
    src_registry: { id: 0 },
    dest_registry: { id: 2 },
    dest_namespace: "",
    dest_namespace_replace_count: -1,
    trigger: { type: "manual" },
    filters: [],
    replicate_deletion: false,
    override: true,
    enabled: true,
    speed: 0,
    copy_by_chunk: false,
    ...p,
  });

  test.each([
    ["a manual push", policy({})],
    [
      "a scheduled pull with every filter, a speed and a destination",
      policy({
        src_registry: { id: 2 },
        dest_registry: { id: 0 },
        dest_namespace: "mirror/hub",
        dest_namespace_replace_count: 1,
        trigger: { type: "scheduled", trigger_settings: { cron: " 0 0  2 * * *" } },
        filters: [
          { type: "resource", value: "image" },
          { type: "label", value: ["b", "a"], decoration: "excludes" },
          { type: "tag", value: "v*", decoration: "" },
          { type: "name", value: "library/**" },
        ],
        replicate_deletion: true,
        deletion: true,
        override: false,
        enabled: false,
        speed: 1024,
        copy_by_chunk: true,
      }),
    ],
    [
      "event based, Harbor's old deletion field",
      policy({ trigger: { type: "event_based" }, replicate_deletion: undefined, deletion: true }),
    ],
    ["no trigger at all (manual)", policy({ trigger: undefined })],
    ["one active run at a time (2.14)", policy({ single_active_replication: true })],
    ["runs side by side (2.14)", policy({ single_active_replication: false })],
  ])("%s: parses, and the diff against the policy is empty", (_what, p) => {
    const spec = HarborReplicationPolicySpec.parse({
      ...MANAGED,
      ...exported<object>(specFromReplication(p, "mirror")),
    });
    expect(replicationDiff(spec, p.name ?? "", 2, p)).toEqual([]);
  });

  test.each([
    [
      "two name filters",
      policy({
        filters: [
          { type: "name", value: "a" },
          { type: "name", value: "b" },
        ],
      }),
      /more than one name/,
    ],
    ["an empty filter", policy({ filters: [{ type: "tag", value: "" }] }), /tag filter/],
    ["a registry that is not exported", policy({}), /not exported/],
  ])("%s is skipped", (what, p, reason) => {
    const out = specFromReplication(p, what.includes("registry") ? undefined : "mirror");
    expect("skip" in out && out.skip).toMatch(reason);
  });
});

describe("HarborWebhookPolicy", () => {
  const policy = (p: Partial<WebhookPolicy>): WebhookPolicy => ({
    id: 4,
    name: "Notify CI",
    project_id: 1,
    enabled: true,
    event_types: ["PUSH_ARTIFACT", "DELETE_ARTIFACT"],
    targets: [
      {
        type: "http",
        address: "https://ci.example.com/hook",
        skip_cert_verify: false,
        payload_format: "Default",
      },
    ],
    ...p,
  });

  test.each([
    ["one http target", policy({})],
    [
      "disabled, described, no payload format stored",
      policy({
        enabled: false,
        description: "d",
        targets: [{ type: "http", address: "https://x.example.com/?a=b" }],
      }),
    ],
    [
      "an http target with an auth header and CloudEvents, and a slack target",
      policy({
        targets: [
          {
            type: "http",
            address: "https://ci.example.com/hook",
            auth_header: "Bearer Xyz123456",
            skip_cert_verify: true,
            payload_format: "CloudEvents",
          },
          { type: "slack", address: "https://hooks.slack.com/services/T/B/C" },
          { type: "http", address: "https://b.example.com", auth_header: "Basic QWxhZGRpbjpvcGVu" },
        ],
      }),
    ],
  ])("%s: parses, and the diff against the policy is empty", (_what, p) => {
    const spec = HarborWebhookPolicySpec.parse({
      ...MANAGED,
      ...exported<object>(specFromWebhook(p, "team-a", "team-a.notify")),
    });
    const authHeaders = (p.targets ?? []).map((t) => t.auth_header ?? "");
    expect(webhookDiff(spec, p.name ?? "", { authHeaders }, p)).toEqual([]);
  });

  test("auth headers become references to one Secret stub, a key per target; their values are never written", () => {
    const out = specFromWebhook(
      policy({
        targets: [
          { type: "http", address: "https://a.example.com", auth_header: "Bearer Xyz123456" },
          { type: "slack", address: "https://hooks.slack.com/services/T/B/C" },
          { type: "http", address: "https://b.example.com", auth_header: "Basic QWxhZGRpbjpvcGVu" },
        ],
      }),
      "team-a",
      "team-a.notify",
    );
    if ("skip" in out) throw new Error(out.skip);
    expect(out.spec.targets?.map((t) => t.authHeaderSecretRef)).toEqual([
      { name: "team-a.notify-auth", key: "authHeader" },
      undefined,
      { name: "team-a.notify-auth", key: "authHeader-2" },
    ]);
    expect(out.secrets[0]?.values).toEqual({ authHeader: "", "authHeader-2": "" });
    expect(JSON.stringify(out)).not.toMatch(/Xyz123456|QWxhZGRpbjpvcGVu/);
    expect(out.notes.join("\n")).toMatch(/Slack webhook address carries its token/);
  });

  test("an event type the CRD does not know is skipped", () => {
    const out = specFromWebhook(policy({ event_types: ["PUSH_ARTIFACT", "TELEPORT"] }), "team-a", "x");
    expect("skip" in out && out.skip).toMatch(/TELEPORT/);
  });
});

describe("names", () => {
  test.each([
    ["team-a", "team-a"],
    ["sys.bot", "sys.bot"],
    ["team_a", /^team-a-[0-9a-f]{6}$/],
    ["Docker Hub", /^docker-hub-[0-9a-f]{6}$/],
    ["a..b", /^a\.b-[0-9a-f]{6}$/],
    ["-x-", /^x-[0-9a-f]{6}$/],
    ["___", /^x-[0-9a-f]{6}$/],
    ["a".repeat(300), /^a{240}-[0-9a-f]{6}$/],
  ])("%s → a Kubernetes name", (name, expected) => {
    const out = kubernetesName(name);
    if (typeof expected === "string") expect(out).toBe(expected);
    else expect(out).toMatch(expected);
    expect(out).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
    expect(out.length).toBeLessThanOrEqual(253);
  });

  test("names that meet once cleaned stay apart, and the same name always gives the same result", () => {
    expect(kubernetesName("team_a")).not.toBe(kubernetesName("team-a"));
    expect(kubernetesName("Team-A")).toBe(kubernetesName("Team-A"));
  });

  test("project patterns", () => {
    expect(globMatches("team-*", "team-a")).toBe(true);
    expect(globMatches("team-?", "team-ab")).toBe(false);
    expect(globMatches("a.b", "axb")).toBe(false);
  });
});
