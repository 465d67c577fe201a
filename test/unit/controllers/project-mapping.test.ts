import { describe, expect, test } from "vitest";
import { HarborProjectSpec } from "../../../src/api/project.ts";
import {
  createRequest,
  desiredMetadata,
  diff,
  formatStorage,
  forRelease,
  quotaFromList,
  quotaFromSummary,
  scannerDrift,
  scannerStatus,
  status,
  storageLimitBytes,
  unchangeable,
  updateRequest,
} from "../../../src/controllers/project/mapping.ts";
import { Stalled } from "../../../src/runtime/external-client.ts";

const spec = (s: Record<string, unknown>) => HarborProjectSpec.parse({ connectionRef: { name: "h" }, ...s });

describe("storage quantities", () => {
  test.each([
    ["10Gi", 10 * 2 ** 30],
    ["500M", 500e6],
    ["1.5Ki", 1536],
    ["1.1k", 1100],
    ["1024Ti", 2 ** 50],
    ["1073741824", 2 ** 30],
    ["unlimited", -1],
    ["-1", -1],
  ])("%s is %d bytes", (text, bytes) => {
    expect(storageLimitBytes({})).toBeUndefined();
    expect(storageLimitBytes({ storageLimit: text })).toBe(bytes);
  });

  test.each(["10GB", "0", "1.5", "0.1Ki", "2Pi", "abc"])(
    "%s stalls the project with reason InvalidSpec, naming the field and the value",
    (text) => {
      let thrown: unknown;
      try {
        storageLimitBytes({ storageLimit: text });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(Stalled);
      expect(thrown).toMatchObject({ reason: "InvalidSpec" });
      expect((thrown as Error).message).toContain(`spec.storageLimit ${JSON.stringify(text)}`);
    },
  );

  test("a limit that is no whole number of bytes never reaches a create request", () => {
    // Only the operator sees "1.5": the CRD's quantity rule takes it.
    expect(HarborProjectSpec.safeParse({ connectionRef: { name: "h" }, storageLimit: "1.5" }).success).toBe(
      false,
    );
    expect(() =>
      createRequest(
        { ...spec({}), storageLimit: "1.5" } as Parameters<typeof createRequest>[0],
        "p",
        undefined,
      ),
    ).toThrow(Stalled);
  });

  test("formats bytes as the shortest exact binary quantity", () => {
    expect(formatStorage(10 * 2 ** 30)).toBe("10Gi");
    expect(formatStorage(1536)).toBe("1536");
    expect(formatStorage(3 * 2 ** 20)).toBe("3Mi");
    expect(formatStorage(-1)).toBe("unlimited");
    expect(formatStorage(0)).toBe("0");
  });
});

describe("project mapping", () => {
  test("only fields the spec sets are managed; public always is", () => {
    expect(desiredMetadata(spec({}))).toEqual({ public: "false" });
    expect(
      desiredMetadata(spec({ public: true, autoScan: false, severity: "high", preventVulnerable: true })),
    ).toEqual({
      public: "true",
      auto_scan: "false",
      severity: "high",
      prevent_vul: "true",
    });
  });

  test("the create request carries name, metadata, storage limit and proxy registry", () => {
    expect(createRequest(spec({ storageLimit: "1Gi" }), "team-a", 7)).toEqual({
      project_name: "team-a",
      metadata: { public: "false" },
      storage_limit: 2 ** 30,
      registry_id: 7,
    });
  });

  test("Harbor's string flags, missing keys and upper-case severity cause no diff", () => {
    const s = spec({ autoScan: false, severity: "high", contentTrust: false });
    expect(diff(s, { metadata: { public: "false", severity: "HIGH" } })).toEqual([]);
    expect(diff(s, { metadata: { public: "false", severity: "high", auto_scan: "true" } })).toEqual([
      "autoScan",
    ]);
    expect(diff(spec({ public: true }), { metadata: { public: "false" } })).toEqual(["public"]);
  });

  test("the CVE allowlist compares as a set with its expiry", () => {
    const s = spec({ cveAllowlist: { items: ["CVE-2", "CVE-1"], expiresAt: "2030-01-01T00:00:00Z" } });
    const expires = Date.parse("2030-01-01T00:00:00Z") / 1000;
    const same = {
      metadata: { public: "false" },
      cve_allowlist: { items: [{ cve_id: "CVE-1" }, { cve_id: "CVE-2" }], expires_at: expires },
    };
    expect(diff(s, same)).toEqual([]);
    expect(diff(s, { ...same, cve_allowlist: { ...same.cve_allowlist, expires_at: null } })).toEqual([
      "cveAllowlist",
    ]);
    expect(updateRequest(s, 5).cve_allowlist).toEqual({
      project_id: 5,
      items: [{ cve_id: "CVE-2" }, { cve_id: "CVE-1" }],
      expires_at: expires,
    });
  });

  test("status shows owner, repositories, deletability and quota", () => {
    expect(
      status({ owner_name: "admin", repo_count: 2, quota: { id: 9, hard: 2 ** 30, used: 5 * 2 ** 20 } }),
    ).toEqual({ owner: "admin", repositoryCount: 2, deletable: false, quota: { hard: "1Gi", used: "5Mi" } });
    // A quota that could not be read is left out, not shown as unlimited.
    expect(status({ repo_count: 0 })).toEqual({ repositoryCount: 0, deletable: true });
  });
});

describe("storage limit: kept in the project's quota", () => {
  const project = (hard: number | undefined) => ({
    project_id: 3,
    metadata: { public: "false" },
    ...(hard === undefined ? {} : { quota: { id: 103, hard, used: 0 } }),
  });

  test("a quota that differs from storageLimit is drift; an unset storageLimit is not managed", () => {
    expect(diff(spec({ storageLimit: "10Gi" }), project(10 * 2 ** 30))).toEqual([]);
    expect(diff(spec({ storageLimit: "20Gi" }), project(10 * 2 ** 30))).toEqual(["storageLimit"]);
    expect(diff(spec({ storageLimit: "unlimited" }), project(2 ** 30))).toEqual(["storageLimit"]);
    expect(diff(spec({ storageLimit: "-1" }), project(-1))).toEqual([]);
    expect(diff(spec({}), project(2 ** 30))).toEqual([]);
  });

  test("a quota that could not be read does not hold a limit the spec sets", () => {
    expect(diff(spec({ storageLimit: "20Gi" }), project(undefined))).toEqual(["storageLimit"]);
    expect(diff(spec({}), project(undefined))).toEqual([]);
  });

  test("Harbor's quota and the summary's read the same; only the list has the quota id", () => {
    expect(
      quotaFromList({ id: 103, ref: { id: 3 }, hard: { storage: 2 ** 30 }, used: { storage: 10 } }),
    ).toEqual({ id: 103, hard: 2 ** 30, used: 10 });
    expect(quotaFromSummary({ quota: { hard: { storage: 2 ** 30 }, used: { storage: 10 } } })).toEqual({
      hard: 2 ** 30,
      used: 10,
    });
    expect(quotaFromSummary({ repo_count: 0 })).toBeUndefined();
  });
});

describe("what Harbor fixes at creation", () => {
  const proxyOf = (registryId: number | undefined) => ({
    metadata: { public: "false" },
    ...(registryId === undefined ? {} : { registry_id: registryId }),
  });
  const proxySpec = (extra: Record<string, unknown> = {}) =>
    spec({ proxyCache: { registryRef: { name: "hub" } }, ...extra });

  test("an adopted project that is no proxy cache, or caches another registry, cannot be changed", () => {
    expect(diff(proxySpec(), proxyOf(4), 4)).toEqual([]);
    expect(diff(proxySpec(), proxyOf(undefined), 4)).toEqual(["proxyCache"]);
    expect(diff(proxySpec(), proxyOf(5), 4)).toEqual(["proxyCache"]);
    // Unset proxyCache is not managed; while deleting, the registry is not resolved.
    expect(diff(spec({}), proxyOf(5))).toEqual([]);
    expect(diff(proxySpec(), proxyOf(undefined), undefined)).toEqual([]);

    expect(unchangeable(proxySpec(), proxyOf(undefined), ["proxyCache"])).toMatch(
      /is not a proxy cache; Harbor sets that only when a project is created/,
    );
    expect(unchangeable(proxySpec(), proxyOf(5), ["proxyCache", "public"])).toMatch(
      /caches another registry \(id 5\)/,
    );
    expect(unchangeable(proxySpec(), proxyOf(4), ["public", "storageLimit"])).toBeUndefined();
  });

  test("content trust on a proxy-cache project is never applied by Harbor", () => {
    const s = proxySpec({ contentTrust: true });
    expect(diff(s, proxyOf(4), 4)).toEqual(["contentTrust"]);
    expect(unchangeable(s, proxyOf(4), ["contentTrust"])).toMatch(/Harbor ignores content trust/);
    // On an ordinary project it is written like any flag.
    expect(unchangeable(spec({ contentTrust: true }), proxyOf(undefined), ["contentTrust"])).toBeUndefined();
  });
});

describe("proxy-cache settings kept as metadata (2.12 speed, 2.14.1 upstream connections, 2.15.1 local on not found)", () => {
  const proxy = (extra: Record<string, unknown>) =>
    spec({ proxyCache: { registryRef: { name: "hub" }, ...extra } });
  const withMeta = (metadata: Record<string, string>) => ({ name: "p", registry_id: 4, metadata });

  test("sent as Harbor's strings, only when set", () => {
    expect(
      desiredMetadata(proxy({ speedKbps: 100, maxUpstreamConnections: 8, localOnNotFound: true })),
    ).toEqual({
      public: "false",
      proxy_speed_kb: "100",
      max_upstream_conn: "8",
      proxy_cache_local_on_not_found: "true",
    });
    expect(desiredMetadata(proxy({ maxUpstreamConnections: -1, localOnNotFound: false }))).toEqual({
      public: "false",
      max_upstream_conn: "-1",
      proxy_cache_local_on_not_found: "false",
    });
    expect(desiredMetadata(proxy({}))).toEqual({ public: "false" });
    expect(createRequest(proxy({ maxUpstreamConnections: 8 }), "p", 4).metadata).toMatchObject({
      max_upstream_conn: "8",
    });
    expect(updateRequest(proxy({ localOnNotFound: true }), 9).metadata).toMatchObject({
      proxy_cache_local_on_not_found: "true",
    });
  });

  test.each([
    [
      "the same values",
      { maxUpstreamConnections: 8, localOnNotFound: true },
      { public: "false", max_upstream_conn: "8", proxy_cache_local_on_not_found: "true" },
      [],
    ],
    [
      "another upstream limit",
      { maxUpstreamConnections: 8 },
      { public: "false", max_upstream_conn: "2" },
      ["proxyCache.maxUpstreamConnections"],
    ],
    [
      "local on not found turned off in Harbor",
      { localOnNotFound: true },
      { public: "false", proxy_cache_local_on_not_found: "false" },
      ["proxyCache.localOnNotFound"],
    ],
    // A release that does not keep the key: false is what it does (true is refused before, see release-fields).
    ["false where Harbor has no such key", { localOnNotFound: false }, { public: "false" }, []],
    // Unset: not managed, whatever Harbor holds or whether it has the key at all.
    ["unset", {}, { public: "false", max_upstream_conn: "3", proxy_cache_local_on_not_found: "true" }, []],
  ])("%s", (_what, settings, metadata, drift) => {
    expect(diff(proxy(settings), withMeta(metadata), 4)).toEqual(drift);
  });
});

describe("webhooks to private addresses (webhook_allow_private_ip, from 2.13.6, 2.14.5, 2.15.3)", () => {
  // Columns: the spec's value, the release, what Harbor holds, the key sent, the drift.
  test.each<[string, boolean, string, Record<string, string>, string | undefined, string[]]>([
    // A release that keeps the key: sent as Harbor's string and compared.
    ["allowed on 2.15.3", true, "v2.15.3-e15a3c0e", { webhook_allow_private_ip: "true" }, "true", []],
    [
      "allowed on 2.14.5, turned off in Harbor",
      true,
      "v2.14.5-e14a5c0e",
      { webhook_allow_private_ip: "false" },
      "true",
      ["webhookAllowPrivateIP"],
    ],
    ["not allowed on 2.13.6, never set in Harbor", false, "v2.13.6-e13a6c0e", {}, "false", []],
    // A release without it delivers anywhere: true is what it does; the key is neither sent nor compared.
    ["allowed on 2.15.2", true, "v2.15.2-e15a2c0e", {}, undefined, []],
    ["allowed on 2.12.4", true, "v2.12.4-e12a4c0e", {}, undefined, []],
  ])("%s", (_what, allow, version, metadata, sent, drift) => {
    const held = forRelease(spec({ webhookAllowPrivateIP: allow }), version);
    expect(desiredMetadata(held).webhook_allow_private_ip).toBe(sent);
    expect(diff(held, { name: "p", metadata: { public: "false", ...metadata } })).toEqual(drift);
  });
});

describe("the project's scanner", () => {
  const own = { uuid: "u-own", name: "team-trivy", isDefault: false };
  const theDefault = { uuid: "u-default", name: "Trivy", isDefault: true };

  test("a referenced registration: drift until Harbor answers with it", () => {
    const s = spec({ scanner: { registrationRef: { name: "team-trivy" } } });
    expect(scannerDrift(s, own, "u-own")).toEqual([]);
    expect(scannerDrift(s, theDefault, "u-own")).toEqual(["scanner"]);
    expect(scannerDrift(s, null, "u-own")).toEqual(["scanner"]);
    expect(scannerStatus(s, own)).toEqual({
      scanner: { name: "team-trivy", uuid: "u-own", inherited: false },
    });
  });

  test("the system default: drift while the project scans with another; nothing to follow without one", () => {
    const s = spec({ scanner: { systemDefault: true } });
    expect(scannerDrift(s, theDefault, undefined)).toEqual([]);
    expect(scannerDrift(s, own, undefined)).toEqual(["scanner"]);
    expect(scannerDrift(s, null, undefined)).toEqual([]);
    expect(scannerStatus(s, theDefault)).toEqual({
      scanner: { name: "Trivy", uuid: "u-default", inherited: true },
    });
    expect(scannerStatus(s, null)).toEqual({ scanner: undefined });
  });

  test("unmanaged: never drift, and status.scanner goes; not read: not judged", () => {
    expect(scannerDrift(spec({}), own, undefined)).toEqual([]);
    expect(scannerStatus(spec({}), own)).toEqual({ scanner: undefined });
    const s = spec({ scanner: { systemDefault: true } });
    expect(scannerDrift(s, undefined, undefined)).toEqual([]);
    expect(scannerStatus(s, undefined)).toEqual({});
  });
});
