// Spec fields only some Harbor releases have: which spec uses which on which release, the message
// of the refusal, and that the kinds' wiring applies it before any Harbor call (never to a resource
// being deleted, nor to a run Harbor has started).
import { describe, expect, test } from "vitest";
import { HarborConfigurationSpec } from "../../../src/api/configuration.ts";
import { HarborGarbageCollectionSpec } from "../../../src/api/garbage-collection.ts";
import { HarborGarbageCollectionRunSpec } from "../../../src/api/gc-run.ts";
import { HarborProjectSpec } from "../../../src/api/project.ts";
import { HarborRegistrySpec } from "../../../src/api/registry.ts";
import { HarborReplicationPolicySpec } from "../../../src/api/replication.ts";
import { CONFIGURATION_RELEASE_FIELDS } from "../../../src/controllers/configuration/mapping.ts";
import type { HarborConnectionHandle } from "../../../src/controllers/connection/handle.ts";
import { GC_RELEASE_FIELDS, gcWorkersField } from "../../../src/controllers/garbage-collection/mapping.ts";
import { MANAGED_KINDS, RUN_KINDS } from "../../../src/controllers/kind-list.ts";
import { PROJECT_RELEASE_FIELDS } from "../../../src/controllers/project/mapping.ts";
import { REGISTRY_RELEASE_FIELDS } from "../../../src/controllers/registry/mapping.ts";
import { REPLICATION_RELEASE_FIELDS } from "../../../src/controllers/replication/mapping.ts";
import {
  type ReleaseField,
  refuseUnsupportedFields,
  UNSUPPORTED_BY_HARBOR,
  unsupportedFields,
  withReleaseFields,
} from "../../../src/controllers/shared/release-fields.ts";
import { type ManagedObject, Stalled } from "../../../src/runtime/external-client.ts";
import { EXAMPLE_CA_PEM } from "../../env/certificates.ts";
import { handle, inputOf } from "./fakes.ts";

const ref = { connectionRef: { name: "harbor" } };
const project = (s: object) => HarborProjectSpec.parse({ ...ref, ...s });
const proxy = (s: object) => project({ proxyCache: { registryRef: { name: "hub" }, ...s } });
const policy = (s: object) =>
  HarborReplicationPolicySpec.parse({ ...ref, direction: "push", registryRef: { name: "hub" }, ...s });
const registry = (s: object) =>
  HarborRegistrySpec.parse({ ...ref, type: "docker-hub", url: "https://hub.docker.com", ...s });
const configuration = (s: object) => HarborConfigurationSpec.parse({ ...ref, ...s });
const gc = (workers: number) =>
  HarborGarbageCollectionSpec.parse({ ...ref, schedule: { type: "Daily" }, workers });
const gcRun = (workers: number) => HarborGarbageCollectionRunSpec.parse({ ...ref, workers });

const PEM = EXAMPLE_CA_PEM;

// biome-ignore lint/suspicious/noExplicitAny: a row holds any kind's fields and spec
type Row = [string, readonly ReleaseField<any>[], unknown, string, string[]];

describe("which fields a release lacks", () => {
  test.each<Row>([
    // Project proxy cache: max_upstream_conn from 2.14.1, any value; local-on-not-found from 2.15.1, true only.
    [
      "maxUpstreamConnections on 2.14.0",
      PROJECT_RELEASE_FIELDS,
      proxy({ maxUpstreamConnections: 4 }),
      "v2.14.0-aaaaaaaa",
      ["spec.proxyCache.maxUpstreamConnections:2.14.1"],
    ],
    [
      "maxUpstreamConnections -1 on 2.13.5",
      PROJECT_RELEASE_FIELDS,
      proxy({ maxUpstreamConnections: -1 }),
      "v2.13.5-e13a5c0e",
      ["spec.proxyCache.maxUpstreamConnections:2.14.1"],
    ],
    [
      "maxUpstreamConnections on 2.14.1",
      PROJECT_RELEASE_FIELDS,
      proxy({ maxUpstreamConnections: 4 }),
      "v2.14.1-aaaaaaaa",
      [],
    ],
    [
      "localOnNotFound on 2.15.0",
      PROJECT_RELEASE_FIELDS,
      proxy({ localOnNotFound: true }),
      "v2.15.0-aaaaaaaa",
      ["spec.proxyCache.localOnNotFound:2.15.1"],
    ],
    [
      "localOnNotFound false on 2.12.4",
      PROJECT_RELEASE_FIELDS,
      proxy({ localOnNotFound: false }),
      "v2.12.4-e12a4c0e",
      [],
    ],
    [
      "both on 2.12.4",
      PROJECT_RELEASE_FIELDS,
      proxy({ maxUpstreamConnections: 2, localOnNotFound: true }),
      "v2.12.4-e12a4c0e",
      ["spec.proxyCache.maxUpstreamConnections:2.14.1", "spec.proxyCache.localOnNotFound:2.15.1"],
    ],
    [
      "both on 2.15.2",
      PROJECT_RELEASE_FIELDS,
      proxy({ maxUpstreamConnections: 2, localOnNotFound: true }),
      "v2.15.2-e15a2c0e",
      [],
    ],
    // Webhooks to private addresses: the key from 2.13.6, 2.14.5 and 2.15.3; an older release delivers
    // anywhere, so true is what it does and only false cannot be held.
    [
      "webhookAllowPrivateIP false on 2.15.2",
      PROJECT_RELEASE_FIELDS,
      project({ webhookAllowPrivateIP: false }),
      "v2.15.2-e15a2c0e",
      [
        "spec.webhookAllowPrivateIP false (webhooks refused private addresses):2.15.3 (on 2.13: 2.13.6; on 2.14: 2.14.5)",
      ],
    ],
    [
      "webhookAllowPrivateIP true on 2.13.5",
      PROJECT_RELEASE_FIELDS,
      project({ webhookAllowPrivateIP: true }),
      "v2.13.5-e13a5c0e",
      [],
    ],
    [
      "webhookAllowPrivateIP false on 2.14.5",
      PROJECT_RELEASE_FIELDS,
      project({ webhookAllowPrivateIP: false }),
      "v2.14.5-e14a5c0e",
      [],
    ],
    [
      "a project without them on 2.12.4",
      PROJECT_RELEASE_FIELDS,
      project({ autoScan: true }),
      "v2.12.4-e12a4c0e",
      [],
    ],
    // Replication: single_active_replication from 2.14.
    [
      "singleActiveReplication on 2.13.5",
      REPLICATION_RELEASE_FIELDS,
      policy({ singleActiveReplication: true }),
      "v2.13.5-e13a5c0e",
      ["spec.singleActiveReplication:2.14"],
    ],
    [
      "singleActiveReplication false on 2.12.4",
      REPLICATION_RELEASE_FIELDS,
      policy({ singleActiveReplication: false }),
      "v2.12.4-e12a4c0e",
      [],
    ],
    [
      "singleActiveReplication on 2.14.4",
      REPLICATION_RELEASE_FIELDS,
      policy({ singleActiveReplication: true }),
      "v2.14.4-e14a4c0e",
      [],
    ],
    // Registry: ca_certificate from 2.15; "" (none) is what older ones have.
    [
      "caCertificate on 2.14.4",
      REGISTRY_RELEASE_FIELDS,
      registry({ caCertificate: PEM }),
      "v2.14.4-e14a4c0e",
      ["spec.caCertificate:2.15"],
    ],
    [
      'caCertificate "" on 2.12.4',
      REGISTRY_RELEASE_FIELDS,
      registry({ caCertificate: "" }),
      "v2.12.4-e12a4c0e",
      [],
    ],
    [
      "caCertificate on 2.15.0",
      REGISTRY_RELEASE_FIELDS,
      registry({ caCertificate: PEM }),
      "v2.15.0-aaaaaaaa",
      [],
    ],
    // Configuration: oidc_logout and disabled_audit_log_event_types from 2.13.
    [
      "oidc logout on 2.12.4",
      CONFIGURATION_RELEASE_FIELDS,
      configuration({ auth: { oidc: { logout: true } } }),
      "v2.12.4-e12a4c0e",
      ["spec.auth.oidc.logout:2.13"],
    ],
    [
      "disabled event types on 2.12.4",
      CONFIGURATION_RELEASE_FIELDS,
      configuration({ auditLog: { disabledEventTypes: ["pull_artifact"] } }),
      "v2.12.4-e12a4c0e",
      ["spec.auditLog.disabledEventTypes:2.13"],
    ],
    [
      "[] and false on 2.12.4",
      CONFIGURATION_RELEASE_FIELDS,
      configuration({ auth: { oidc: { logout: false } }, auditLog: { disabledEventTypes: [] } }),
      "v2.12.4-e12a4c0e",
      [],
    ],
    [
      "both on 2.13.5",
      CONFIGURATION_RELEASE_FIELDS,
      configuration({
        auth: { oidc: { logout: true } },
        auditLog: { disabledEventTypes: ["pull_artifact"] },
      }),
      "v2.13.5-e13a5c0e",
      [],
    ],
    // GC: up to 5 workers before 2.13, up to 10 from it.
    ["5 GC workers on 2.12.4", GC_RELEASE_FIELDS, gc(5), "v2.12.4-e12a4c0e", []],
    ["6 GC workers on 2.12.4", GC_RELEASE_FIELDS, gc(6), "v2.12.4-e12a4c0e", ["spec.workers above 5:2.13"]],
    ["10 GC workers on 2.13.0", GC_RELEASE_FIELDS, gc(10), "v2.13.0-aaaaaaaa", []],
    [
      "8 GC run workers on 2.12.4",
      [gcWorkersField()],
      gcRun(8),
      "v2.12.4-e12a4c0e",
      ["spec.workers above 5:2.13"],
    ],
    // A newer release has them all; so has one that names no release (taken as the newest known).
    [
      "everything on 2.16.0",
      PROJECT_RELEASE_FIELDS,
      proxy({ maxUpstreamConnections: 2, localOnNotFound: true }),
      "v2.16.0-aaaaaaaa",
      [],
    ],
    ["everything on dev", REGISTRY_RELEASE_FIELDS, registry({ caCertificate: PEM }), "dev", []],
  ])("%s", (_name, fields, spec, version, expected) => {
    expect(unsupportedFields(fields, spec, version).map((u) => `${u.what}:${u.since}`)).toEqual(expected);
  });
});

describe("the refusal", () => {
  test("names every field, the release that has it, and this Harbor's", () => {
    const spec = proxy({ maxUpstreamConnections: 2, localOnNotFound: true });
    let thrown: unknown;
    try {
      refuseUnsupportedFields(PROJECT_RELEASE_FIELDS, spec, "v2.13.5-e13a5c0e");
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(Stalled);
    expect(thrown).toMatchObject({
      reason: UNSUPPORTED_BY_HARBOR,
      message:
        "spec.proxyCache.maxUpstreamConnections needs Harbor 2.14.1 or later; spec.proxyCache.localOnNotFound needs Harbor 2.15.1 or later; this Harbor is v2.13.5-e13a5c0e",
    });
  });

  test("nothing is refused when nothing is used", () => {
    expect(() => refuseUnsupportedFields(PROJECT_RELEASE_FIELDS, project({}), "v2.12.4")).not.toThrow();
  });
});

describe("the kinds' wiring", () => {
  const conn = handle(undefined, { harborVersion: "v2.12.4-e12a4c0e" });
  const prepared: string[] = [];
  const external = {
    prepare: async (input: {
      resource: ManagedObject;
      spec: HarborGarbageCollectionSpec;
      conn: HarborConnectionHandle;
    }) => {
      prepared.push(input.resource.metadata.name);
      return {};
    },
  };
  const wrapped = withReleaseFields(external, GC_RELEASE_FIELDS, (r) => r.status?.harborId !== undefined);

  test("a spec using what the Harbor lacks is refused before prepare calls Harbor", async () => {
    await expect(wrapped.prepare(inputOf(gc(8), { name: "eight", conn }))).rejects.toMatchObject({
      reason: UNSUPPORTED_BY_HARBOR,
      message: "spec.workers above 5 needs Harbor 2.13 or later; this Harbor is v2.12.4-e12a4c0e",
    });
    expect(prepared).not.toContain("eight");
    await wrapped.prepare(inputOf(gc(5), { name: "five", conn }));
    expect(prepared).toContain("five");
  });

  test("a resource being deleted, or a run Harbor started, is not refused", async () => {
    const deleting = inputOf(gc(8), {
      name: "going",
      conn,
      resource: {
        metadata: { name: "going", namespace: "team", deletionTimestamp: "2026-01-01T00:00:00Z" },
      },
    });
    await wrapped.prepare(deleting);
    const started = inputOf(gc(8), { name: "started", conn, resource: { status: { harborId: 7 } } });
    await wrapped.prepare(started);
    expect(prepared).toEqual(expect.arrayContaining(["going", "started"]));
  });

  test("every kind with such fields declares them where the wiring finds them", () => {
    const declared = Object.fromEntries(
      [...MANAGED_KINDS, ...RUN_KINDS].map((k) => [
        k.def.kind,
        (k.releaseFields ?? []).map((f: ReleaseField<unknown>) => f.field),
      ]),
    );
    expect(declared).toMatchObject({
      HarborProject: [
        "webhookAllowPrivateIP",
        "proxyCache.maxUpstreamConnections",
        "proxyCache.localOnNotFound",
      ],
      HarborReplicationPolicy: ["singleActiveReplication"],
      HarborRegistry: ["caCertificate"],
      HarborConfiguration: ["auth.oidc.logout", "auditLog.disabledEventTypes"],
      HarborGarbageCollection: ["workers"],
      HarborGarbageCollectionRun: ["workers"],
    });
  });
});
