import { describe, expect, test } from "vitest";
import { HarborRegistrySpec } from "../../../src/api/registry.ts";
import { RegistryUnhealthy, registryExternal } from "../../../src/controllers/registry/external.ts";
import {
  comparableUrl,
  createRequest,
  diff,
  type RegistryCredentials,
  status,
  updateRequest,
} from "../../../src/controllers/registry/mapping.ts";
import type { SecretUses } from "../../../src/controllers/shared/secret-uses.ts";
import { HarborError, type HarborErrorKind } from "../../../src/harbor/errors.ts";
import type { Registry } from "../../../src/harbor/registries.ts";
import { DeletionBlocked, Stalled } from "../../../src/runtime/external-client.ts";
import { EXAMPLE_CA_PEM } from "../../env/certificates.ts";
import { fakeHarborCalls, handle, inputOf } from "./fakes.ts";

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

describe("the registry's own CA (caCertificate, Harbor 2.15)", () => {
  test('create sends it when set and not empty; update whenever set ("" removes it)', () => {
    expect(createRequest(spec({ caCertificate: EXAMPLE_CA_PEM }), "mirror", undefined).ca_certificate).toBe(
      EXAMPLE_CA_PEM,
    );
    expect(createRequest(spec({ caCertificate: "" }), "mirror", undefined)).not.toHaveProperty(
      "ca_certificate",
    );
    expect(createRequest(spec(), "mirror", undefined)).not.toHaveProperty("ca_certificate");
    expect(updateRequest(spec({ caCertificate: "" }), "mirror", undefined, harbor()).ca_certificate).toBe("");
    expect(updateRequest(spec(), "mirror", undefined, harbor())).not.toHaveProperty("ca_certificate");
  });

  test.each([
    ["the same CA", EXAMPLE_CA_PEM, EXAMPLE_CA_PEM, []],
    ["removed in Harbor", EXAMPLE_CA_PEM, "", ["caCertificate"]],
    ["added in Harbor", "", EXAMPLE_CA_PEM, ["caCertificate"]],
    // A release without the field has none: "" is met (a CA is refused before, see release-fields).
    ["none, on a release without it", "", undefined, []],
    ["unset, whatever Harbor has", undefined, EXAMPLE_CA_PEM, []],
  ])("%s", (_what, want, have, drift) => {
    const desired = spec(want === undefined ? {} : { caCertificate: want });
    expect(
      diff(desired, "mirror", undefined, undefined, harbor({ credential: {}, ca_certificate: have })),
    ).toEqual(drift);
  });

  test('the CRD takes PEM certificates or "", nothing else', () => {
    const parse = (caCertificate: string) =>
      HarborRegistrySpec.safeParse({
        connectionRef: { name: "h" },
        type: "harbor",
        url: "https://r",
        caCertificate,
      });
    expect(parse(EXAMPLE_CA_PEM).success).toBe(true);
    expect(parse("").success).toBe(true);
    expect(parse("not a certificate").success).toBe(false);
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

describe("registry against Harbor (its external client, Harbor faked)", () => {
  const refusal = (operation: string, kind: HarborErrorKind, harborMessage: string) =>
    new HarborError({ operation, kind, harborMessage, requestId: "r1" });
  /** Harbor's registry API: these provider types, and a create, update or delete that fails as given. */
  const setup = (o: { createFails?: HarborError; deleteFails?: HarborError } = {}) => {
    const calls: string[] = [];
    const client = fakeHarborCalls({
      registries: {
        listProviderTypes: async () => {
          calls.push("listProviderTypes");
          return ["docker-hub", "docker-registry", "github-ghcr", "harbor", "quay"];
        },
        create: async () => {
          calls.push("create");
          if (o.createFails) throw o.createFails;
          return 7;
        },
        update: async () => {
          calls.push("update");
        },
        delete: async () => {
          calls.push("delete");
          if (o.deleteFails) throw o.deleteFails;
        },
      },
    });
    const ext = registryExternal({ secrets: { read: async () => undefined } as unknown as SecretUses });
    return { calls, ext, conn: handle(client) };
  };

  test("a type this Harbor does not support stalls before any write, naming the types it does", async () => {
    const { calls, ext, conn } = setup();
    await ext.prepare(inputOf(spec({ type: "quay" }), { conn: conn }));
    const refused = await ext
      .prepare(inputOf(spec({ type: "quay-io" }), { conn: conn }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Stalled);
    expect(refused).toMatchObject({
      reason: "UnsupportedType",
      message:
        'registry type "quay-io" is not supported by this Harbor; it supports: docker-hub, docker-registry, github-ghcr, harbor, quay',
    });
    // Read once per client, and again after a miss (Harbor may have been upgraded).
    await ext.prepare(inputOf(spec({ type: "quay" }), { conn: conn }));
    expect(calls).toEqual(["listProviderTypes", "listProviderTypes"]);
  });

  test("an adopted registry of another type stalls (TypeMismatch): Harbor cannot change a type, nothing is sent", async () => {
    const { calls, ext, conn } = setup();
    const input = inputOf(spec({ type: "harbor" }), { conn: conn, knownId: 7, name: "mirror" });
    const refused = await ext.update(input, harbor({ type: "quay" }), ["type"]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Stalled);
    expect(refused).toMatchObject({
      reason: "TypeMismatch",
      message:
        'registry "mirror" has type quay in Harbor, the spec says harbor; Harbor cannot change a registry\'s type',
    });
    expect(calls).toEqual([]);
  });

  test("Harbor's health check failing is retried (RegistryUnhealthy), not Stalled, with Harbor's words", async () => {
    const { ext, conn } = setup({
      createFails: refusal("createRegistry", "invalid", "the registry is unhealthy"),
    });
    const failed = await ext.create(inputOf(spec(), { conn: conn })).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(RegistryUnhealthy);
    expect((failed as Error).message).toBe(
      "Harbor cannot reach the registry at https://registry.example.com (the registry is unhealthy); check the URL, the credentials and that the registry is up. Retrying",
    );
  });

  test("a registry Harbor keeps because something uses it (412) blocks the deletion with Harbor's reason", async () => {
    const { ext, conn } = setup({
      deleteFails: refusal(
        "deleteRegistry",
        "precondition",
        "the registry is referenced by replication policies",
      ),
    });
    const blocked = await ext
      .delete(inputOf(spec(), { conn: conn, knownId: 7 }), harbor())
      .catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(DeletionBlocked);
    expect((blocked as Error).message).toBe(
      "Harbor keeps the registry: the registry is referenced by replication policies. Delete what uses it first, or set deletionPolicy: Orphan",
    );
  });
});
