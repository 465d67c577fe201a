import { describe, expect, test } from "vitest";
import type { ConnectionStatus } from "../../../src/api/connection.ts";
import {
  type CheckResult,
  credentialsFrom,
  defaultRegistryHost,
  describeFailure,
  insecureHttpRefusal,
  namespaceAllowed,
  nextStatus,
  readyInput,
  readyTransition,
  registryHostOf,
  releaseRefusal,
  retryDelayMs,
  tlsProblem,
} from "../../../src/controllers/connection/mapping.ts";
import { HarborError, type HarborErrorDetails } from "../../../src/harbor/errors.ts";

const harborError = (d: Partial<HarborErrorDetails>) =>
  new HarborError({ operation: "getSystemInfo", kind: "network", requestId: "req-123", ...d });

describe("namespaceAllowed", () => {
  test.each([
    [["team-a"], "team-a", true],
    [["team-a"], "team-ab", false],
    [["*"], "anything", true],
    [["team-*"], "team-a", true],
    [["team-*"], "team-", true],
    [["team-*"], "other-team-a", false],
    [["*-prod"], "shop-prod", true],
    [["*-prod"], "shop-prod-2", false],
    [["a*b*c"], "aXXbYYc", true],
    [["a.b"], "axb", false],
    [["x", "y-*"], "y-1", true],
    [[], "team-a", false],
  ])("%j allows %s: %s", (patterns, ns, allowed) => {
    expect(namespaceAllowed(patterns, ns)).toBe(allowed);
  });
});

describe("registry host", () => {
  test.each([
    ["https://harbor.example.com", "harbor.example.com"],
    ["https://harbor.example.com:8443/", "harbor.example.com:8443"],
    ["https://harbor.example.com:443", "harbor.example.com"],
    ["http://10.0.0.5:80/prefix", "10.0.0.5"],
    ["http://127.0.0.1:30002", "127.0.0.1:30002"],
  ])("%s → %s", (url, host) => {
    expect(defaultRegistryHost(url)).toBe(host);
  });

  test("spec.registryHost wins over the URL's host", () => {
    expect(registryHostOf({ url: "https://harbor.internal", registryHost: "registry.example.com" })).toBe(
      "registry.example.com",
    );
    expect(registryHostOf({ url: "https://harbor.internal" })).toBe("harbor.internal");
  });
});

describe("credentialsFrom", () => {
  const ref = { namespace: "ops", name: "harbor-admin", usernameKey: "username", passwordKey: "password" };

  test("a missing Secret: SecretNotFound naming it", () => {
    expect(credentialsFrom(undefined, ref)).toEqual({
      ok: false,
      failure: { reason: "SecretNotFound", message: "Secret ops/harbor-admin does not exist" },
    });
  });

  test("missing or empty keys: SecretInvalid naming them, never a value", () => {
    const r = credentialsFrom({ username: "admin", other: "S3cret-value" }, ref);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.reason).toBe("SecretInvalid");
    expect(r.failure.message).toContain('"password"');
    expect(r.failure.message).not.toContain("S3cret-value");
    const both = credentialsFrom({ username: "", password: "" }, ref);
    expect(both.ok ? "" : both.failure.message).toContain('no value under "username" and "password"');
  });

  test("custom keys are read", () => {
    const custom = { ...ref, usernameKey: "user", passwordKey: "token" };
    expect(credentialsFrom({ user: "robot$ci", token: "T0ken-value" }, custom)).toEqual({
      ok: true,
      credentials: { username: "robot$ci", password: "T0ken-value" },
    });
  });

  test("a username with a colon can never log in", () => {
    const r = credentialsFrom({ username: "a:b", password: "pw-value" }, ref);
    expect(r.ok ? "" : r.failure.reason).toBe("SecretInvalid");
  });
});

describe("tlsProblem", () => {
  test.each([
    ["DEPTH_ZERO_SELF_SIGNED_CERT", /self-signed.*spec.caBundle/],
    ["SELF_SIGNED_CERT_IN_CHAIN", /self-signed/],
    ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", /CA that is not trusted/],
    ["UNABLE_TO_GET_ISSUER_CERT_LOCALLY", /CA that is not trusted/],
    ["CERT_HAS_EXPIRED", /expired/],
    ["ERR_TLS_CERT_ALTNAME_INVALID", /host name/],
    ["ERR_SSL_WRONG_VERSION_NUMBER", /does not speak TLS/],
    ["ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE", /TLS handshake failed/],
  ])("%s", (code, text) => {
    expect(tlsProblem(code)).toMatch(text);
  });

  test.each(["ECONNREFUSED", "ENOTFOUND", "UND_ERR_SOCKET", undefined])("%s is not a TLS problem", (code) => {
    expect(tlsProblem(code)).toBeUndefined();
  });
});

describe("describeFailure", () => {
  const url = "https://harbor.example.com:8443";
  const credentials = {
    namespace: "ops",
    name: "harbor-admin",
    usernameKey: "username",
    passwordKey: "password",
    username: "admin",
    password: "Very-Secret-1",
  };

  test.each([
    [{ kind: "network", code: "ECONNREFUSED" }, "Unreachable", /harbor.example.com:8443.*connection refused/],
    [{ kind: "network", code: "ENOTFOUND" }, "Unreachable", /host name harbor.example.com does not resolve/],
    [{ kind: "network", code: "UND_ERR_SOCKET" }, "Unreachable", /closed before Harbor answered/],
    [
      { kind: "network", code: "DEPTH_ZERO_SELF_SIGNED_CERT" },
      "TLSError",
      /TLS with harbor.example.com:8443 failed/,
    ],
    [{ kind: "network", code: "CERT_HAS_EXPIRED" }, "TLSError", /expired/],
    [{ kind: "timeout" }, "Unreachable", /did not answer within 20 s/],
    [{ kind: "aborted" }, "Unreachable", /did not answer/],
    [
      { kind: "unauthorized", status: 401, operation: "getCurrentUserInfo" },
      "BadCredentials",
      /does not accept the username and password from Secret ops\/harbor-admin$/,
    ],
    [
      { kind: "forbidden", status: 403, code: "FORBIDDEN", harborMessage: "bob" },
      "Forbidden",
      /refused getSystemInfo \(HTTP 403 FORBIDDEN: bob\)/,
    ],
    [
      { kind: "notFound", status: 404 },
      "HarborError",
      /no Harbor API at https:\/\/harbor.example.com:8443\/api\/v2.0/,
    ],
    [{ kind: "server", status: 502 }, "HarborError", /answered getSystemInfo with HTTP 502/],
    [{ kind: "invalidResponse", status: 200 }, "HarborError", /not what Harbor sends/],
  ] as const)("%j → %s", (details, reason, text) => {
    const f = describeFailure(harborError(details), { url, credentials, deadlineMs: 20_000 });
    expect(f.reason).toBe(reason);
    expect(f.message).toMatch(text);
    // Stable text: the same failure twice must not rewrite the status.
    expect(f.message).not.toContain("req-123");
    expect(f.message).not.toContain("Very-Secret-1");
    // Nor the username: a Secret's value never reaches the status.
    expect(f.message).not.toContain(`"${credentials.username}"`);
  });

  test("bad credentials with a trailing line break say so", () => {
    const f = describeFailure(harborError({ kind: "unauthorized", status: 401 }), {
      url,
      credentials: { ...credentials, password: "Very-Secret-1\n" },
    });
    expect(f.message).toMatch(/line break/);
    expect(f.message).not.toContain("Very-Secret-1");
  });

  test("an error that is not Harbor's", () => {
    expect(describeFailure(new TypeError("boom"), { url })).toEqual({
      reason: "HarborError",
      message: `checking Harbor at ${url} failed: boom`,
    });
  });
});

describe("the release Harbor reports", () => {
  const url = "https://harbor.example.com";
  const connected = (harborVersion: string | undefined): CheckResult => ({
    url,
    ...(harborVersion === undefined ? {} : { harborVersion }),
    authenticatedAs: "admin",
  });

  test.each([
    ["v2.12.4-e12a4c0e", ""],
    ["v2.15.2-e15a2c0e", ""],
    ["v2.15.7-aaaaaaaa", ""],
    [
      "v2.16.0-aaaaaaaa",
      "; 2.16.0 is newer than the newest release this operator knows (2.15.3): it is treated as 2.15.3",
    ],
    ["dev", '; "dev" names no release: it is treated as 2.15.3'],
    [undefined, "; Harbor does not say which release it is: it is treated as 2.15.3"],
  ])("%s: Ready, and the message says how it is taken", (version, note) => {
    expect(releaseRefusal(url, version)).toBeUndefined();
    expect(readyInput(connected(version))).toEqual({
      status: "True",
      reason: "Connected",
      message: `Harbor${version ? ` ${version}` : ""} at ${url} accepts the credentials of "admin"${note}`,
    });
  });

  test.each(["v2.11.2-aaaaaaaa", "v2.10.3-e10a3c0e", "v1.10.17"])(
    "%s is refused, naming the supported releases",
    (version) => {
      expect(releaseRefusal(url, version)).toEqual({
        reason: "UnsupportedHarborVersion",
        message: `Harbor at harbor.example.com is ${version}: this operator supports Harbor 2.12 to 2.15 (and newer releases, as 2.15.3); nothing is done through this connection until Harbor is 2.12 or later`,
      });
    },
  );

  test("a refused release is Ready=False with its version in status", () => {
    const failure = releaseRefusal(url, "v2.10.3-e10a3c0e");
    if (!failure) throw new Error("not refused");
    const s = nextStatus(
      undefined,
      1,
      { url, harborVersion: "v2.10.3-e10a3c0e", failure },
      new Date(0),
      1000,
    );
    expect(s.conditions?.[0]).toMatchObject({
      type: "Ready",
      status: "False",
      reason: "UnsupportedHarborVersion",
    });
    expect(s.harborVersion).toBe("v2.10.3-e10a3c0e");
    expect(s.authenticatedAs).toBeUndefined();
  });
});

describe("nextStatus", () => {
  const t0 = new Date("2030-01-01T00:00:00.000Z");
  const later = (ms: number) => new Date(t0.getTime() + ms);
  const connected: CheckResult = {
    url: "https://harbor.example.com",
    harborVersion: "v2.12.4",
    authenticatedAs: "admin",
  };
  const refresh = 600_000;

  test("a working connection: Ready=True Connected with version and user", () => {
    const s = nextStatus(undefined, 3, connected, t0, refresh);
    expect(s).toEqual({
      observedGeneration: 3,
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "Connected",
          message: 'Harbor v2.12.4 at https://harbor.example.com accepts the credentials of "admin"',
          lastTransitionTime: "2030-01-01T00:00:00Z",
          observedGeneration: 3,
        },
      ],
      harborVersion: "v2.12.4",
      authenticatedAs: "admin",
      lastCheckTime: "2030-01-01T00:00:00Z",
    });
  });

  test("nothing changed: the same status, lastCheckTime kept until the refresh interval passes", () => {
    const first = nextStatus(undefined, 3, connected, t0, refresh);
    expect(nextStatus(first, 3, connected, later(60_000), refresh)).toEqual(first);
    const stale = nextStatus(first, 3, connected, later(refresh + 1000), refresh);
    expect(stale.lastCheckTime).toBe("2030-01-01T00:10:01Z");
    expect(stale.conditions).toEqual(first.conditions);
  });

  test("a failure: Ready=False with the reason, transition time moves, user and checks drop", () => {
    const first = nextStatus(
      undefined,
      3,
      {
        ...connected,
        ldap: { success: true },
        checks: { passed: true, reason: "ChecksPassed", message: "ok" },
      },
      t0,
      refresh,
    );
    expect(first.conditions?.map((c) => c.type)).toEqual(["Ready", "ChecksPassed"]);
    const failed = nextStatus(
      first,
      3,
      { url: connected.url, harborVersion: "v2.12.4", failure: { reason: "BadCredentials", message: "no" } },
      later(5000),
      refresh,
    );
    expect(failed.conditions).toEqual([
      expect.objectContaining({
        type: "Ready",
        status: "False",
        reason: "BadCredentials",
        lastTransitionTime: "2030-01-01T00:00:05Z",
      }),
      // kstatus: a connection that is not Ready (and not stalled) is still reconciling.
      expect.objectContaining({ type: "Reconciling", status: "True", reason: "BadCredentials" }),
    ]);
    expect(failed.authenticatedAs).toBeUndefined();
    expect(failed.ldap).toBeUndefined();
    expect(failed.harborVersion).toBe("v2.12.4");
    expect(failed.lastCheckTime).toBe("2030-01-01T00:00:05Z");
  });

  test("a reason change keeps the transition time of a condition whose status stays", () => {
    const a = nextStatus(
      undefined,
      1,
      { url: "u", failure: { reason: "SecretNotFound", message: "x" } },
      t0,
      refresh,
    );
    const b = nextStatus(
      a,
      1,
      { url: "u", failure: { reason: "SecretInvalid", message: "y" } },
      later(9000),
      refresh,
    );
    expect(b.conditions?.[0]).toMatchObject({
      reason: "SecretInvalid",
      lastTransitionTime: "2030-01-01T00:00:00Z",
    });
  });
});

describe("readyTransition", () => {
  const status = (s: "True" | "False", reason: string): ConnectionStatus => ({
    conditions: [{ type: "Ready", status: s, reason, message: `m-${reason}`, lastTransitionTime: "t" }],
  });

  test("an Event when the status or the reason changes, none otherwise", () => {
    expect(readyTransition(undefined, status("True", "Connected"))).toEqual({
      type: "Normal",
      reason: "Connected",
      message: "m-Connected",
    });
    expect(readyTransition(status("True", "Connected"), status("False", "Unreachable"))).toMatchObject({
      type: "Warning",
      reason: "Unreachable",
    });
    expect(readyTransition(status("False", "Unreachable"), status("False", "TLSError"))).toMatchObject({
      reason: "TLSError",
    });
    expect(readyTransition(status("False", "Unreachable"), status("False", "Unreachable"))).toBeUndefined();
  });
});

test("retryDelayMs doubles and caps", () => {
  expect([1, 2, 3, 4, 5, 6, 20].map((n) => retryDelayMs(n, 2000, 30_000))).toEqual([
    2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
  ]);
});

describe("plain http:// only to loopback, or when the spec allows it", () => {
  test.each<[string, boolean, boolean]>([
    ["https://harbor.example.com", false, true],
    ["http://127.0.0.1:8080", false, true],
    ["http://127.1.2.3", false, true],
    ["http://localhost:8080", false, true],
    ["http://[::1]:8080", false, true],
    ["http://harbor-core.harbor.svc", false, false],
    ["http://10.0.0.7:8080", false, false],
    ["http://127.evil.example.com", false, false],
    ["http://harbor-core.harbor.svc", true, true],
  ])("%s (allowInsecureHTTP %s): sent %s", (url, allowInsecureHTTP, sent) => {
    const refusal = insecureHttpRefusal({ url, allowInsecureHTTP });
    expect(refusal === undefined).toBe(sent);
    if (refusal) {
      expect(refusal).toMatchObject({ reason: "InsecureHTTP", stalled: true });
      expect(refusal.message).toContain("spec.allowInsecureHTTP: true");
    }
  });

  test("such a refusal is Stalled (only a change of the connection helps), and Stalled goes with it", () => {
    const failure = insecureHttpRefusal({ url: "http://harbor-core.harbor.svc" });
    const refused = nextStatus(
      undefined,
      1,
      { url: "http://harbor-core.harbor.svc", ...(failure ? { failure } : {}) },
      new Date(0),
      60_000,
    );
    const type = (t: string) => refused.conditions?.find((c) => c.type === t);
    expect(type("Ready")).toMatchObject({ status: "False", reason: "InsecureHTTP" });
    expect(type("Stalled")).toMatchObject({ status: "True", reason: "InsecureHTTP" });
    expect(type("Reconciling")).toBeUndefined();
    const fixed = nextStatus(
      refused,
      2,
      { url: "https://harbor.example.com", authenticatedAs: "admin" },
      new Date(0),
      60_000,
    );
    expect(fixed.conditions?.find((c) => c.type === "Stalled")).toBeUndefined();
  });
});
