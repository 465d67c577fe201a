// HarborScannerRegistration's ExternalClient: how a scanner registration is observed, created,
// updated and deleted in Harbor. Choices where Harbor leaves room:
// - Harbor pings the adapter (<url>/api/v1/metadata) before it registers one, and answers an
//   unreachable adapter with a bare 500. A create that fails so is followed by Harbor's own ping of
//   the same settings: when that fails too, the adapter is the cause (reason ScannerUnreachable,
//   retried with backoff); otherwise Harbor's failure is reported as such.
// - Harbor's default scanner is a per-Harbor setting: `default: true` takes it as a singleton claim
//   besides the registration's own (see `setting`), held by the resource whose status shows it is
//   the default. `false` manages nothing: Harbor has no way to unset a default, only to move it.
// - The credential is read in prepare, only from a Secret that opts in as a scanner credential
//   (shared/secret-uses.ts: Harbor sends it to the URL of the spec's choosing); it goes only into
//   Harbor requests. Harbor does not show it back (2.12 does, later releases do not), so a changed
//   Secret is pushed again like a registry's credential (status.credentialsVersion).
// - The adapter's health, name, vendor, version and capabilities come from Harbor's metadata call,
//   read after each reconcile (afterSync) and every --status-refresh-interval: a registration whose
//   adapter Harbor cannot reach is Ready=False, reason ScannerUnreachable, and looked at again.
// - Harbor's built-in Trivy registration cannot be changed or deleted (403, immutable): adopted, a
//   spec that differs from it is Stalled (BuiltInScanner) naming the fields and Harbor's values,
//   only `default` is applied, and deleting the resource leaves it in Harbor (Event Orphaned).
//
// Harbor requests: a new registration converges in three (the list of registrations, in which its
// name is looked up and which tells whether it becomes Harbor's first and so default one; the
// create; the metadata), plus one to make it the default when Harbor has another; a reconcile of a
// registration in sync reads two (the registration and its metadata); the drift sweep lists the
// registrations once per connection (100 per page: one request).
import { SECRET_USES } from "../../api/common.ts";
import type { HarborScannerRegistrationSpec, HarborScannerRegistrationStatus } from "../../api/scanner.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type {
  ScannerAdapterMetadata,
  ScannerRegistration,
  ScannerRegistrationReq,
} from "../../harbor/scanners.ts";
import { type ExternalClient, NotReady, Stalled } from "../../runtime/external-client.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import type { SecretUses } from "../shared/secret-uses.ts";
import {
  adapterStatus,
  builtInProblem,
  diff,
  isBuiltIn,
  type ObservedScanner,
  registrationRequest,
  type ScannerCredential,
  status,
} from "./mapping.ts";

/** Ready=False reason: Harbor cannot reach the adapter; retried. */
export const SCANNER_UNREACHABLE = "ScannerUnreachable";
/** Stalled reason: the adopted built-in Trivy registration differs from the spec. */
export const BUILT_IN_SCANNER_REASON = "BuiltInScanner";
/** Ready=False reason: the spec disables Harbor's default registration, which Harbor keeps enabled. */
export const DEFAULT_SCANNER_DISABLED = "DefaultScannerDisabled";

/** The per-Harbor setting `default: true` takes. */
export const DEFAULT_SCANNER_CLAIM = "scanner-default";

export interface ScannerExtra {
  /** Absent without auth in the spec (or with None), and while the resource is being deleted. */
  credential?: ScannerCredential;
  /**
   * What the lookup by name saw: how many registrations Harbor had (its first one becomes the
   * default). Filled by observe, read by create of the same reconcile.
   */
  lookup: { registrations?: number };
}

/** Harbor cannot reach the adapter; retried with backoff. */
export class ScannerUnreachable extends Error {
  override readonly name = "ScannerUnreachable";
}

type Client = ExternalClient<
  HarborScannerRegistrationSpec,
  ObservedScanner,
  HarborConnectionHandle,
  ScannerExtra,
  HarborScannerRegistrationStatus,
  string
>;

export interface ScannerExternalDeps {
  secrets: SecretUses;
  /** How often the adapter's health is looked at besides reconciles. */
  statusRefreshMs: number;
}

/**
 * A registration with its UUID (Harbor always sends one). A credential Harbor shows stays in memory,
 * only to be compared with the Secret's and sent back when the spec leaves auth to Harbor.
 */
function observed(r: ScannerRegistration): ObservedScanner {
  return { ...r, uuid: r.uuid ?? "" };
}

export function scannerExternal(deps: ScannerExternalDeps): Client {
  const get = async (conn: HarborConnectionHandle, uuid: string, signal: AbortSignal) => {
    try {
      return observed({ uuid, ...(await conn.client.scanners.get(uuid, { signal })) });
    } catch (e) {
      if (isHarborError(e, "notFound")) return undefined;
      throw e;
    }
  };

  const readCredential = async (
    namespace: string,
    ref: NonNullable<NonNullable<HarborScannerRegistrationSpec["auth"]>["secretRef"]>,
  ): Promise<ScannerCredential> => {
    const secret = await deps.secrets.read(namespace, ref.name, SECRET_USES.scannerCredential);
    if (!secret) throw new NotReady("SecretNotFound", `Secret ${ref.name} does not exist`);
    const value = secret.values[ref.key];
    if (!value) throw new NotReady("SecretInvalid", `Secret ${ref.name} has no value for ${ref.key}`);
    return { value, version: secret.object.metadata.resourceVersion ?? "" };
  };

  /** Harbor's 500 on create: the adapter, when Harbor's own ping of the settings fails the same way. */
  const explainCreateFailure = async (
    conn: HarborConnectionHandle,
    body: ScannerRegistrationReq,
    e: unknown,
    signal: AbortSignal,
  ): Promise<never> => {
    if (!isHarborError(e, "server")) throw e;
    try {
      await conn.client.scanners.ping(
        {
          name: body.name,
          url: body.url,
          ...(body.auth === undefined ? {} : { auth: body.auth }),
          ...(body.access_credential === undefined ? {} : { access_credential: body.access_credential }),
        },
        { signal },
      );
    } catch (ping) {
      if (isHarborError(ping, "server")) {
        throw new ScannerUnreachable(
          `Harbor cannot reach the scanner adapter at ${body.url} (it asks ${body.url.replace(/\/+$/, "")}/api/v1/metadata before it registers a scanner, and answered ${ping.status ?? "an error"}); check the URL, the credential and that the adapter is up. Retrying`,
        );
      }
    }
    throw e;
  };

  /** The adapter's metadata through Harbor; undefined when Harbor cannot reach the adapter. */
  const readMetadata = async (
    conn: HarborConnectionHandle,
    uuid: string,
    signal: AbortSignal,
  ): Promise<ScannerAdapterMetadata | undefined | "gone"> => {
    try {
      return await conn.client.scanners.getMetadata(uuid, { signal });
    } catch (e) {
      if (isHarborError(e, "server")) return undefined;
      if (isHarborError(e, "notFound")) return "gone";
      throw e;
    }
  };

  return {
    async prepare({ resource, spec }) {
      if (resource.metadata.deletionTimestamp) return { lookup: {} };
      const ref = spec.auth?.type === "None" ? undefined : spec.auth?.secretRef;
      if (!ref) return { lookup: {} };
      return { credential: await readCredential(resource.metadata.namespace ?? "", ref), lookup: {} };
    },

    async observe({ conn, knownId, harborName, extra, signal }) {
      if (knownId !== undefined) return get(conn, knownId, signal);
      // A Harbor has a handful of registrations: one page holds them all, and tells create whether
      // the new one will be Harbor's first (and so its default).
      const all = await conn.client.scanners.list({}, { signal });
      extra.lookup.registrations = all.length;
      const found = all.find((r) => r.name === harborName);
      return found && observed(found);
    },

    async create({ conn, spec, harborName, extra, signal }) {
      const body = registrationRequest(spec, harborName, extra.credential);
      let uuid: string;
      try {
        uuid = await conn.client.scanners.create(body, { signal });
      } catch (e) {
        return explainCreateFailure(conn, body, e, signal);
      }
      // Harbor makes its first registration the default; another becomes it when asked.
      let isDefault = extra.lookup.registrations === 0;
      if (spec.default && !isDefault) {
        await conn.client.scanners.setDefault(uuid, { signal });
        isDefault = true;
      }
      // What Harbor stored is what was sent (the adapter answered its ping); no read-back needed.
      return observed({ ...body, uuid, is_default: isDefault });
    },

    async update({ conn, spec, harborName, extra, signal }, current, drift) {
      if (isBuiltIn(current)) {
        const problem = builtInProblem(spec, current, drift);
        if (problem) throw new Stalled(BUILT_IN_SCANNER_REASON, problem);
      } else if (drift.some((f) => f !== "default")) {
        const body = registrationRequest(spec, harborName, extra.credential, current);
        if (current.is_default && body.disabled) {
          throw new NotReady(
            DEFAULT_SCANNER_DISABLED,
            `"${harborName}" is Harbor's default scanner, which Harbor keeps enabled, and spec.disabled is true; make another registration the default (spec.default: true on its HarborScannerRegistration), then this one is disabled`,
          );
        }
        await conn.client.scanners.update(current.uuid, body, { signal });
      }
      if (drift.includes("default")) await conn.client.scanners.setDefault(current.uuid, { signal });
      return (await get(conn, current.uuid, signal)) ?? current;
    },

    async delete({ conn, signal }, current) {
      if (isBuiltIn(current)) {
        return {
          kept: `Left "${current.name}", Harbor's built-in scanner registration, in Harbor: Harbor lets nobody delete it`,
        };
      }
      try {
        await conn.client.scanners.delete(current.uuid, { signal });
      } catch (e) {
        if (isHarborError(e, "notFound")) return;
        throw e;
      }
    },

    diff: ({ spec, harborName, extra, resource }, o) =>
      diff(spec, harborName, extra.credential, resource.status?.credentialsVersion as string | undefined, o),
    identifies: ({ harborName }, o) => o.name === harborName,
    id: (o) => o.uuid,
    status: ({ extra }, o) => status(o, extra.credential),

    async afterSync({ conn, spec, signal }, o) {
      const metadata = await readMetadata(conn, o.uuid, signal);
      if (metadata === "gone") return {}; // deleted meanwhile: the next reconcile sees it
      const disabled = spec.disabled ?? o.disabled ?? false;
      return {
        status: adapterStatus(metadata),
        requeueAfterMs: deps.statusRefreshMs,
        // A disabled registration scans nothing: its adapter being away is shown, not waited on.
        ...(metadata || disabled
          ? {}
          : {
              notReady: {
                reason: SCANNER_UNREACHABLE,
                message: `Harbor cannot reach the scanner adapter at ${o.url ?? spec.url}: scans with "${o.name}" fail until it answers; looking again`,
              },
            }),
      };
    },

    async observeMany(conn, inputs) {
      const found = new Map<string, ObservedScanner>();
      if (inputs.length === 0) return found;
      for (const r of await conn.client.scanners.list()) if (r.uuid) found.set(r.uuid, observed(r));
      return found;
    },

    claim: (_spec, harborName) => `scanner:${harborName}`,
    setting: (spec) =>
      spec.default
        ? { claim: DEFAULT_SCANNER_CLAIM, what: "Harbor's default scanner (spec.default: true)" }
        : undefined,
    holdsSetting: (s) => s.isDefault === true,
  };
}
