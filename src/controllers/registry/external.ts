// HarborRegistry's ExternalClient: how a registry endpoint is observed, created, updated and deleted
// in Harbor. Choices where Harbor leaves room:
// - The provider type is checked against Harbor's own list before any write (Harbor would answer an
//   unknown type with a bare 500): Stalled, reason UnsupportedType, naming the types Harbor knows.
//   The list is read once per connection client and read again only after a miss.
// - Harbor health-checks the remote on create and update and refuses an unreachable one with 400
//   "the registry is unhealthy". The remote may come up, or its credentials may be fixed, so this
//   is retried with backoff (reason RegistryUnhealthy), not Stalled.
// - The credentials Secret is read in prepare, only if it opts in as a registry credential (see
//   shared/secret-uses.ts: Harbor would log in to the URL of the spec's choosing with it); its values
//   go only into Harbor requests. A deleted resource needs neither the Secret nor the type check, so
//   deletion never waits on them.
// - Harbor refuses to delete a registry that a replication policy or a proxy-cache project uses
//   (412): the deletion waits, with Harbor's message, until they are gone.
import { SECRET_USES } from "../../api/common.ts";
import type { HarborRegistrySpec, HarborRegistryStatus } from "../../api/registry.ts";
import type { HarborClient } from "../../harbor/client.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { q } from "../../harbor/query.ts";
import type { Registry } from "../../harbor/registries.ts";
import { DeletionBlocked, type ExternalClient, NotReady, Stalled } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import type { SecretUses } from "../shared/secret-uses.ts";
import { createRequest, diff, type RegistryCredentials, status, updateRequest } from "./mapping.ts";

export interface RegistryExtra {
  /** Absent without a credential in the spec, and while the resource is being deleted. */
  credentials?: RegistryCredentials;
}

/** Harbor could not reach the remote registry; retried with backoff. */
export class RegistryUnhealthy extends Error {
  override readonly name = "RegistryUnhealthy";
}

type Client = ExternalClient<
  HarborRegistrySpec,
  Registry,
  HarborConnectionHandle,
  RegistryExtra,
  HarborRegistryStatus
>;

export function registryExternal(deps: { secrets: SecretUses }): Client {
  /** Provider types per connection client (a new client may talk to another Harbor). */
  const providerTypes = new WeakMap<HarborClient, Promise<string[]>>();

  const checkType = async (conn: HarborConnectionHandle, type: string, signal: AbortSignal) => {
    let types = providerTypes.get(conn.client);
    if (!types) {
      types = conn.client.registries.listProviderTypes({ signal });
      providerTypes.set(conn.client, types);
      types.catch(() => providerTypes.delete(conn.client));
    }
    const known = await types;
    if (known.includes(type)) return;
    providerTypes.delete(conn.client); // read again after the spec changes: Harbor may have been upgraded
    throw new Stalled(
      "UnsupportedType",
      `registry type "${type}" is not supported by this Harbor; it supports: ${known.join(", ")}`,
    );
  };

  const readCredentials = async (
    namespace: string,
    ref: NonNullable<HarborRegistrySpec["credential"]>["secretRef"],
  ): Promise<RegistryCredentials> => {
    const secret = await deps.secrets.read(namespace, ref.name, SECRET_USES.registryCredential);
    if (!secret) throw new NotReady("SecretNotFound", `Secret ${ref.name} does not exist`);
    const missing = [ref.accessKeyKey, ref.accessSecretKey].filter((key) => !secret.values[key]);
    if (missing.length) {
      throw new NotReady("SecretInvalid", `Secret ${ref.name} has no value for ${missing.join(" and ")}`);
    }
    const accessKey = secret.values[ref.accessKeyKey] as string;
    const accessSecret = secret.values[ref.accessSecretKey] as string;
    return { accessKey, accessSecret, version: secret.object.metadata.resourceVersion ?? "" };
  };

  const get = async (conn: HarborConnectionHandle, id: number, signal: AbortSignal) => {
    try {
      return await conn.client.registries.get(id, { signal });
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  /** Harbor's health check failing becomes a retry with a message that says what to check. */
  const healthChecked = async <T>(url: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      if (isHarborError(e, "invalid") && /unhealthy/i.test(e.harborMessage ?? "")) {
        throw new RegistryUnhealthy(
          `Harbor cannot reach the registry at ${url} (${e.harborMessage}); check the URL, the credentials and that the registry is up. Retrying`,
        );
      }
      throw e;
    }
  };

  return {
    async prepare({ resource, spec, conn, signal }) {
      if (resource.metadata.deletionTimestamp) return {};
      await checkType(conn, spec.type, signal);
      if (!spec.credential) return {};
      return {
        credentials: await readCredentials(resource.metadata.namespace ?? "", spec.credential.secretRef),
      };
    },

    async observe({ conn, knownId, harborName, signal }) {
      if (knownId !== undefined) return get(conn, knownId, signal);
      // Harbor's `name` filter matches any name (q cannot express a comma); the exact one is picked here.
      const found = await conn.client.registries.list({ name: harborName }, { signal });
      return found.find((r) => r.name === harborName);
    },

    async create({ conn, spec, harborName, extra, signal }) {
      const id = await healthChecked(spec.url, () =>
        conn.client.registries.create(createRequest(spec, harborName, extra.credentials), { signal }),
      );
      const created = await get(conn, id, signal);
      if (!created) throw new Error(`registry ${harborName} (id ${id}) vanished right after creation`);
      return created;
    },

    async update({ conn, spec, harborName, extra, signal }, current, drift) {
      if (drift.includes("type")) {
        throw new Stalled(
          "TypeMismatch",
          `registry "${harborName}" has type ${current.type} in Harbor, the spec says ${spec.type}; Harbor cannot change a registry's type`,
        );
      }
      await healthChecked(spec.url, () =>
        conn.client.registries.update(
          current.id,
          updateRequest(spec, harborName, extra.credentials, current),
          { signal },
        ),
      );
      return (await get(conn, current.id, signal)) ?? current;
    },

    async delete({ conn, signal }, current) {
      try {
        await conn.client.registries.delete(current.id, { signal });
      } catch (e) {
        if (isHarborError(e, "notFound")) return;
        if (isHarborError(e, "precondition")) {
          throw new DeletionBlocked(
            `Harbor keeps the registry: ${e.harborMessage ?? "it is in use"}. Delete what uses it first, or set deletionPolicy: Orphan`,
          );
        }
        throw e;
      }
    },

    diff: ({ spec, harborName, extra, resource }, observed) =>
      diff(
        spec,
        harborName,
        extra.credentials,
        resource.status?.credentialsVersion as string | undefined,
        observed,
      ),
    identifies: ({ harborName }, observed) => observed.name === harborName,
    id: (observed) => observed.id,
    status: ({ extra }, observed) => status(observed, extra.credentials),

    async observeMany(conn, inputs) {
      const ids = inputs.map((i) => i.knownId).filter((id): id is number => id !== undefined);
      const found = new Map<number, Registry>();
      for (let i = 0; i < ids.length; i += 100) {
        const chunk = ids.slice(i, i + 100);
        for (const r of await conn.client.registries.list({ q: q().union("id", chunk) })) found.set(r.id, r);
      }
      return found;
    },

    claim: (_spec, harborName) => `registry:${harborName}`,
  };
}
