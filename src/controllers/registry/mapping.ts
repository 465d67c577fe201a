// HarborRegistry ⇄ Harbor registry, as pure functions. Round-trip quirks normalised here so nothing
// flaps: Harbor rewrites the URL (trims spaces and trailing "/", drops query and fragment, lower-cases
// the scheme, unescapes the path), keeps a credential only when it has an access key, and masks the
// secret as "*****". The secret's drift is invisible, so the credentials Secret's resourceVersion
// last pushed (status.credentialsVersion) stands in for it: another version is drift.
import { readableCertificates, SECRET_USES } from "../../api/common.ts";
import type { HarborRegistrySpec, HarborRegistryStatus } from "../../api/registry.ts";
import { RegistryCredentialType } from "../../harbor/model/enums.ts";
import type { Registry, RegistryCreate, RegistryUpdate } from "../../harbor/registries.ts";
import type { SecretStub, SpecFields } from "../shared/export.ts";
import type { ReleaseField } from "../shared/release-fields.ts";

/** What prepare reads from the credentials Secret. Values never leave the Harbor request. */
export interface RegistryCredentials {
  accessKey: string;
  accessSecret: string;
  /** The Secret's resourceVersion. */
  version: string;
}

/**
 * A URL in the form Harbor stores it (lib.ValidateHTTPURL), made idempotent: Harbor trims trailing
 * "/" before it drops the query, so "https://r/v2/?x" is stored as "https://r/v2/", which it would
 * store again as "https://r/v2". Spec and Harbor compare equal through this form.
 */
export function comparableUrl(raw: string): string {
  const s = raw.trim();
  const withScheme = s.includes("://") ? s : `http://${s}`;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)/.exec(withScheme);
  if (!m) return s;
  const path = unescapePath(m[3] as string).replace(/\/+$/, "");
  return `${(m[1] as string).toLowerCase()}://${m[2]}${path}`;
}

/** Go's url.Path is unescaped; a path that is not valid escaping stays as written. */
function unescapePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export function createRequest(
  spec: HarborRegistrySpec,
  name: string,
  credentials: RegistryCredentials | undefined,
): RegistryCreate {
  return {
    name,
    type: spec.type,
    url: spec.url,
    insecure: spec.insecure,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    ...(spec.caCertificate ? { ca_certificate: spec.caCertificate } : {}),
    ...(spec.credential && credentials
      ? {
          credential: {
            type: spec.credential.type,
            access_key: credentials.accessKey,
            access_secret: credentials.accessSecret,
          },
        }
      : {}),
  };
}

/**
 * A partial update carrying every managed field. Without a credential in the spec, a credential
 * Harbor holds is cleared (Harbor drops a credential whose access key is empty).
 */
export function updateRequest(
  spec: HarborRegistrySpec,
  name: string,
  credentials: RegistryCredentials | undefined,
  current: Registry,
): RegistryUpdate {
  let credential: Partial<RegistryUpdate> = {};
  if (spec.credential && credentials) {
    credential = {
      credential_type: spec.credential.type,
      access_key: credentials.accessKey,
      access_secret: credentials.accessSecret,
    };
  } else if (hasCredential(current)) {
    credential = { access_key: "", access_secret: "" };
  }
  return {
    name,
    url: spec.url,
    insecure: spec.insecure,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    ...(spec.caCertificate === undefined ? {} : { ca_certificate: spec.caCertificate }),
    ...credential,
  };
}

function hasCredential(r: Registry): boolean {
  return (r.credential?.access_key ?? "") !== "";
}

/**
 * Spec fields only some Harbor releases have; "" (none) is what an older Harbor has anyway (see
 * shared/release-fields.ts).
 */
export const REGISTRY_RELEASE_FIELDS: readonly ReleaseField<HarborRegistrySpec>[] = [
  { field: "caCertificate", change: "registryCaCertificate", uses: (s) => (s.caCertificate ?? "") !== "" },
];

/**
 * The spec fields whose Harbor value differs. `recordedVersion` is the credentials version the
 * status shows as pushed; a different current version is drift of the (masked) secret.
 */
export function diff(
  spec: HarborRegistrySpec,
  name: string,
  credentials: RegistryCredentials | undefined,
  recordedVersion: string | undefined,
  registry: Registry,
): string[] {
  const out: string[] = [];
  if ((registry.name ?? "") !== name) out.push("name");
  if ((registry.type ?? "") !== spec.type) out.push("type");
  if (comparableUrl(registry.url ?? "") !== comparableUrl(spec.url)) out.push("url");
  if (spec.description !== undefined && (registry.description ?? "") !== spec.description)
    out.push("description");
  if ((registry.insecure ?? false) !== spec.insecure) out.push("insecure");
  if (spec.caCertificate !== undefined && (registry.ca_certificate ?? "") !== spec.caCertificate)
    out.push("caCertificate");
  if (credentialDrifted(spec, credentials, recordedVersion, registry)) out.push("credential");
  return out;
}

function credentialDrifted(
  spec: HarborRegistrySpec,
  credentials: RegistryCredentials | undefined,
  recordedVersion: string | undefined,
  registry: Registry,
): boolean {
  if (!spec.credential || !credentials) return hasCredential(registry);
  return (
    !hasCredential(registry) ||
    (registry.credential?.type || "basic") !== spec.credential.type ||
    registry.credential?.access_key !== credentials.accessKey ||
    recordedVersion !== credentials.version
  );
}

/** Status fields: Harbor's health view, and the credentials version now in Harbor. */
export function status(
  registry: Registry,
  credentials: RegistryCredentials | undefined,
): Partial<HarborRegistryStatus> {
  return {
    ...(registry.status ? { health: registry.status } : {}),
    ...(credentials ? { credentialsVersion: credentials.version } : {}),
  };
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of createRequest and updateRequest; see shared/export.ts)

/** What the export writes for a registry, or why it cannot. */
export type RegistryExport =
  | { spec: SpecFields<typeof HarborRegistrySpec>; secrets: SecretStub[]; notes: string[] }
  | { skip: string };

/** The Secret stub a registry's credential reads, named after its resource. */
export const credentialSecretName = (resourceName: string) => `${resourceName}-credentials`;

/**
 * The spec that reproduces a registry: name, type, URL (as Harbor stores it), description,
 * insecure, and — when Harbor holds a credential — its type and a Secret reference, with a stub
 * Secret to fill in (Harbor never shows the secret, and the access key is kept out of files too).
 */
export function specFromRegistry(registry: Registry, resourceName: string): RegistryExport {
  const name = registry.name ?? "";
  const url = registry.url ?? "";
  if (!/^https?:\/\/\S+$/.test(url) || /^[^:/?#]+:\/\/[^/?#]*@/.test(url))
    return { skip: `registry ${name} has the URL "${url}", which the CRD does not accept` };
  const spec: SpecFields<typeof HarborRegistrySpec> = {
    name,
    type: registry.type ?? "",
    url,
    description: registry.description ?? "",
    insecure: registry.insecure ?? false,
  };
  const secrets: SecretStub[] = [];
  const notes: string[] = [];
  // Only a release that has it shows it.
  const ca = registry.ca_certificate ?? "";
  if (ca !== "" && readableCertificates(ca)) spec.caCertificate = ca;
  else if (ca !== "")
    notes.push("caCertificate is left unmanaged: Harbor holds no PEM certificate the CRD accepts");
  if (hasCredential(registry)) {
    const type = RegistryCredentialType.safeParse(registry.credential?.type || "basic");
    if (!type.success)
      return {
        skip: `registry ${name} has a credential of type "${registry.credential?.type}", which the CRD does not know`,
      };
    const secretName = credentialSecretName(resourceName);
    spec.credential = { type: type.data, secretRef: { name: secretName } };
    secrets.push({
      name: secretName,
      values: { accessKey: "", accessSecret: "" },
      usableAs: SECRET_USES.registryCredential,
      comment: `The access key and secret Harbor uses to log in to registry "${name}" at ${url}.`,
    });
    notes.push(
      `it reads Secret ${secretName}: fill in accessKey and accessSecret; Harbor never shows the secret, so the operator pushes them once when it adopts the registry`,
    );
  }
  return { spec, secrets, notes };
}
