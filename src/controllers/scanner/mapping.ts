// HarborScannerRegistration ⇄ Harbor scanner registration, as pure functions. Round-trip quirks
// normalised here so nothing flaps: Harbor stores the URL as it normalises a registry's (trailing
// "/" trimmed, http:// added, query dropped), writes "no auth" as "", and omits false flags.
//
// The credential: Harbor 2.12 returns a registration's access_credential as stored, later releases
// never return it. So the credential Secret's resourceVersion last pushed (status.credentialsVersion)
// stands for it, as for registries: another version is drift; and where Harbor does return one, a
// value other than the Secret's is drift too. The value is only compared, never shown.
//
// Harbor's built-in Trivy registration (the installer's) is the only one named "Trivy" (Harbor
// reserves the name) and Harbor refuses every change to it: a spec that differs from it is reported,
// never written.
import { SECRET_USES } from "../../api/common.ts";
import {
  BUILT_IN_SCANNER,
  type HarborScannerRegistrationSpec,
  type HarborScannerRegistrationStatus,
  type ScannerAuthType,
} from "../../api/scanner.ts";
import type {
  ScannerAdapterMetadata,
  ScannerRegistration,
  ScannerRegistrationReq,
} from "../../harbor/scanners.ts";
import { comparableUrl } from "../registry/mapping.ts";
import type { SecretStub, SpecFields } from "../shared/export.ts";

type AuthType = (typeof ScannerAuthType.options)[number];

/** What prepare reads from the credential Secret. The value never leaves the Harbor request. */
export interface ScannerCredential {
  value: string;
  /** The Secret's resourceVersion. */
  version: string;
}

/** A registration Harbor holds, so with its UUID. */
export type ObservedScanner = ScannerRegistration & { uuid: string };

/** Harbor's auth word for the spec's type: "" for None. */
export function harborAuth(type: AuthType): string {
  return type === "None" ? "" : type;
}

/** The spec's auth type for Harbor's word ("" and absent: None). */
export function authType(auth: string | undefined): string {
  return auth ? auth : "None";
}

export function isBuiltIn(r: { name?: string | undefined }): boolean {
  return r.name === BUILT_IN_SCANNER;
}

/**
 * The registration as Harbor takes it, on create and on update (a PUT replaces every setting):
 * the spec's fields, and Harbor's current values where the spec leaves a field unset. A default
 * registration must stay enabled, so one the spec makes default is enabled unless it says otherwise.
 */
export function registrationRequest(
  spec: HarborScannerRegistrationSpec,
  name: string,
  credential: ScannerCredential | undefined,
  current?: ObservedScanner,
): ScannerRegistrationReq {
  const auth = spec.auth ? harborAuth(spec.auth.type) : (current?.auth ?? "");
  // Without auth in the spec, Harbor's credential goes back as Harbor showed it: releases that hide
  // it keep the stored one when the request has none.
  const accessCredential = spec.auth
    ? spec.auth.type === "None"
      ? ""
      : (credential?.value ?? "")
    : (current?.access_credential ?? "");
  return {
    name,
    url: spec.url ?? current?.url ?? "",
    description: spec.description ?? current?.description ?? "",
    auth: auth as ScannerRegistrationReq["auth"],
    ...(accessCredential === "" ? {} : { access_credential: accessCredential }),
    skip_certVerify: spec.skipCertVerify ?? current?.skip_certVerify ?? false,
    use_internal_addr: spec.useInternalAddr ?? current?.use_internal_addr ?? false,
    disabled: spec.disabled ?? (spec.default ? false : (current?.disabled ?? false)),
  };
}

/**
 * The spec fields whose Harbor value differs. `recordedVersion` is the credential version the status
 * shows as pushed; another version of the Secret is drift of the (unreadable) credential.
 */
export function diff(
  spec: HarborScannerRegistrationSpec,
  name: string,
  credential: ScannerCredential | undefined,
  recordedVersion: string | undefined,
  r: ScannerRegistration,
): string[] {
  const out: string[] = [];
  if ((r.name ?? "") !== name) out.push("name");
  if (spec.url !== undefined && comparableUrl(r.url ?? "") !== comparableUrl(spec.url)) out.push("url");
  if (spec.description !== undefined && (r.description ?? "") !== spec.description) out.push("description");
  if (spec.auth) {
    if (authType(r.auth) !== spec.auth.type) out.push("auth.type");
    else if (spec.auth.type !== "None" && credential && credentialDrifted(credential, recordedVersion, r))
      out.push("auth.secretRef");
  }
  if (spec.skipCertVerify !== undefined && (r.skip_certVerify ?? false) !== spec.skipCertVerify)
    out.push("skipCertVerify");
  if (spec.useInternalAddr !== undefined && (r.use_internal_addr ?? false) !== spec.useInternalAddr)
    out.push("useInternalAddr");
  const disabled = spec.disabled ?? (spec.default ? false : undefined);
  if (disabled !== undefined && (r.disabled ?? false) !== disabled) out.push("disabled");
  if (spec.default && r.is_default !== true) out.push("default");
  return out;
}

function credentialDrifted(
  credential: ScannerCredential,
  recordedVersion: string | undefined,
  r: ScannerRegistration,
): boolean {
  const shown = r.access_credential ?? "";
  return recordedVersion !== credential.version || (shown !== "" && shown !== credential.value);
}

/**
 * Why the built-in registration cannot match the spec: the drifted fields with Harbor's values
 * (never a credential); undefined when only the default differs, which Harbor does let change.
 */
export function builtInProblem(
  spec: HarborScannerRegistrationSpec,
  r: ScannerRegistration,
  drift: readonly string[],
): string | undefined {
  const fixed = drift.filter((f) => f !== "default");
  if (fixed.length === 0) return undefined;
  const harborHas: Record<string, unknown> = {
    url: r.url ?? "",
    description: r.description ?? "",
    "auth.type": authType(r.auth),
    "auth.secretRef": "its own credential",
    skipCertVerify: r.skip_certVerify ?? false,
    useInternalAddr: r.use_internal_addr ?? false,
    disabled: r.disabled ?? false,
  };
  const fields = fixed.map((f) => {
    const have = harborHas[f];
    return `spec.${f} (Harbor has ${typeof have === "string" && f !== "auth.secretRef" ? JSON.stringify(have) : String(have)})`;
  });
  const why = spec.default && fixed.includes("disabled") ? " (a default scanner is enabled)" : "";
  return `"${BUILT_IN_SCANNER}" is Harbor's built-in scanner registration, which Harbor lets nobody change (it answers 403, immutable); the spec differs in ${fields.join(", ")}${why}. Make these fields match Harbor's values or leave them out of the spec: only spec.default can be applied to it`;
}

/** Status fields from the registration: whether it is Harbor's default, and the credential pushed. */
export function status(
  r: ScannerRegistration,
  credential: ScannerCredential | undefined,
): Partial<HarborScannerRegistrationStatus> {
  return {
    isDefault: r.is_default === true,
    ...(isBuiltIn(r) ? { builtIn: true } : {}),
    ...(credential ? { credentialsVersion: credential.version } : {}),
  };
}

/**
 * Status fields from the adapter's metadata, as Harbor relays it; undefined metadata: Harbor could
 * not reach the adapter (what it reported before stays).
 */
export function adapterStatus(
  metadata: ScannerAdapterMetadata | undefined,
): Partial<HarborScannerRegistrationStatus> {
  if (!metadata) return { health: "unhealthy" };
  const scanner = metadata.scanner ?? {};
  // A capability without a type is a vulnerability scanner (adapters from before SBOM support).
  const types = [...new Set((metadata.capabilities ?? []).map((c) => c.type || "vulnerability"))];
  return {
    health: "healthy",
    adapter: {
      ...(scanner.name ? { name: scanner.name } : {}),
      ...(scanner.vendor ? { vendor: scanner.vendor } : {}),
      ...(scanner.version ? { version: scanner.version } : {}),
    },
    capabilities: types,
  };
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of registrationRequest and diff; see shared/export.ts)

/** The Secret stub a registration's credential reads, named after its resource. */
export const scannerCredentialSecretName = (resourceName: string) => `${resourceName}-credential`;

/**
 * The spec that reproduces a registration: every field as Harbor holds it (false flags included),
 * whether it is Harbor's default, and for an adapter Harbor authenticates to, the auth type with a
 * Secret stub for the credential (never its value: releases after 2.12 do not show it, and files
 * never hold it).
 */
export function specFromRegistration(
  r: ScannerRegistration,
  resourceName: string,
): { spec: SpecFields<typeof HarborScannerRegistrationSpec>; secrets: SecretStub[]; notes: string[] } {
  const name = r.name ?? "";
  const type = authType(r.auth);
  const spec: SpecFields<typeof HarborScannerRegistrationSpec> = {
    name,
    url: r.url ?? "",
    ...(r.description ? { description: r.description } : {}),
    auth: { type: type as AuthType },
    skipCertVerify: r.skip_certVerify ?? false,
    useInternalAddr: r.use_internal_addr ?? false,
    disabled: r.disabled ?? false,
    default: r.is_default === true,
  };
  const secrets: SecretStub[] = [];
  const notes: string[] = [];
  if (type !== "None") {
    const secretName = scannerCredentialSecretName(resourceName);
    spec.auth = { type: type as AuthType, secretRef: { name: secretName } };
    secrets.push({
      name: secretName,
      values: { credential: "" },
      usableAs: SECRET_USES.scannerCredential,
      comment: `The ${type} credential Harbor sends to scanner "${name}" at ${r.url ?? ""}${type === "Basic" ? " (user:password)" : ""}.`,
    });
    notes.push(
      `it reads Secret ${secretName}: fill in credential; Harbor never shows a stored credential, so the operator pushes it once when it adopts the registration`,
    );
  }
  if (isBuiltIn(r))
    notes.push(
      `"${BUILT_IN_SCANNER}" is Harbor's built-in registration: it can only be adopted, and only spec.default can change`,
    );
  return { spec, secrets, notes };
}
