// HarborProject ⇄ Harbor project, as pure functions. Harbor keeps every metadata value as a string
// ("true"/"false" for flags, a lower-cased severity); the spec uses booleans and enums. Fields the
// spec leaves unset are not managed: they are neither sent nor compared.
//
// The storage limit is not part of Harbor's project: project PUT ignores it, and it lives in the
// project's quota (/quotas), which is observed beside the project and compared like any field.
// Whether a project is a proxy cache, and of which registry, Harbor fixes at creation; so does it
// drop content trust on proxy-cache projects: such differences are reported, never "corrected".
import type { HarborProjectSpec, HarborProjectStatus } from "../../api/project.ts";
import { formatStorage, STORAGE_LIMIT, storageBytes } from "../../api/quantity.ts";
import { Severity } from "../../harbor/model/enums.ts";
import type {
  PersistedProject,
  Project,
  ProjectCreate,
  ProjectSummary,
  ProjectUpdate,
} from "../../harbor/projects.ts";
import type { Quota } from "../../harbor/quotas.ts";
import { has, releaseOf } from "../../harbor/release.ts";
import { Stalled } from "../../runtime/external-client.ts";
import { INVALID_SPEC, quoteValue } from "../../runtime/invalid-spec.ts";
import type { SpecFields } from "../shared/export.ts";
import type { ReleaseField } from "../shared/release-fields.ts";

/** A project's quota as the operator sees it: bytes (-1 unlimited), and its id when read from /quotas. */
export interface ObservedQuota {
  id?: number;
  hard?: number;
  used?: number;
}

/** A Harbor project and, when it could be read, its quota: what is compared and shown. */
export type ProjectState = Project & { quota?: ObservedQuota };

/** The scanner Harbor answers for a project: its own, else Harbor's default; null when it has none. */
export interface ObservedProjectScanner {
  uuid: string;
  name?: string | undefined;
  /** It is Harbor's default registration. */
  isDefault: boolean;
}

/**
 * What observe finds: a project Harbor has stored (so with its id), its quota, and its scanner when
 * the spec manages it.
 */
export type ObservedProject = PersistedProject & {
  quota?: ObservedQuota;
  scanner?: ObservedProjectScanner | null;
};

/** Harbor's quota object → what is compared and shown. */
export function quotaFromList(quota: Quota): ObservedQuota {
  return {
    ...(quota.id === undefined ? {} : { id: quota.id }),
    ...(quota.hard?.storage === undefined ? {} : { hard: quota.hard.storage }),
    ...(quota.used?.storage === undefined ? {} : { used: quota.used.storage }),
  };
}

/** The summary's quota (what a caller without system access sees); no id. */
export function quotaFromSummary(summary: ProjectSummary): ObservedQuota | undefined {
  const q = summary.quota;
  if (!q) return undefined;
  return {
    ...(q.hard?.storage === undefined ? {} : { hard: q.hard.storage }),
    ...(q.used?.storage === undefined ? {} : { used: q.used.storage }),
  };
}

type FlagField =
  | "public"
  | "autoScan"
  | "preventVulnerable"
  | "contentTrust"
  | "contentTrustCosign"
  | "autoSbomGeneration"
  | "reuseSystemCveAllowlist"
  | "webhookAllowPrivateIP";

/** Spec flag → Harbor metadata key. */
const FLAGS: ReadonlyArray<[FlagField, string]> = [
  ["public", "public"],
  ["autoScan", "auto_scan"],
  ["preventVulnerable", "prevent_vul"],
  ["contentTrust", "enable_content_trust"],
  ["contentTrustCosign", "enable_content_trust_cosign"],
  ["autoSbomGeneration", "auto_sbom_generation"],
  ["reuseSystemCveAllowlist", "reuse_sys_cve_allowlist"],
  ["webhookAllowPrivateIP", "webhook_allow_private_ip"],
];

/**
 * spec.storageLimit in bytes ("10Gi" → bytes; "unlimited" and "-1" → -1), undefined when unset:
 * the one reading of it, for the create, the drift check and the update. A value Harbor cannot
 * store (the spec's schema refuses it; "1.5" bytes only the operator sees) stalls the resource.
 */
export function storageLimitBytes(spec: { storageLimit?: string | undefined }): number | undefined {
  const text = spec.storageLimit;
  if (text === undefined) return undefined;
  const bytes = storageBytes(text);
  if (bytes === undefined)
    throw new Stalled(INVALID_SPEC, `spec.storageLimit ${quoteValue(text)}: ${STORAGE_LIMIT.message}`);
  return bytes;
}

/** Where the CLI and the tests look for it; it lives with the other quantity helpers. */
export { formatStorage };

/** The proxy-cache settings Harbor keeps as project metadata: spec.proxyCache field → key. */
const PROXY_SETTINGS: ReadonlyArray<["speedKbps" | "maxUpstreamConnections" | "localOnNotFound", string]> = [
  ["speedKbps", "proxy_speed_kb"],
  ["maxUpstreamConnections", "max_upstream_conn"],
  ["localOnNotFound", "proxy_cache_local_on_not_found"],
];

/**
 * Spec fields that map to project metadata only some Harbor releases keep (an older one drops the
 * key without a word, so the field would read as drift forever). For the proxy-cache settings
 * false is what an older Harbor does anyway (the key is absent); for webhookAllowPrivateIP it is
 * true (an older Harbor delivers to any address), and forRelease leaves it out there.
 */
export const PROJECT_RELEASE_FIELDS: readonly ReleaseField<HarborProjectSpec>[] = [
  {
    field: "webhookAllowPrivateIP",
    change: "webhookAllowPrivateIP",
    uses: (s) => s.webhookAllowPrivateIP === false,
    what: "spec.webhookAllowPrivateIP false (webhooks refused private addresses)",
  },
  {
    field: "proxyCache.maxUpstreamConnections",
    change: "maxUpstreamConnections",
    uses: (s) => s.proxyCache?.maxUpstreamConnections !== undefined,
  },
  {
    field: "proxyCache.localOnNotFound",
    change: "proxyCacheLocalOnNotFound",
    uses: (s) => s.proxyCache?.localOnNotFound === true,
  },
];

/**
 * The spec as the connected release can hold it: without webhookAllowPrivateIP where the release
 * has no such key (true is what it does anyway; false is refused before, see
 * PROJECT_RELEASE_FIELDS), so that the key is neither sent nor compared there.
 */
export function forRelease(spec: HarborProjectSpec, harborVersion: string | undefined): HarborProjectSpec {
  if (spec.webhookAllowPrivateIP === undefined || has(releaseOf(harborVersion), "webhookAllowPrivateIP"))
    return spec;
  const { webhookAllowPrivateIP: _kept, ...rest } = spec;
  return rest;
}

/** The metadata the spec manages, as Harbor stores it. */
export function desiredMetadata(spec: HarborProjectSpec): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, key] of FLAGS) {
    const v = spec[field];
    if (v !== undefined) out[key] = v ? "true" : "false";
  }
  if (spec.severity !== undefined) out.severity = spec.severity;
  for (const [field, key] of PROXY_SETTINGS) {
    const v = spec.proxyCache?.[field];
    if (v !== undefined) out[key] = String(v);
  }
  return out;
}

export function createRequest(
  spec: HarborProjectSpec,
  name: string,
  registryId: number | undefined,
): ProjectCreate {
  return {
    project_name: name,
    metadata: desiredMetadata(spec),
    ...(spec.storageLimit === undefined ? {} : { storage_limit: storageLimitBytes(spec) }),
    ...(registryId === undefined ? {} : { registry_id: registryId }),
  };
}

/** PUT body: the managed metadata keys (Harbor merges them) and the allowlist when managed. */
export function updateRequest(spec: HarborProjectSpec, projectId: number): ProjectUpdate {
  return {
    metadata: desiredMetadata(spec),
    ...(spec.cveAllowlist
      ? {
          cve_allowlist: {
            project_id: projectId,
            items: spec.cveAllowlist.items.map((cve_id) => ({ cve_id })),
            expires_at: spec.cveAllowlist.expiresAt
              ? Math.floor(Date.parse(spec.cveAllowlist.expiresAt) / 1000)
              : null,
          },
        }
      : {}),
  };
}

/** Harbor's value for a metadata key, normalised the way Harbor compares it. */
function observedMeta(project: Project, key: string): string {
  const v = (project.metadata as Record<string, string | null | undefined> | undefined)?.[key];
  if (v === undefined || v === null || v === "") return key === "severity" ? "" : "false";
  return key === "severity" ? v.toLowerCase() : v;
}

/**
 * The spec fields whose Harbor value differs. `registryId` is the Harbor id of the spec's proxy-cache
 * registry, when it has one. A limit the spec sets differs from a quota that could not be read: it
 * cannot be shown to hold, and setting it says why.
 */
export function diff(spec: HarborProjectSpec, project: ProjectState, registryId?: number): string[] {
  const out: string[] = [];
  if (spec.proxyCache && registryId !== undefined && (project.registry_id ?? 0) !== registryId)
    out.push("proxyCache");
  for (const [field, key] of FLAGS) {
    const v = spec[field];
    if (v !== undefined && observedMeta(project, key) !== String(v)) out.push(field);
  }
  if (spec.severity !== undefined && observedMeta(project, "severity") !== spec.severity)
    out.push("severity");
  for (const [field, key] of PROXY_SETTINGS) {
    const v = spec.proxyCache?.[field];
    if (v !== undefined && observedMeta(project, key) !== String(v)) out.push(`proxyCache.${field}`);
  }
  if (spec.cveAllowlist) {
    const want = [...new Set(spec.cveAllowlist.items)].sort();
    const have = [...new Set((project.cve_allowlist?.items ?? []).map((i) => i.cve_id ?? ""))].sort();
    const wantExpiry = spec.cveAllowlist.expiresAt
      ? Math.floor(Date.parse(spec.cveAllowlist.expiresAt) / 1000)
      : 0;
    const haveExpiry = project.cve_allowlist?.expires_at ?? 0;
    if (want.join(",") !== have.join(",") || wantExpiry !== haveExpiry) out.push("cveAllowlist");
  }
  const want = storageLimitBytes(spec);
  if (want !== undefined && want !== project.quota?.hard) out.push("storageLimit");
  return out;
}

/**
 * Why Harbor cannot bring the project to the spec, for drifted fields it can never change on an
 * existing project; undefined when every drifted field can be written.
 */
export function unchangeable(
  spec: HarborProjectSpec,
  project: ProjectState,
  drift: readonly string[],
): string | undefined {
  if (drift.includes("proxyCache")) {
    const now = project.registry_id
      ? `caches another registry (id ${project.registry_id})`
      : "is not a proxy cache";
    return `the Harbor project ${now}; Harbor sets that only when a project is created, so spec.proxyCache cannot be applied: remove it from the spec, or delete the project in Harbor to have it created anew`;
  }
  if (drift.includes("contentTrust") && project.registry_id && spec.contentTrust) {
    return "spec.contentTrust: Harbor ignores content trust on proxy-cache projects; remove it from the spec";
  }
  return undefined;
}

/** Status fields from the project and its quota (when read). */
export function status(project: ProjectState): Partial<HarborProjectStatus> {
  const repos = project.repo_count ?? 0;
  const hard = project.quota?.hard;
  const used = project.quota?.used;
  return {
    ...(project.owner_name ? { owner: project.owner_name } : {}),
    repositoryCount: repos,
    deletable: repos === 0,
    ...(hard === undefined && used === undefined
      ? {}
      : {
          quota: {
            ...(hard === undefined ? {} : { hard: formatStorage(hard) }),
            ...(used === undefined ? {} : { used: formatStorage(used) }),
          },
        }),
  };
}

/**
 * "scanner" when the project's scanner is not the one the spec names: `want` is the referenced
 * registration's UUID, or undefined for Harbor's default. A project of a Harbor with no scanner at
 * all has nothing to follow; one whose scanner was not read is not judged.
 */
export function scannerDrift(
  spec: HarborProjectSpec,
  scanner: ObservedProjectScanner | null | undefined,
  want: string | undefined,
): string[] {
  if (!spec.scanner || scanner === undefined) return [];
  if (spec.scanner.registrationRef) return scanner?.uuid === want ? [] : ["scanner"];
  return scanner === null || scanner.isDefault ? [] : ["scanner"];
}

/** status.scanner: shown while the spec manages the scanner (undefined removes it). */
export function scannerStatus(
  spec: HarborProjectSpec,
  scanner: ObservedProjectScanner | null | undefined,
): Pick<HarborProjectStatus, "scanner"> | Record<string, never> {
  if (!spec.scanner) return { scanner: undefined };
  if (scanner === undefined) return {};
  if (scanner === null) return { scanner: undefined };
  return {
    scanner: {
      ...(scanner.name ? { name: scanner.name } : {}),
      uuid: scanner.uuid,
      inherited: scanner.isDefault,
    },
  };
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of createRequest and updateRequest; see shared/export.ts)

/** What the export writes for a project, and what it could not. */
export interface ProjectExport {
  spec: SpecFields<typeof HarborProjectSpec>;
  notes: string[];
}

/**
 * The spec that reproduces a project and its quota, managing every field: each flag (false when
 * Harbor has none), the severity, the CVE allowlist, the storage limit, the proxy cache (by the
 * metadata.name of its registry's resource). `diff` of it against the same project is empty; what
 * the spec cannot hold is left unmanaged and said in `notes`.
 */
export function specFromProject(project: ProjectState, registryRef: string | undefined): ProjectExport {
  const notes: string[] = [];
  const flag = (key: string) => observedMeta(project, key) === "true";
  const spec: SpecFields<typeof HarborProjectSpec> = { name: project.name ?? "" };
  for (const [field, key] of FLAGS) {
    // A proxy cache ignores content trust, and the CRD refuses it there: left as Harbor has it.
    if (field === "contentTrust" && project.registry_id && flag(key)) continue;
    // Only the releases that have it keep the key: managed where it is there.
    if (field === "webhookAllowPrivateIP" && !project.metadata?.webhook_allow_private_ip) continue;
    spec[field] = flag(key);
  }
  const severity = Severity.safeParse(observedMeta(project, "severity"));
  if (severity.success) spec.severity = severity.data;
  if (spec.preventVulnerable && spec.severity === undefined) {
    delete spec.preventVulnerable;
    notes.push("preventVulnerable is left unmanaged: Harbor holds no severity for it");
  }
  const items = [...new Set((project.cve_allowlist?.items ?? []).map((i) => i.cve_id ?? ""))]
    .filter((id) => id !== "")
    .sort();
  const expires = project.cve_allowlist?.expires_at;
  if (items.every((id) => /^\S{1,64}$/.test(id))) {
    spec.cveAllowlist = {
      items,
      ...(expires ? { expiresAt: new Date(expires * 1000).toISOString().replace(/\.\d+Z$/, "Z") } : {}),
    };
  } else notes.push("cveAllowlist is left unmanaged: it holds ids the CRD does not accept");
  const hard = project.quota?.hard;
  if (hard !== undefined) {
    const limit = formatStorage(hard);
    if (storageBytes(limit) !== undefined) spec.storageLimit = limit;
    else
      notes.push(`storageLimit is left unmanaged: Harbor's limit of ${hard} bytes is outside 1 byte to 1Pi`);
  }
  if (project.registry_id) {
    if (registryRef === undefined) {
      notes.push(`the proxy cache's registry (id ${project.registry_id}) is not exported`);
    } else {
      const speed = observedMeta(project, "proxy_speed_kb");
      const upstream = observedMeta(project, "max_upstream_conn");
      const localOnNotFound = project.metadata?.proxy_cache_local_on_not_found;
      spec.proxyCache = {
        registryRef: { name: registryRef },
        ...(/^-?\d+$/.test(speed) ? { speedKbps: Number(speed) } : {}),
        // The releases that have them say so: the keys are there.
        ...(/^-?\d+$/.test(upstream) ? { maxUpstreamConnections: Number(upstream) } : {}),
        ...(localOnNotFound ? { localOnNotFound: localOnNotFound === "true" } : {}),
      };
    }
  }
  return { spec, notes };
}

/**
 * spec.scanner from the scanner Harbor answers for a project (the inverse of scannerDrift): Harbor's
 * default → systemDefault, another registration → a reference to its resource. Unread (undefined)
 * or none at all (null): left unmanaged.
 */
export function scannerSpecFrom(
  scanner: ObservedProjectScanner | null | undefined,
  registrationRef: string | undefined,
): { spec?: NonNullable<HarborProjectSpec["scanner"]>; note?: string } {
  if (!scanner) return {};
  if (scanner.isDefault) return { spec: { systemDefault: true } };
  if (registrationRef === undefined)
    return { note: `the project's scanner (${scanner.name ?? scanner.uuid}) is not exported` };
  return { spec: { registrationRef: { name: registrationRef } } };
}
