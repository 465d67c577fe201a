// HarborPreheatInstance ⇄ Harbor P2P provider instance, as pure functions.
//
// The credential: the Secret's resourceVersion last pushed (status.credentialsVersion) stands for
// it, as for registries and scanners: another version is drift. Up to 2.14.3 Harbor returns an
// instance's auth_info as stored, so there a value other than the Secret's is drift too (compared,
// never shown). From 2.14.4 (2.15.1) Harbor leaves auth_info out of reads: what Harbor does not
// show is not compared, or every drift sweep would push the credential again.
import { SECRET_USES } from "../../api/common.ts";
import {
  type HarborPreheatInstanceSpec,
  type HarborPreheatInstanceStatus,
  PreheatAuthMode,
  PreheatVendor,
} from "../../api/preheat-instance.ts";
import type { PreheatInstance, PreheatInstanceReq } from "../../harbor/preheat.ts";
import { comparableUrl } from "../registry/mapping.ts";
import type { SecretStub, SpecFields } from "../shared/export.ts";

/** What prepare reads from the credential Secret. The values never leave the Harbor request. */
export interface PreheatCredential {
  /** Harbor's auth_info: {username, password} for BASIC, {token} for OAUTH. */
  info: Record<string, string>;
  /** The Secret's resourceVersion. */
  version: string;
}

/** An instance Harbor holds, so with its id. */
export type ObservedInstance = PreheatInstance & { id: number };

/** The instance as Harbor takes it on create and update (a PUT replaces every setting). */
export function instanceRequest(
  spec: HarborPreheatInstanceSpec,
  name: string,
  credential: PreheatCredential | undefined,
  current?: ObservedInstance,
): PreheatInstanceReq {
  return {
    ...(current ? { id: current.id } : {}),
    name,
    description: spec.description ?? current?.description ?? "",
    vendor: spec.vendor,
    endpoint: spec.endpoint,
    auth_mode: spec.auth.mode,
    auth_info: spec.auth.mode === "NONE" ? {} : (credential?.info ?? {}),
    enabled: spec.enabled,
    // A PUT that says default makes this the only default; one that does not, keeps what Harbor has.
    default: spec.default || (current?.default ?? false),
    insecure: spec.insecure,
  };
}

const sameInfo = (a: Record<string, string> | null | undefined, b: Record<string, string>) => {
  const x = a ?? {};
  const keys = new Set([...Object.keys(x), ...Object.keys(b)]);
  for (const k of keys) if (x[k] !== b[k]) return false;
  return true;
};

/** Whether Harbor showed a credential: absent (2.14.4 on) or empty is none to compare. */
const shown = (info: Record<string, string> | null | undefined): info is Record<string, string> =>
  info != null && Object.keys(info).length > 0;

/** The spec fields whose Harbor value differs. */
export function diff(
  spec: HarborPreheatInstanceSpec,
  name: string,
  credential: PreheatCredential | undefined,
  recordedVersion: string | undefined,
  o: PreheatInstance,
): string[] {
  const out: string[] = [];
  if ((o.name ?? "") !== name) out.push("name");
  if (spec.description !== undefined && (o.description ?? "") !== spec.description) out.push("description");
  if ((o.vendor ?? "") !== spec.vendor) out.push("vendor");
  if (comparableUrl(o.endpoint ?? "") !== comparableUrl(spec.endpoint)) out.push("endpoint");
  if ((o.auth_mode || "NONE") !== spec.auth.mode) out.push("auth.mode");
  else if (
    spec.auth.mode !== "NONE" &&
    credential &&
    (recordedVersion !== credential.version ||
      (shown(o.auth_info) && !sameInfo(o.auth_info, credential.info)))
  )
    out.push("auth.secretRef");
  if ((o.enabled ?? false) !== spec.enabled) out.push("enabled");
  if (spec.default && o.default !== true) out.push("default");
  if ((o.insecure ?? false) !== spec.insecure) out.push("insecure");
  return out;
}

export function status(
  o: PreheatInstance,
  credential: PreheatCredential | undefined,
): Partial<HarborPreheatInstanceStatus> {
  return {
    isDefault: o.default === true,
    ...(credential ? { credentialsVersion: credential.version } : {}),
  };
}

/** The Secret keys each auth mode reads, as Harbor's auth_info names them. */
export const CREDENTIAL_KEYS = { BASIC: ["username", "password"], OAUTH: ["token"] } as const;

/** The Secret of an exported instance's credential. */
export const preheatCredentialSecretName = (resourceName: string) => `${resourceName}-credential`;

/**
 * The spec that reproduces an instance: every field as Harbor holds it, and for a provider Harbor
 * authenticates to, the auth mode with a Secret stub (the BASIC username, no secret, filled in; the
 * password or token never: Harbor shows them, but they stay out of files).
 */
export function specFromInstance(
  i: PreheatInstance,
  resourceName: string,
):
  | { spec: SpecFields<typeof HarborPreheatInstanceSpec>; secrets: SecretStub[]; notes: string[] }
  | { skip: string } {
  const name = i.name ?? "";
  const vendor = PreheatVendor.safeParse(i.vendor);
  if (!vendor.success) return { skip: `Harbor's provider "${i.vendor}" is not one a spec can name` };
  const mode = PreheatAuthMode.safeParse(i.auth_mode || "NONE");
  if (!mode.success) return { skip: `auth mode "${i.auth_mode}" is not one a spec can hold` };
  const spec: SpecFields<typeof HarborPreheatInstanceSpec> = {
    name,
    vendor: vendor.data,
    endpoint: i.endpoint ?? "",
    ...(i.description ? { description: i.description } : {}),
    auth: { mode: mode.data },
    enabled: i.enabled ?? false,
    default: i.default === true,
    insecure: i.insecure ?? false,
  };
  if (mode.data === "NONE") return { spec, secrets: [], notes: [] };
  const secretName = preheatCredentialSecretName(resourceName);
  spec.auth = { mode: mode.data, secretRef: { name: secretName } };
  const values: Record<string, string> =
    mode.data === "BASIC" ? { username: i.auth_info?.username ?? "", password: "" } : { token: "" };
  return {
    spec,
    secrets: [
      {
        name: secretName,
        values,
        usableAs: SECRET_USES.preheatCredential,
        comment: `The ${mode.data} credential Harbor sends to the ${vendor.data} provider "${name}" at ${i.endpoint ?? ""}.`,
      },
    ],
    notes: [
      `it reads Secret ${secretName}: fill in ${mode.data === "BASIC" ? "password" : "token"}; until it holds Harbor's value, the operator pushes it when it adopts the instance`,
    ],
  };
}
