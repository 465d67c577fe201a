// HarborPreheatInstance ⇄ Harbor P2P provider instance, as pure functions.
//
// Harbor returns an instance's auth_info as stored, the credential included, so the Secret's value
// is compared with it (never shown), and the Secret's resourceVersion last pushed
// (status.credentialsVersion) counts too, as for registries and scanners.
import type { HarborPreheatInstanceSpec, HarborPreheatInstanceStatus } from "../../api/preheat-instance.ts";
import type { PreheatInstance, PreheatInstanceReq } from "../../harbor/preheat.ts";
import { comparableUrl } from "../registry/mapping.ts";

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
    (recordedVersion !== credential.version || !sameInfo(o.auth_info, credential.info))
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
