// What the kinds' unit tables share to ask an ExternalClient what is the kind's own (its claim, how
// it identifies its object, its tenancy check, what it sends) without a Harbor: a Harbor client made
// of the few API parts a case fakes, the connection handle a resource gets (through a
// HarborConnection, or a ClusterHarborConnection with a tenancy), and the input of one reconcile.
import pino from "pino";
import type { HarborConnectionHandle } from "../../../src/controllers/connection/handle.ts";
import { type TenancySpec, tenancyFor } from "../../../src/controllers/connection/tenancy.ts";
import type { HarborClient } from "../../../src/harbor/client.ts";
import type { Input, ManagedObject } from "../../../src/runtime/external-client.ts";

/** A Harbor client with only these API parts (client.gc, client.registries, …); others are absent. */
export const fakeHarborCalls = (parts: Record<string, object>): HarborClient =>
  parts as unknown as HarborClient;

/** The handle of the namespace's own HarborConnection "harbor" (no tenancy: anything its credentials allow). */
export const handle = (
  client: HarborClient = fakeHarborCalls({}),
  more: Partial<HarborConnectionHandle> = {},
): HarborConnectionHandle => ({
  key: "HarborConnection/team/harbor",
  client,
  url: "https://harbor.example.com",
  harbor: "https://harbor.example.com",
  registryHost: "harbor.example.com",
  harborVersion: "v2.12.4-6b4981d4",
  ...more,
});

/** A connection of the namespace's own with no Harbor behind it: for what needs no call. */
export const ownConnection: HarborConnectionHandle = handle();

/**
 * The namespace "team" through ClusterHarborConnection "shared" with this tenancy (its own project
 * `team` and nothing else allowed by default).
 */
export const tenantConnection = (
  tenancy: Partial<TenancySpec> = {},
  client?: HarborClient,
): HarborConnectionHandle =>
  handle(client, {
    key: "ClusterHarborConnection/shared",
    tenancy: tenancyFor(
      {
        projects: ["{namespace}"],
        allowAdoption: false,
        allowSystemRobots: false,
        allowSystemSettings: false,
        ...tenancy,
      },
      "shared",
      "team",
    ),
  });

/**
 * The input of one reconcile of resource "team/<name>" (Harbor name `harborName`, default the
 * resource's), through `conn` (default the namespace's own connection); nothing recorded unless `knownId`.
 */
export function inputOf<S, X = Record<string, never>, Id extends string | number = number>(
  spec: S,
  o: {
    name?: string;
    harborName?: string;
    conn?: HarborConnectionHandle;
    knownId?: Id;
    extra?: X;
    resource?: Partial<ManagedObject>;
  } = {},
): Input<S, HarborConnectionHandle, X, Id> {
  const name = o.name ?? "res";
  return {
    resource: {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "Harbor",
      metadata: { name, namespace: "team", uid: `uid-${name}`, resourceVersion: "1", generation: 1 },
      spec: spec as Record<string, unknown>,
      ...o.resource,
    },
    spec,
    harborName: o.harborName ?? name,
    knownId: o.knownId,
    conn: o.conn ?? ownConnection,
    extra: (o.extra ?? {}) as X,
    logger: pino({ level: "silent" }),
    signal: new AbortController().signal,
  };
}
