// The operator against an older supported Harbor (2.12.4) beside the newest (2.15.2, the other e2e
// files' release; here with its next patch's refusal of private webhook targets, so a 2.15.3): the
// connection reports the release as Harbor tells it to a caller that logged in; the same flows
// converge on 2.12 and stay converged; spec fields only later releases have are refused by name on
// 2.12 (UnsupportedByHarbor, nothing sent) and converge on 2.15 without drift.
// A release older than 2.12 is refused on the connection (test/integration/cluster/connections.test.ts).
import { describe, expect, test } from "vitest";
import { EXAMPLE_CA_PEM } from "../env/certificates.ts";
import { useOperator } from "../env/operator.ts";
import { pullAccess } from "../env/registry-auth.ts";
import {
  type ConnectionCR,
  configuration,
  deliveredCredentials,
  garbageCollection,
  harborIdOf,
  PULL,
  project,
  type Resource,
  ready,
  registry,
  replicationPolicy,
  robot,
  webhookPolicy,
} from "../env/resources.ts";

type CR = Resource;

/** Every field only some releases have, in the kinds that have one. */
const laterFields = () => [
  registry("hub", { caCertificate: EXAMPLE_CA_PEM }),
  project("cache", {
    proxyCache: { registryRef: { name: "hub" }, maxUpstreamConnections: 8, localOnNotFound: true },
    webhookAllowPrivateIP: false,
  }),
  replicationPolicy("mirror", { registryRef: { name: "hub" }, singleActiveReplication: true }),
  garbageCollection("gc", { workers: 8 }),
  configuration("config", {
    auth: { oidc: { logout: true } },
    auditLog: { disabledEventTypes: ["pull_artifact"] },
  }),
];

describe("Harbor 2.12.4", () => {
  const op = useOperator({ namespacePrefix: "v2124", emulator: { harborVersion: "2.12.4" } });

  test("the connection reports the release", async () => {
    const conn = await op.kubectl.get<ConnectionCR>("harborconnection", "harbor");
    expect(conn.status?.harborVersion).toBe(op.emulator.world.version.display);
    expect(conn.status?.harborVersion).toMatch(/^v2\.12\.4-[0-9a-f]{8}$/);
  });

  test("a project, a robot and a webhook policy converge, and stay converged", async () => {
    await op.kubectl.apply([
      project("team", {
        public: false,
        autoScan: true,
        severity: "high",
        preventVulnerable: true,
        autoSbomGeneration: true,
        // What a release without the setting does anyway: held, neither sent nor compared.
        webhookAllowPrivateIP: true,
      }),
      robot("ci", { projectRef: { name: "team" }, durationDays: 30, permissions: [{ access: PULL }] }),
      webhookPolicy("hook", {
        projectRef: { name: "team" },
        eventTypes: ["PUSH_ARTIFACT"],
        targets: [{ address: "http://127.0.0.1:9/hooks/?from=harbor" }],
      }),
    ]);
    const team = await op.waitReady<CR>("harborproject", "team");
    const ci = await op.waitReady<CR>("harborrobot", "ci");
    const hook = await op.waitReady<CR>("harborwebhookpolicy", "hook");

    expect((await op.harbor.projects.get("team")).metadata).toMatchObject({
      public: "false",
      auto_scan: "true",
      severity: "high",
      prevent_vul: "true",
      auto_sbom_generation: "true",
    });
    const inHarbor = await op.harbor.robots.get(harborIdOf(ci));
    expect(inHarbor).toMatchObject({ name: "robot$team+ci", level: "project", creator_type: "local" });
    const c = await deliveredCredentials(op.kubectl, "ci");
    expect(await pullAccess(op.emulator.url, c.username, c.password, "team/app")).toEqual(["pull"]);
    expect((await op.harbor.webhooks.getPolicy("team", harborIdOf(hook))).targets?.[0]?.address).toBe(
      "http://127.0.0.1:9/hooks/?from=harbor",
    );

    // Two drift sweeps of each kind later: no write, no drift correction.
    const before = op.emulator.counters.writes();
    await Promise.all(["HarborProject", "HarborRobot", "HarborWebhookPolicy"].map((kind) => op.sweeps(kind)));
    expect(op.emulator.counters.writes()).toBe(before);
    for (const [kind, name] of [
      ["harborproject", "team"],
      ["harborrobot", "ci"],
      ["harborwebhookpolicy", "hook"],
    ] as const) {
      const cr = await op.kubectl.get<CR>(kind, name);
      expect(cr.status?.lastDriftCorrection, `${kind}/${name}`).toBeUndefined();
    }
    expect(team.status?.harborId).toBe((await op.harbor.projects.get("team")).project_id);
  });

  test("fields of later releases are refused by name, and nothing of them reaches Harbor", async () => {
    const version = op.emulator.world.version.display;
    await op.kubectl.apply(laterFields());
    const refused = async (kind: string, name: string, message: string) => {
      const cr = await op.waitFor<CR>(kind, name, (o) => ready(o)?.reason === "UnsupportedByHarbor");
      expect(ready(cr)?.message, `${kind}/${name}`).toBe(`${message}; this Harbor is ${version}`);
    };
    await refused("harborregistry", "hub", "spec.caCertificate needs Harbor 2.15 or later");
    await refused("harborgarbagecollection", "gc", "spec.workers above 5 needs Harbor 2.13 or later");
    await refused(
      "harborconfiguration",
      "config",
      "spec.auth.oidc.logout needs Harbor 2.13 or later; spec.auditLog.disabledEventTypes needs Harbor 2.13 or later",
    );
    // Before anything else, their registry's readiness included.
    await refused(
      "harborproject",
      "cache",
      "spec.webhookAllowPrivateIP false (webhooks refused private addresses) needs Harbor 2.15.3 (on 2.13: 2.13.6; on 2.14: 2.14.5) or later; spec.proxyCache.maxUpstreamConnections needs Harbor 2.14.1 or later; spec.proxyCache.localOnNotFound needs Harbor 2.15.1 or later",
    );
    await refused(
      "harborreplicationpolicy",
      "mirror",
      "spec.singleActiveReplication needs Harbor 2.14 or later",
    );
    expect(await op.harbor.registries.list()).not.toContainEqual(expect.objectContaining({ name: "hub" }));
    expect(await op.harbor.projects.exists("cache")).toBe(false);
    expect(await op.harbor.replication.listPolicies()).not.toContainEqual(
      expect.objectContaining({ name: "mirror" }),
    );
    expect(JSON.stringify((await op.harbor.gc.getSchedule()) ?? {})).not.toContain('"workers":8');

    // Values a 2.12 Harbor has anyway are taken, and stay in sync.
    await op.kubectl.apply([
      registry("hub", { caCertificate: "" }),
      garbageCollection("gc", { workers: 5 }),
      configuration("config", { auth: { oidc: { logout: false } }, auditLog: { disabledEventTypes: [] } }),
    ]);
    await op.waitReady("harborregistry", "hub");
    await op.waitReady("harborgarbagecollection", "gc");
    await op.waitReady("harborconfiguration", "config");
    await op.kubectl.delete("harborreplicationpolicy", "mirror", { wait: true });
    await op.kubectl.delete("harborproject", "cache", { wait: true });
    await op.kubectl.delete("harborconfiguration", "config", { wait: true });
    await op.kubectl.delete("harborgarbagecollection", "gc", { wait: true });
    await op.kubectl.delete("harborregistry", "hub", { wait: true });
  });

  test("deleting them removes them from Harbor", async () => {
    await op.kubectl.delete("harborwebhookpolicy", "hook", { wait: true });
    await op.kubectl.delete("harborrobot", "ci", { wait: true });
    await op.kubectl.delete("harborproject", "team", { wait: true });
    expect(await op.harbor.projects.exists("team")).toBe(false);
  });
});

// 2.15.2 with its next patch's refusal of webhooks to private addresses: a 2.15.3, as it reports.
describe("Harbor 2.15.3", () => {
  const op = useOperator({
    namespacePrefix: "v2153",
    emulator: { harborVersion: "2.15.2", webhookPrivateAddresses: "refuse" },
  });

  test("the connection reports the release, which from 2.13 only a caller that logged in learns", async () => {
    const conn = await op.kubectl.get<ConnectionCR>("harborconnection", "harbor");
    expect(conn.status?.harborVersion).toMatch(/^v2\.15\.3-[0-9a-f]{8}$/);
  });

  test("fields of later releases converge, and stay converged", async () => {
    await op.kubectl.apply(laterFields());
    const hub = await op.waitReady<CR>("harborregistry", "hub");
    await op.waitReady("harborproject", "cache");
    const mirror = await op.waitReady<CR>("harborreplicationpolicy", "mirror");
    await op.waitReady("harborgarbagecollection", "gc");
    await op.waitReady("harborconfiguration", "config");

    expect((await op.harbor.registries.get(harborIdOf(hub))).ca_certificate).toBe(EXAMPLE_CA_PEM);
    expect((await op.harbor.projects.get("cache")).metadata).toMatchObject({
      max_upstream_conn: "8",
      proxy_cache_local_on_not_found: "true",
      webhook_allow_private_ip: "false",
    });
    expect((await op.harbor.replication.getPolicy(harborIdOf(mirror))).single_active_replication).toBe(true);
    const gc = await op.harbor.gc.getSchedule();
    expect(JSON.parse(gc?.job_parameters ?? "{}")).toMatchObject({ workers: 8 });
    const config = await op.harbor.system.getConfigurations();
    expect(config.oidc_logout?.value).toBe(true);
    expect(config.disabled_audit_log_event_types?.value).toBe("pull_artifact");

    const kinds = [
      "HarborRegistry",
      "HarborProject",
      "HarborReplicationPolicy",
      "HarborGarbageCollection",
      "HarborConfiguration",
    ];
    const before = op.emulator.counters.writes();
    await Promise.all(kinds.map((kind) => op.sweeps(kind)));
    expect(op.emulator.counters.writes()).toBe(before);

    // A change in Harbor is drift like any other, put back and named.
    await op.harbor.replication.updatePolicy(harborIdOf(mirror), {
      name: "mirror",
      src_registry: { id: 0 },
      dest_registry: { id: harborIdOf(hub) },
      dest_namespace_replace_count: -1,
      trigger: { type: "manual" },
      override: true,
      enabled: true,
      single_active_replication: false,
    });
    const corrected = await op.waitFor<CR & { status?: { lastDriftCorrection?: { fields: string[] } } }>(
      "harborreplicationpolicy",
      "mirror",
      (o) => o.status?.lastDriftCorrection?.fields.includes("singleActiveReplication") === true,
    );
    expect(corrected.status?.lastDriftCorrection?.fields).toContain("singleActiveReplication");
    expect((await op.harbor.replication.getPolicy(harborIdOf(mirror))).single_active_replication).toBe(true);

    await op.kubectl.delete("harborreplicationpolicy", "mirror", { wait: true });
    await op.kubectl.delete("harborproject", "cache", { wait: true });
    await op.kubectl.delete("harborconfiguration", "config", { wait: true });
    await op.kubectl.delete("harborgarbagecollection", "gc", { wait: true });
    await op.kubectl.delete("harborregistry", "hub", { wait: true });
    expect(await op.harbor.projects.exists("cache")).toBe(false);
  });
});
