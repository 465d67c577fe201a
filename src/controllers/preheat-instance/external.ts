// HarborPreheatInstance's ExternalClient: how a P2P provider instance is observed, created, updated
// and deleted in Harbor. Choices where Harbor leaves room:
// - Harbor's API does not check the provider before it stores an instance (its UI pings first). The
//   operator pings too (POST /p2p/preheat/instances/ping with the endpoint and credential) and
//   creates only an instance Harbor can reach: otherwise Ready=False, reason ProviderUnreachable,
//   retried with backoff. After every reconcile, and every --status-refresh-interval, Harbor pings
//   the stored instance: status.health, and ProviderUnreachable while an enabled one fails.
// - Harbor's default instance is a per-Harbor setting: `default: true` takes it as a singleton claim
//   ("preheat-default") besides the instance's own, held by the resource whose status shows it.
//   Harbor's create does not unmark other defaults, its update does: a new default instance is
//   created, then updated to be the default.
// - The credential is read in prepare, only from a Secret that opts in as a preheat credential
//   (Harbor sends it to the endpoint of the spec's choosing); it goes only into Harbor requests.
//   Harbor no longer shows it from 2.14.4: then only a new Secret version is drift (mapping.ts).
// - Harbor refuses to delete an instance a preheat policy uses (412): the deletion waits
//   (DeletionBlocked) with Harbor's message, and proceeds when the policies are gone.
// - Tenancy: an instance is Harbor-wide, so through a ClusterHarborConnection it needs
//   tenancy.allowSystemSettings.
//
// - Harbor keeps one instance per endpoint but says so with a masked 500: a create whose endpoint
//   another instance has waits instead (Ready=False, EndpointInUse, naming it).
//
// Harbor requests: a new instance converges in five (the lookup by name, the list for the
// endpoint, the ping, the create, the read-back for its id) plus one ping after; an instance in sync costs two (the read and the ping);
// the drift sweep lists the instances once per Harbor.
import { SECRET_USES } from "../../api/common.ts";
import type { HarborPreheatInstanceSpec, HarborPreheatInstanceStatus } from "../../api/preheat-instance.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { PreheatInstanceReq } from "../../harbor/preheat.ts";
import { DeletionBlocked, type ExternalClient, NotReady } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import { comparableUrl } from "../registry/mapping.ts";
import type { SecretUses } from "../shared/secret-uses.ts";
import { requireSystemSettings } from "../shared/tenancy.ts";
import {
  CREDENTIAL_KEYS,
  diff,
  instanceRequest,
  type ObservedInstance,
  type PreheatCredential,
  status,
} from "./mapping.ts";

/** Ready=False reason: Harbor cannot reach the provider; retried. */
export const PROVIDER_UNREACHABLE = "ProviderUnreachable";

/** Ready=False reason: another instance in Harbor has the endpoint; retried. */
export const ENDPOINT_IN_USE = "EndpointInUse";

/** The per-Harbor setting `default: true` takes. */
export const DEFAULT_INSTANCE_CLAIM = "preheat-default";

/** Harbor cannot reach the provider; retried with backoff. */
export class ProviderUnreachable extends Error {
  override readonly name = "ProviderUnreachable";
}

export interface PreheatInstanceExtra {
  /** Absent with auth mode NONE, and while the resource is being deleted. */
  credential?: PreheatCredential;
}

type Client = ExternalClient<
  HarborPreheatInstanceSpec,
  ObservedInstance,
  HarborConnectionHandle,
  PreheatInstanceExtra,
  HarborPreheatInstanceStatus
>;

export interface PreheatInstanceExternalDeps {
  secrets: SecretUses;
  /** How often the provider's health is looked at besides reconciles. */
  statusRefreshMs: number;
}

const withId = (i: { id?: number | undefined }): i is ObservedInstance => typeof i.id === "number";

export function preheatInstanceExternal(deps: PreheatInstanceExternalDeps): Client {
  const byName = async (conn: HarborConnectionHandle, name: string, signal: AbortSignal) => {
    try {
      const i = await conn.client.preheat.getInstance(name, { signal });
      return withId(i) ? i : undefined;
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  /** Harbor's ping; false when Harbor cannot reach the provider (its 500). */
  const reachable = async (
    conn: HarborConnectionHandle,
    body: Partial<PreheatInstanceReq>,
    signal: AbortSignal,
  ): Promise<boolean | "gone"> => {
    try {
      await conn.client.preheat.ping(body, { signal });
      return true;
    } catch (e) {
      if (isHarborError(e, "server")) return false;
      if (isHarborError(e, "notFound")) return "gone";
      throw e;
    }
  };

  return {
    async prepare({ resource, spec, conn }) {
      requireSystemSettings(conn, "P2P preheat provider instances");
      if (resource.metadata.deletionTimestamp || spec.auth.mode === "NONE" || !spec.auth.secretRef) return {};
      const ref = spec.auth.secretRef;
      const secret = await deps.secrets.read(
        resource.metadata.namespace ?? "",
        ref.name,
        SECRET_USES.preheatCredential,
      );
      if (!secret) throw new NotReady("SecretNotFound", `Secret ${ref.name} does not exist`);
      const info: Record<string, string> = {};
      for (const key of CREDENTIAL_KEYS[spec.auth.mode]) {
        const value = secret.values[key];
        if (!value) throw new NotReady("SecretInvalid", `Secret ${ref.name} has no value for ${key}`);
        info[key] = value;
      }
      return { credential: { info, version: secret.object.metadata.resourceVersion ?? "" } };
    },

    async observe({ conn, knownId, harborName, signal }) {
      if (knownId === undefined) return byName(conn, harborName, signal);
      const all = await conn.client.preheat.listInstances({}, { signal });
      return all.filter(withId).find((i) => i.id === knownId);
    },

    async create({ conn, spec, harborName, extra, signal }) {
      const body = instanceRequest(spec, harborName, extra.credential);
      // Harbor keeps one instance per endpoint, and says so only with a masked 500.
      const sameEndpoint = (await conn.client.preheat.listInstances({}, { signal })).find(
        (i) => i.name !== harborName && comparableUrl(i.endpoint ?? "") === comparableUrl(spec.endpoint),
      );
      if (sameEndpoint) {
        throw new NotReady(
          ENDPOINT_IN_USE,
          `Harbor's preheat instance "${sameEndpoint.name}" already uses the endpoint ${spec.endpoint}, and Harbor keeps one instance per endpoint; manage that instance instead (spec.name: ${sameEndpoint.name}, creationPolicy: Adopt), or remove it; looking again`,
        );
      }
      if ((await reachable(conn, body, signal)) !== true) {
        throw new ProviderUnreachable(
          `Harbor cannot reach the ${spec.vendor} provider at ${spec.endpoint} (it asks its health endpoint with the credential, and failed); check the endpoint, the credential and that the provider is up. Retrying`,
        );
      }
      await conn.client.preheat.createInstance({ ...body, default: false }, { signal });
      let created = await byName(conn, harborName, signal);
      if (!created) throw new Error(`Harbor created preheat instance "${harborName}" but does not show it`);
      if (spec.default) {
        // Only an update makes it the one default (a create leaves other defaults as they are).
        await conn.client.preheat.updateInstance(
          harborName,
          instanceRequest(spec, harborName, extra.credential, created),
          { signal },
        );
        created = { ...created, default: true };
      }
      return created;
    },

    async update({ conn, spec, harborName, extra, signal }, current) {
      await conn.client.preheat.updateInstance(
        harborName,
        instanceRequest(spec, harborName, extra.credential, current),
        { signal },
      );
      return (await byName(conn, harborName, signal)) ?? current;
    },

    async delete({ conn, signal }, current) {
      try {
        await conn.client.preheat.deleteInstance(current.name ?? "", { signal });
      } catch (e) {
        if (isHarborError(e, "notFound")) return;
        if (isHarborError(e, "precondition"))
          throw new DeletionBlocked(
            `Harbor keeps the instance while preheat policies use it (${e.harborMessage ?? "412"}); delete those policies (their HarborPreheatPolicy resources), and this deletion proceeds; or set deletionPolicy: Orphan`,
          );
        throw e;
      }
    },

    diff: ({ spec, harborName, extra, resource }, o) =>
      diff(spec, harborName, extra.credential, resource.status?.credentialsVersion as string | undefined, o),
    identifies: ({ harborName }, o) => o.name === harborName,
    id: (o) => o.id,
    status: ({ extra }, o) => status(o, extra.credential),

    async afterSync({ conn, spec, signal }, o) {
      const health = await reachable(conn, { id: o.id }, signal);
      if (health === "gone") return {}; // deleted meanwhile: the next reconcile sees it
      return {
        status: { health: health ? "healthy" : "unhealthy" },
        requeueAfterMs: deps.statusRefreshMs,
        // A disabled instance preheats nothing: its provider being away is shown, not waited on.
        ...(health || !spec.enabled
          ? {}
          : {
              notReady: {
                reason: PROVIDER_UNREACHABLE,
                message: `Harbor cannot reach the ${o.vendor} provider at ${o.endpoint}: preheating through "${o.name}" fails until it answers; looking again`,
              },
            }),
      };
    },

    async observeMany(conn, inputs) {
      const found = new Map<number, ObservedInstance>();
      if (inputs.length === 0) return found;
      for (const i of await conn.client.preheat.listInstances()) if (withId(i)) found.set(i.id, i);
      return found;
    },

    claim: (_spec, harborName) => `preheat-instance:${harborName}`,
    setting: (spec) =>
      spec.default
        ? { claim: DEFAULT_INSTANCE_CLAIM, what: "Harbor's default preheat instance (spec.default: true)" }
        : undefined,
    holdsSetting: (s) => s.isDefault === true,
  };
}
