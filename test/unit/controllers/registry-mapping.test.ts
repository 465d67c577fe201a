import { describe, expect, test } from "vitest";
import { HarborRegistrySpec } from "../../../src/api/registry.ts";
import {
  comparableUrl,
  createRequest,
  diff,
  type RegistryCredentials,
  status,
  updateRequest,
} from "../../../src/controllers/registry/mapping.ts";
import type { Registry } from "../../../src/harbor/registries.ts";

const spec = (s: Record<string, unknown> = {}) =>
  HarborRegistrySpec.parse({
    connectionRef: { name: "h" },
    type: "docker-registry",
    url: "https://registry.example.com",
    ...s,
  });

const withCredential = (s: Record<string, unknown> = {}) =>
  spec({ credential: { secretRef: { name: "creds" } }, ...s });

const creds: RegistryCredentials = { accessKey: "bot", accessSecret: "s3cret", version: "41" };

/** A registry as Harbor returns it after storing `spec` with `creds`. */
const harbor = (r: Partial<Registry> = {}): Registry => ({
  id: 7,
  name: "mirror",
  type: "docker-registry",
  url: "https://registry.example.com",
  insecure: false,
  credential: { type: "basic", access_key: "bot", access_secret: "*****" },
  status: "healthy",
  ...r,
});

describe("registry URLs", () => {
  // Spec URL → what Harbor stores for it.
  test.each([
    ["https://registry.example.com/", "https://registry.example.com"],
    ["https://registry.example.com//", "https://registry.example.com"],
    ["HTTPS://registry.example.com/v2/?x=1#top", "https://registry.example.com/v2/"],
    ["https://registry.example.com/a%20b", "https://registry.example.com/a b"],
    ["https://registry.example.com/a%20b", "https://registry.example.com/a%20b"],
    ["  registry.example.com ", "http://registry.example.com"],
  ])("%s compares equal to Harbor's %s", (raw, stored) => {
    expect(comparableUrl(raw)).toBe(comparableUrl(stored));
    // Stable: the comparable form of the comparable form is itself.
    expect(comparableUrl(comparableUrl(raw))).toBe(comparableUrl(raw));
  });

  test("another host, path or scheme differs", () => {
    const base = comparableUrl("https://registry.example.com/v2");
    expect(comparableUrl("http://registry.example.com/v2")).not.toBe(base);
    expect(comparableUrl("https://registry.example.org/v2")).not.toBe(base);
    expect(comparableUrl("https://registry.example.com/v3")).not.toBe(base);
  });
});

describe("registry requests", () => {
  test("create carries name, type, URL, flags and the credential", () => {
    expect(createRequest(withCredential({ description: "d" }), "mirror", creds)).toEqual({
      name: "mirror",
      type: "docker-registry",
      url: "https://registry.example.com",
      insecure: false,
      description: "d",
      credential: { type: "basic", access_key: "bot", access_secret: "s3cret" },
    });
    expect(createRequest(spec(), "mirror", undefined)).not.toHaveProperty("credential");
  });

  test("update sends every managed field; without a credential in the spec it clears Harbor's", () => {
    expect(updateRequest(withCredential(), "mirror", creds, harbor())).toEqual({
      name: "mirror",
      url: "https://registry.example.com",
      insecure: false,
      credential_type: "basic",
      access_key: "bot",
      access_secret: "s3cret",
    });
    expect(updateRequest(spec(), "mirror", undefined, harbor())).toMatchObject({
      access_key: "",
      access_secret: "",
    });
    expect(updateRequest(spec(), "mirror", undefined, harbor({ credential: {} }))).not.toHaveProperty(
      "access_key",
    );
  });
});

describe("registry diff", () => {
  test("what Harbor stored, masked secret and normalised URL included, is no drift", () => {
    const s = withCredential({ url: "https://registry.example.com/" });
    expect(diff(s, "mirror", creds, "41", harbor())).toEqual([]);
    expect(diff(spec(), "mirror", undefined, undefined, harbor({ credential: { type: "basic" } }))).toEqual(
      [],
    );
  });

  test("an unset description is not managed; a set one is", () => {
    expect(diff(withCredential(), "mirror", creds, "41", harbor({ description: "by hand" }))).toEqual([]);
    expect(
      diff(withCredential({ description: "ours" }), "mirror", creds, "41", harbor({ description: "x" })),
    ).toEqual(["description"]);
  });

  test("names every drifted field", () => {
    const drifted = harbor({
      name: "other",
      url: "https://elsewhere.example.com",
      insecure: true,
      type: "harbor",
    });
    expect(diff(withCredential(), "mirror", creds, "41", drifted)).toEqual([
      "name",
      "type",
      "url",
      "insecure",
    ]);
  });

  test("the secret cannot be seen: a new Secret version is credential drift", () => {
    expect(diff(withCredential(), "mirror", creds, "40", harbor())).toEqual(["credential"]);
    // Adopted or never recorded: push it once.
    expect(diff(withCredential(), "mirror", creds, undefined, harbor())).toEqual(["credential"]);
  });

  test("a changed access key or type, a missing or an unwanted credential is drift", () => {
    const s = withCredential();
    expect(
      diff(s, "mirror", creds, "41", harbor({ credential: { type: "basic", access_key: "x" } })),
    ).toEqual(["credential"]);
    expect(
      diff(s, "mirror", creds, "41", harbor({ credential: { type: "oauth", access_key: "bot" } })),
    ).toEqual(["credential"]);
    expect(diff(s, "mirror", creds, "41", harbor({ credential: {} }))).toEqual(["credential"]);
    expect(diff(spec(), "mirror", undefined, undefined, harbor())).toEqual(["credential"]);
  });
});

describe("registry status", () => {
  test("health from Harbor and the pushed credentials version; never a secret", () => {
    const s = status(harbor({ status: "unhealthy" }), creds);
    expect(s).toEqual({ health: "unhealthy", credentialsVersion: "41" });
    expect(JSON.stringify(s)).not.toContain("s3cret");
    expect(status(harbor(), undefined)).toEqual({ health: "healthy" });
  });
});
