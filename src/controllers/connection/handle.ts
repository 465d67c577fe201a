// What a managed resource gets from its connection: a ready Harbor client and the facts about the
// Harbor behind it.
import type { HarborClient } from "../../harbor/client.ts";
import type { Tenancy } from "./tenancy.ts";

export interface HarborConnectionHandle {
  /** "HarborConnection/<namespace>/<name>" or "ClusterHarborConnection/<name>". */
  key: string;
  client: HarborClient;
  /** Harbor's URL as configured. */
  url: string;
  /** Which Harbor this is (see harborIdentity): Harbor ids recorded in status belong to it. */
  harbor: string;
  /** The registry host used in image references and pull secrets. */
  registryHost: string;
  /** Harbor's version as it reports it, when known. */
  harborVersion?: string;
  /** What the resolving namespace may do through a shared ClusterHarborConnection; absent: anything. */
  tenancy?: Tenancy;
}

export function connectionKey(namespace: string, ref: { kind: string; name: string }): string {
  return ref.kind === "ClusterHarborConnection"
    ? `ClusterHarborConnection/${ref.name}`
    : `HarborConnection/${namespace}/${ref.name}`;
}
