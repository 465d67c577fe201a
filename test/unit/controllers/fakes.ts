// What the kinds' unit tables share to ask an ExternalClient what is the kind's own (its claim, how
// it identifies its object, its tenancy check) without Harbor: the input of one reconcile, and a
// connection handle as a ClusterHarborConnection's tenant gets it.
import pino from "pino";
import type { HarborConnectionHandle } from "../../../src/controllers/connection/handle.ts";
import { type TenancySpec, tenancyFor } from "../../../src/controllers/connection/tenancy.ts";
import type { HarborClient } from "../../../src/harbor/client.ts";
import type { Input } from "../../../src/runtime/managed.ts";

/** A connection of the namespace's own ("harbor"): no tenancy, anything allowed. No Harbor behind it. */
export const ownConnection: HarborConnectionHandle = {
  key: "HarborConnection/team/harbor",
  client: {} as HarborClient,
  url: "https://harbor.example.com",
  harbor: "https://harbor.example.com",
  registryHost: "harbor.example.com",
};

/** The namespace "team" through ClusterHarborConnection "shared" with this tenancy (nothing allowed by default). */
export const tenantConnection = (tenancy: Partial<TenancySpec> = {}): HarborConnectionHandle => ({
  ...ownConnection,
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

/** The input of one reconcile of resource `name` in namespace "team" (Harbor name `harborName`). */
export function inputOf<S, X, Id extends string | number = number>(
  spec: S,
  o: { name?: string; harborName?: string; extra?: X; conn?: HarborConnectionHandle } = {},
): Input<S, HarborConnectionHandle, X, Id> {
  const name = o.name ?? "res";
  return {
    resource: { metadata: { name, namespace: "team", uid: `uid-${name}` } },
    spec,
    harborName: o.harborName ?? name,
    knownId: undefined,
    conn: o.conn ?? ownConnection,
    extra: o.extra as X,
    logger: pino({ level: "silent" }),
    signal: new AbortController().signal,
  };
}
