// The emulator's Harbor releases side by side: one emulator per modelled release, one test per
// difference, each asserting on the wire what that release answers (VERSIONS.md says the same in
// prose). The expectations name releases literally here, so that a wrong entry in version.ts fails
// a test instead of moving both sides. What is not a release (the adapter whitelist, the patches
// that refuse private webhook targets) is deployment-settings.test.ts's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { areas } from "../../env/emulator/areas/index.ts";
import { startEmulator } from "../../env/emulator/index.ts";
import { servedBy } from "../../env/emulator/router.ts";
import { CHANGES, HARBOR_VERSIONS, HarborVersion } from "../../env/emulator/version.ts";
import { harborErrorOf, type RawReply, systemRobot, useEmulator } from "../../env/harbor.ts";

/** Oldest first. */
const VERSIONS = ["2.10.3", "2.12.4", "2.13.5", "2.14.4", "2.15.2"] as const;
type Version = (typeof VERSIONS)[number];

/** Whether `version` is `first` or newer (compared here, apart from version.ts). */
function since(version: Version, first: string): boolean {
  const a = version.split(".").map(Number);
  const b = first.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

const listProjects = [{ resource: "project", action: "list" }];
const json = (r: RawReply) => JSON.parse(r.text) as Record<string, unknown>;
const list = (r: RawReply) => JSON.parse(r.text) as Array<Record<string, unknown>>;
/** Harbor's answer to a path that has no route in the release. */
const routeNotFound = (path: string) => ({
  errors: [{ code: "NOT_FOUND", message: `path /api/v2.0${path} was not found` }],
});
const byName = { headers: { "x-is-resource-name": "true" } };

const EVENT_TYPES = [
  "create_artifact",
  "delete_artifact",
  "pull_artifact",
  "create_project",
  "delete_project",
  "delete_repository",
  "login_user",
  "logout_user",
  "create_user",
  "delete_user",
  "update_user",
  "create_robot",
  "delete_robot",
  "update_configuration",
];

describe.each(VERSIONS)("Harbor %s", (version) => {
  const h = useEmulator({ harborVersion: version });
  const control = () => h.emulator.control;

  test("systeminfo: the version for anonymous callers only up to 2.12; v<release>-<8 hex> when authenticated", async () => {
    expect(h.emulator.harborVersion).toBe(version);
    const anonymous = json(await h.raw("GET", "/systeminfo", undefined, { as: "anonymous" }));
    expect(anonymous).toMatchObject({ auth_mode: "db_auth", self_registration: false });
    expect(anonymous).not.toHaveProperty("registry_url");
    const authenticated = json(await h.raw("GET", "/systeminfo"));
    expect(authenticated.harbor_version).toMatch(
      new RegExp(`^v${version.replaceAll(".", "\\.")}-[0-9a-f]{8}$`),
    );
    expect(authenticated.registry_url).toBe(new URL(h.emulator.url).host);
    if (since(version, "2.13")) {
      expect(Object.keys(anonymous).sort()).toEqual([
        "auth_mode",
        "banner_message",
        "oidc_provider_name",
        "primary_auth_mode",
        "self_registration",
      ]);
    } else expect(anonymous.harbor_version).toBe(authenticated.harbor_version);
  });

  test("robots v1: served up to 2.12; from 2.13 each of the five operations is a route not found", async () => {
    const v2 = await h.admin.robots.create(systemRobot("v1-probe", listProjects, 7));
    const ops: Array<[string, string, unknown?]> = [
      ["GET", "/projects/library/robots"],
      ["POST", "/projects/library/robots", { name: "old", access: [] }],
      ["GET", `/projects/library/robots/${v2.id}`],
      ["PUT", `/projects/library/robots/${v2.id}`, { name: "v1-probe", disable: true }],
      ["DELETE", `/projects/library/robots/${v2.id}`],
    ];
    if (since(version, "2.13")) {
      for (const [method, path, body] of ops) {
        const res = await h.raw(method, path, body, byName);
        expect([method, res.status, JSON.parse(res.text)]).toEqual([method, 404, routeNotFound(path)]);
      }
    } else {
      const listed = await h.raw("GET", "/projects/library/robots", undefined, byName);
      expect(listed.status).toBe(200);
      // A system robot is not the project's: the v1 GET of it is Harbor's own 404, not a missing route.
      const got = await h.raw("GET", `/projects/library/robots/${v2.id}`, undefined, byName);
      expect(got.status).toBe(404);
      expect(got.text).not.toContain("was not found");
    }
    // v2 is there on every release.
    expect((await h.raw("GET", `/robots/${v2.id}`)).status).toBe(200);
  });

  test("robots: creator fields from 2.12; duration 0 is the 30-day default up to 2.10", async () => {
    const robot = await h.admin.robots.create(systemRobot("creator", listProjects, 7));
    const raw = json(await h.raw("GET", `/robots/${robot.id}`));
    if (since(version, "2.12")) expect(raw).toMatchObject({ creator_type: "local", creator_ref: 1 });
    else {
      expect(raw).not.toHaveProperty("creator_type");
      expect(raw).not.toHaveProperty("creator_ref");
    }
    const zero = await harborErrorOf(h.admin.robots.create(systemRobot("zero", listProjects, 0)));
    if (since(version, "2.11")) expect(zero).toMatchObject({ status: 400 });
    else {
      expect(zero).toBeUndefined();
      expect((await h.admin.robots.list()).find((r) => r.name === "robot$zero")?.duration).toBe(30);
    }
  });

  test("the extended audit log from 2.13 (a route not found before); the old project log then shows nothing new", async () => {
    await h.raw("POST", "/projects", { project_name: "audited" });
    await h.admin.robots.create({
      name: "bot",
      level: "project",
      duration: 30,
      permissions: [
        { kind: "project", namespace: "audited", access: [{ resource: "repository", action: "pull" }] },
      ],
    });
    expect((await h.raw("PUT", "/configurations", { token_expiration: 31 })).status).toBe(200);
    const old = await h.raw("GET", "/projects/audited/logs");
    expect(old.status).toBe(200);
    const oldOps = list(old).map((e) => `${e.operation} ${e.resource_type}`);
    const paths = ["/auditlog-exts", "/auditlog-exts/events", "/projects/audited/auditlog-exts"];
    if (!since(version, "2.13")) {
      expect(oldOps).toEqual(["create robot", "create project"]);
      for (const path of paths)
        expect(JSON.parse((await h.raw("GET", path)).text)).toEqual(routeNotFound(path));
      return;
    }
    expect(oldOps).toEqual([]);
    expect(list(await h.raw("GET", "/auditlog-exts/events"))).toEqual(
      EVENT_TYPES.map((event_type) => ({ event_type })),
    );
    const all = await h.raw("GET", "/auditlog-exts?page_size=100");
    const entries = list(all).filter((e) =>
      ["audited", "robot$audited+bot", "configuration"].includes(e.resource as string),
    );
    expect(Number(all.headers.get("x-total-count"))).toBe(list(all).length);
    expect(entries.map((e) => `${e.operation}_${e.resource_type} ${e.resource}`)).toEqual([
      "update_configuration configuration",
      "create_robot robot$audited+bot",
      "create_project audited",
    ]);
    expect(entries[2]).toMatchObject({ username: "admin", operation_result: true });
    expect(entries[2]?.op_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const project = list(await h.raw("GET", "/projects/audited/auditlog-exts"));
    expect(project.map((e) => e.resource_type)).toEqual(["robot", "project"]);
    expect((await h.raw("GET", "/auditlog-exts", undefined, { as: "anonymous" })).status).toBe(401);
    await h.raw("PUT", "/configurations", { token_expiration: 30 });
  });

  test("configuration: disabled_audit_log_event_types and oidc_logout from 2.13; before, PUT drops them (200)", async () => {
    const res = await h.raw("PUT", "/configurations", {
      disabled_audit_log_event_types: "create_project",
      oidc_logout: true,
      scan_all_policy: { type: "daily" },
    });
    expect(res.status).toBe(200);
    const conf = json(await h.raw("GET", "/configurations"));
    await h.raw("POST", "/projects", { project_name: "unrecorded" });
    if (since(version, "2.13")) {
      expect(conf.disabled_audit_log_event_types).toEqual({ value: "create_project", editable: true });
      expect(conf.oidc_logout).toEqual({ value: true, editable: true });
      // A disabled event type is not recorded while it is disabled.
      const ext = list(await h.raw("GET", "/auditlog-exts?page_size=100"));
      expect(ext.some((e) => e.resource === "unrecorded")).toBe(false);
      expect(
        control()
          .audit.list()
          .some((e) => e.resource === "unrecorded"),
      ).toBe(true);
      await h.raw("PUT", "/configurations", { disabled_audit_log_event_types: "", oidc_logout: false });
      // A wrong JSON type of a key the release has is a 422.
      expect((await h.raw("PUT", "/configurations", { oidc_logout: "yes" })).status).toBe(422);
    } else {
      expect(conf).not.toHaveProperty("disabled_audit_log_event_types");
      expect(conf).not.toHaveProperty("oidc_logout");
      // A key the release's model lacks is dropped whatever its value.
      expect((await h.raw("PUT", "/configurations", { oidc_logout: "yes" })).status).toBe(200);
    }
  });

  test("GC: workers 1–5 up to 2.12, 1–10 from 2.13; the schedule's parameters say delete_tag from 2.13", async () => {
    const schedule = (workers: number) =>
      h.raw("PUT", "/system/gc/schedule", {
        schedule: { type: "Custom", cron: "0 0 3 * * *" },
        parameters: { delete_untagged: true, workers },
      });
    const max = since(version, "2.13") ? 10 : 5;
    for (const workers of [5, 6, 10, 11]) {
      const res = await schedule(workers);
      if (workers <= max) expect([workers, res.status]).toEqual([workers, 200]);
      else {
        expect([workers, res.status]).toEqual([workers, 400]);
        expect(JSON.parse(res.text).errors[0].message).toBe(
          `Error: Invalid number of workers:${workers}. Workers must be greater than 0 and less than or equal to ${max}.`,
        );
      }
    }
    await schedule(4);
    const s = json(await h.raw("GET", "/system/gc/schedule"));
    expect(s.job_parameters).toBe(
      since(version, "2.13")
        ? '{"delete_tag":false,"delete_untagged":true,"workers":4}'
        : '{"delete_untagged":true,"workers":4}',
    );
    await h.raw("PUT", "/system/gc/schedule", { schedule: { type: "None" }, parameters: {} });
  });

  test("audit-log purge: include_operations up to 2.12, include_event_types from 2.13 (event names, not checked)", async () => {
    const none = (parameters: Record<string, unknown>) =>
      h.raw("PUT", "/system/purgeaudit/schedule", { schedule: { type: "None" }, parameters });
    const operations = await none({ audit_retention_hour: 1, include_operations: "create" });
    const eventTypes = await none({ audit_retention_hour: 1, include_event_types: "create_project" });
    if (since(version, "2.13")) {
      expect(operations.status).toBe(400);
      expect(JSON.parse(operations.text).errors[0].message).toBe("include_event_types should provide");
      expect(eventTypes.status).toBe(200);
    } else {
      expect(operations.status).toBe(200);
      expect(eventTypes.status).toBe(400);
      expect(JSON.parse(eventTypes.text).errors[0].message).toBe("include_operations should provide");
    }

    // A project created two hours ago (world time), then purges of what is older than one hour.
    await h.raw("POST", "/projects", { project_name: "purged" });
    control().clock.advance(2 * 3_600_000);
    const run = async (parameters: Record<string, unknown>) => {
      const res = await h.raw("POST", "/system/purgeaudit/schedule", {
        schedule: { type: "Manual" },
        parameters: { audit_retention_hour: 1, dry_run: true, ...parameters },
      });
      expect(res.status).toBe(201);
      const id = Number(res.headers.get("location")?.split("/").pop());
      control().clock.advance(2_000);
      const done = control()
        .purge.runs()
        .find((r) => r.id === id);
      return { purged: done?.purged, parameters: done?.parameters };
    };
    const key = since(version, "2.13") ? "include_event_types" : "include_operations";
    const right = await run({ [key]: since(version, "2.13") ? "create_project" : "create" });
    expect(right.purged).toBeGreaterThan(0);
    expect(right.parameters).toHaveProperty(key);
    // 2.13 on, the old words are stored as sent and purge nothing.
    const oldWords = await run({ [key]: "create,delete" });
    if (since(version, "2.13")) expect(oldWords.purged).toBe(0);
    else expect(oldWords.purged).toBeGreaterThan(0);
  });

  test("preheat policy: `scope` up to 2.12, `extra_attrs` (a JSON string) from 2.13", async () => {
    control().preheat.addProvider("http://127.0.0.1:65011");
    await h.raw("POST", "/p2p/preheat/instances", {
      name: "p2p",
      vendor: "dragonfly",
      endpoint: "http://127.0.0.1:65011",
      auth_mode: "NONE",
      enabled: true,
    });
    const instance = json(await h.raw("GET", "/p2p/preheat/instances/p2p"));
    await h.raw("POST", "/projects", { project_name: "warm" });
    const policy = (name: string, extra: Record<string, unknown>) =>
      h.raw("POST", "/projects/warm/preheat/policies", {
        name,
        provider_id: instance.id,
        filters: JSON.stringify([{ type: "repository", value: "**" }]),
        trigger: JSON.stringify({ type: "manual" }),
        enabled: true,
        ...extra,
      });
    expect(
      (await policy("p1", { scope: "all_peers", extra_attrs: '{"scope":"all_seed_peers"}' })).status,
    ).toBe(201);
    const got = json(await h.raw("GET", "/projects/warm/preheat/policies/p1"));
    if (since(version, "2.13")) {
      expect(got.extra_attrs).toBe('{"scope":"all_seed_peers"}');
      expect(got).not.toHaveProperty("scope");
      // Harbor decodes extra_attrs: what is no JSON object is a plain (500) error.
      expect((await policy("p2", { extra_attrs: "all_peers" })).status).toBe(500);
    } else {
      expect(got.scope).toBe("all_peers");
      expect(got).not.toHaveProperty("extra_attrs");
      expect((await policy("p2", { extra_attrs: "all_peers" })).status).toBe(201);
    }
  });

  test("preheat instance credentials: returned up to 2.14.3; from 2.14.4 hidden, and an update without one keeps it", async () => {
    control().preheat.addProvider("http://127.0.0.1:65012");
    const base = {
      name: "cred",
      vendor: "dragonfly",
      endpoint: "http://127.0.0.1:65012",
      auth_mode: "BASIC",
      enabled: true,
    };
    const secret = { username: "u", password: "p" };
    expect((await h.raw("POST", "/p2p/preheat/instances", { ...base, auth_info: secret })).status).toBe(201);
    const got = json(await h.raw("GET", "/p2p/preheat/instances/cred"));
    const listed = list(await h.raw("GET", "/p2p/preheat/instances")).find((i) => i.name === "cred");
    const stored = () =>
      control()
        .preheat.instances()
        .find((i) => i.name === "cred")?.auth_info;
    const update = (o: Record<string, unknown>) =>
      h.raw("PUT", "/p2p/preheat/instances/cred", { ...base, id: got.id, description: "changed", ...o });
    expect((await update({})).status).toBe(200);
    if (since(version, "2.14.4")) {
      expect(got).not.toHaveProperty("auth_info");
      expect(listed).not.toHaveProperty("auth_info");
      expect(stored()).toEqual(secret);
      expect((await update({ auth_info: {} })).status).toBe(200);
      expect(stored()).toEqual(secret);
      // NONE drops it.
      await update({ auth_mode: "NONE" });
      expect(stored()).toEqual({});
    } else {
      expect(got.auth_info).toEqual(secret);
      expect(listed?.auth_info).toEqual(secret);
      // The update replaces the instance: no auth_info, no credential.
      expect(stored()).toEqual({});
    }
  });

  test('scanner credentials: returned up to 2.14.3; from 2.14.4 answered as "", and an update without one keeps it', async () => {
    control().scanners.addAdapter("http://scanner.example.com");
    const base = { name: "s", url: "http://scanner.example.com", auth: "Bearer" };
    expect((await h.raw("POST", "/scanners", { ...base, access_credential: "Token-1" })).status).toBe(201);
    const uuid = (control()
      .scanners.list()
      .find((s) => s.name === "s")?.uuid ?? "") as string;
    const got = json(await h.raw("GET", `/scanners/${uuid}`));
    const update = await h.raw("PUT", `/scanners/${uuid}`, { ...base, description: "changed" });
    const stored = control()
      .scanners.list()
      .find((s) => s.uuid === uuid);
    if (since(version, "2.14.4")) {
      expect(got.access_credential).toBe("");
      expect(update.status).toBe(200);
      expect(stored).toMatchObject({ description: "changed", access_credential: "Token-1" });
    } else {
      expect(got.access_credential).toBe("Token-1");
      expect(update.status).toBe(400);
      expect(JSON.parse(update.text).errors[0].message).toBe(
        "access_credential is required for auth type Bearer",
      );
    }
    if (since(version, "2.12")) {
      expect(got.capabilities).toEqual({ support_vulnerability: true, support_sbom: true });
    } else expect(got).not.toHaveProperty("capabilities");
    await h.raw("DELETE", `/scanners/${uuid}`);
  });

  test("replication: single_active_replication from 2.14 skips a scheduled run while one is in progress", async () => {
    const reg = await h.raw("POST", "/registries", {
      name: "single",
      type: "harbor",
      url: "https://single.example.com",
    });
    const registryId = Number(reg.headers.get("location")?.split("/").pop());
    const created = await h.raw("POST", "/replication/policies", {
      name: "single",
      src_registry: { id: 0 },
      dest_registry: { id: registryId },
      trigger: { type: "scheduled", trigger_settings: { cron: "0 0 3 * * *" } },
      enabled: true,
      single_active_replication: true,
    });
    expect(created.status).toBe(201);
    const id = Number(created.headers.get("location")?.split("/").pop());
    const got = json(await h.raw("GET", `/replication/policies/${id}`));
    // A run that takes a minute of world time.
    control().replication.setPolicyPlan(id, { error: "slow", durationMs: 60_000 });
    const first = control().replication.trigger(id, "scheduled");
    const second = control().replication.trigger(id, "scheduled");
    expect(first).toBeGreaterThan(0);
    if (since(version, "2.14")) {
      expect(got.single_active_replication).toBe(true);
      expect(second).toBe(0);
    } else {
      expect(got).not.toHaveProperty("single_active_replication");
      expect(second).toBeGreaterThan(first);
    }
    // A manual start always runs.
    const manual = await h.raw("POST", "/replication/executions", { policy_id: id });
    expect(manual.status).toBe(201);
    control().clock.advance(61_000);
  });

  test("adapter lists: every type up to 2.13; from 2.14 the default install's whitelist (no dtr, gitlab, quay); creation unfiltered", async () => {
    const types = list(await h.raw("GET", "/replication/adapters")) as unknown as string[];
    const infos = json(await h.raw("GET", "/replication/adapterinfos"));
    const hidden = ["dtr", "gitlab", "quay"];
    if (since(version, "2.14")) {
      expect(types).toHaveLength(12);
      for (const t of hidden) expect(types).not.toContain(t);
      expect(infos).not.toHaveProperty("quay");
    } else {
      expect(types).toHaveLength(15);
      expect(types).toEqual(expect.arrayContaining(hidden));
      expect(infos).toHaveProperty("quay");
    }
    expect(
      (await h.raw("POST", "/registries", { name: "q", type: "quay", url: "https://quay.example.com" }))
        .status,
    ).toBe(201);
  });

  test("registry ca_certificate from 2.15 (create, update; dropped before)", async () => {
    const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    const res = await h.raw("POST", "/registries", {
      name: "with-ca",
      type: "docker-registry",
      url: "https://ca.example.com",
      ca_certificate: pem,
    });
    expect(res.status).toBe(201);
    const id = Number(res.headers.get("location")?.split("/").pop());
    expect((await h.raw("PUT", `/registries/${id}`, { ca_certificate: `${pem}\n` })).status).toBe(200);
    const got = json(await h.raw("GET", `/registries/${id}`));
    expect((await h.raw("POST", "/registries/ping", { id, ca_certificate: pem })).status).toBe(200);
    if (since(version, "2.15")) expect(got.ca_certificate).toBe(`${pem}\n`);
    else expect(got).not.toHaveProperty("ca_certificate");
  });

  test("project metadata: auto_sbom_generation 2.11, proxy_speed_kb 2.12, max_upstream_conn 2.14.1, proxy_cache_local_on_not_found 2.15.1", async () => {
    const reg = await h.raw("POST", "/registries", {
      name: "hub",
      type: "docker-hub",
      url: "https://hub.example.com",
    });
    const registryId = Number(reg.headers.get("location")?.split("/").pop());
    const proxy = {
      proxy_speed_kb: "100",
      max_upstream_conn: "5",
      proxy_cache_local_on_not_found: "true",
    };
    const created = await h.raw("POST", "/projects", {
      project_name: "cache",
      registry_id: registryId,
      metadata: { auto_sbom_generation: "true", ...proxy },
    });
    expect(created.status).toBe(201);
    await h.raw("POST", "/projects", {
      project_name: "plain",
      metadata: { auto_sbom_generation: "true", ...proxy },
    });
    const cache = (json(await h.raw("GET", "/projects/cache", undefined, byName)).metadata ?? {}) as Record<
      string,
      string
    >;
    const plain = (json(await h.raw("GET", "/projects/plain", undefined, byName)).metadata ?? {}) as Record<
      string,
      string
    >;
    const expected = {
      auto_sbom_generation: since(version, "2.11") ? "true" : undefined,
      proxy_speed_kb: since(version, "2.12") ? "100" : undefined,
      max_upstream_conn: since(version, "2.14.1") ? "5" : undefined,
      proxy_cache_local_on_not_found: since(version, "2.15.1") ? "true" : undefined,
    };
    for (const [key, value] of Object.entries(expected)) expect([key, cache[key]]).toEqual([key, value]);
    // The proxy-cache settings stay off other projects.
    for (const key of Object.keys(proxy)) expect(plain).not.toHaveProperty(key);
    expect(plain.auto_sbom_generation).toBe(expected.auto_sbom_generation);
    // max_upstream_conn is a number (an int32) where it exists.
    const bad = await h.raw("POST", "/projects", {
      project_name: "cache-bad",
      registry_id: registryId,
      metadata: { max_upstream_conn: "many" },
    });
    expect(bad.status).toBe(since(version, "2.14.1") ? 400 : 201);
  });

  test("a project's log: every member role up to 2.12, only a project admin from 2.13", async () => {
    await h.raw("POST", "/projects", { project_name: "logged" });
    const dev = h.addUser("devon");
    const member = await h.raw(
      "POST",
      "/projects/logged/members",
      { role_id: 2, member_user: { username: "devon" } },
      byName,
    );
    expect(member.status).toBe(201);
    const res = await h.raw("GET", "/projects/logged/logs", undefined, { as: dev });
    expect(res.status).toBe(since(version, "2.13") ? 403 : 200);
  });

  test("the same everywhere: webhook addresses as sent, int4 ids, the login freeze", async () => {
    await h.raw("POST", "/projects", { project_name: "hooks" });
    const created = await h.raw(
      "POST",
      "/projects/hooks/webhook/policies",
      {
        name: "p",
        enabled: true,
        event_types: ["PUSH_ARTIFACT"],
        targets: [{ type: "http", address: "https://ci.example.com/hook/?x=1" }],
      },
      byName,
    );
    const id = Number(created.headers.get("location")?.split("/").pop());
    const got = json(await h.raw("GET", `/projects/hooks/webhook/policies/${id}`, undefined, byName));
    expect((got.targets as Array<{ address: string }>)[0]?.address).toBe("https://ci.example.com/hook/?x=1");
    expect((await h.raw("GET", `/labels/${2 ** 31}`)).status).toBe(500);
    const started = performance.now();
    const wrong = await h.raw("GET", "/users/current", undefined, {
      as: { username: "admin", password: "nope" },
    });
    expect(wrong.status).toBe(401);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
  });
});

test("the newest release is the default; an unknown release is refused at start", async () => {
  const newest = await startEmulator();
  try {
    expect(newest.harborVersion).toBe("2.15.2");
  } finally {
    await newest.close();
  }
  await expect(startEmulator({ harborVersion: "2.9.0" })).rejects.toThrow(
    "unsupported Harbor version 2.9.0; the emulator models 2.15.2, 2.14.4, 2.13.5, 2.12.4, 2.10.3",
  );
});

test("the operations each release serves differ as the swaggers do: 2.13 drops the five v1 robot ones and adds the three audit-log-ext ones", () => {
  const served = (v: string) => {
    const version = new HarborVersion(v);
    return new Set(
      Object.values(areas)
        .flatMap((a) => a.routes)
        .filter((r) => servedBy(r, version))
        .map((r) => `${r.op} ${r.method} ${r.path}`),
    );
  };
  const diff = (from: string, to: string) => {
    const a = served(from);
    const b = served(to);
    return { removed: [...a].filter((o) => !b.has(o)).sort(), added: [...b].filter((o) => !a.has(o)).sort() };
  };
  expect(diff("2.12.4", "2.13.5")).toEqual({
    removed: [
      "CreateRobotV1 POST /projects/{project_name_or_id}/robots",
      "DeleteRobotV1 DELETE /projects/{project_name_or_id}/robots/{robot_id}",
      "GetRobotByIDV1 GET /projects/{project_name_or_id}/robots/{robot_id}",
      "ListRobotV1 GET /projects/{project_name_or_id}/robots",
      "UpdateRobotV1 PUT /projects/{project_name_or_id}/robots/{robot_id}",
    ],
    added: [
      "getLogExts GET /projects/{project_name}/auditlog-exts",
      "listAuditLogEventTypes GET /auditlog-exts/events",
      "listAuditLogExts GET /auditlog-exts",
    ],
  });
  expect(diff("2.13.5", "2.14.4")).toEqual({ removed: [], added: [] });
  expect(diff("2.14.4", "2.15.2")).toEqual({ removed: [], added: [] });
  expect(diff("2.10.3", "2.12.4")).toEqual({ removed: [], added: [] });
});

test("VERSIONS.md describes every modelled release and every difference version.ts keys", () => {
  const doc = readFileSync(join(import.meta.dirname, "..", "..", "env", "emulator", "VERSIONS.md"), "utf8");
  expect([...HARBOR_VERSIONS].sort()).toEqual([...VERSIONS].sort());
  for (const v of HARBOR_VERSIONS) expect(doc, v).toContain(v);
  for (const change of Object.keys(CHANGES)) expect(doc, change).toContain(`\`${change}\``);
});
