// What the unit tables of kinds' external clients share: a Harbor client made of the few API parts a
// case fakes, the connection handle a resource gets (through a HarborConnection, or a
// ClusterHarborConnection with a tenancy), and the input of one reconcile.
import pino from "pino";
import type { HarborConnectionHandle } from "../../../src/controllers/connection/handle.ts";
import { tenancyFor } from "../../../src/controllers/connection/tenancy.ts";
import type { HarborClient } from "../../../src/harbor/client.ts";
import type { Input, ManagedObject } from "../../../src/runtime/managed.ts";

/** A Harbor client with only these API parts (client.gc, client.registries, …); others are absent. */
export const fakeHarborCalls = (parts: Record<string, object>): HarborClient =>
  parts as unknown as HarborClient;

/** The handle of a HarborConnection (no tenancy: anything its credentials allow). */
export const handle = (
  client: HarborClient,
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

/** The handle namespace "team" gets through ClusterHarborConnection "shared", its projects `team-*`. */
export const throughTenancy = (client: HarborClient, allowSystemSettings: boolean): HarborConnectionHandle =>
  handle(client, {
    key: "ClusterHarborConnection/shared",
    tenancy: tenancyFor(
      { projects: ["{namespace}-*"], allowAdoption: false, allowSystemRobots: false, allowSystemSettings },
      "shared",
      "team",
    ),
  });

/** The input of a reconcile of resource "team/<name>" with this spec (nothing recorded unless `knownId`). */
export function inputOf<S, X = Record<string, never>>(
  spec: S,
  conn: HarborConnectionHandle,
  knownId?: number,
  o: { name?: string; extra?: X; resource?: Partial<ManagedObject> } = {},
): Input<S, HarborConnectionHandle, X> {
  const name = o.name ?? "it";
  return {
    resource: {
      apiVersion: "harborconfig.io/v1alpha1",
      kind: "Harbor",
      metadata: { name, namespace: "team", uid: "uid-1", resourceVersion: "1", generation: 1 },
      spec: spec as Record<string, unknown>,
      ...o.resource,
    },
    spec,
    harborName: name,
    knownId,
    conn,
    extra: (o.extra ?? {}) as X,
    logger: pino({ level: "silent" }),
    signal: new AbortController().signal,
  };
}
