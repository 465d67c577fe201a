// Which Harbor release the emulator models, and every way the modelled releases differ.
//
// The releases: the newest patch of each supported minor that Harbor's swaggers describe (2.13.5,
// 2.14.4, 2.15.2; see ../../../../shared/harbor/HARBOR-API.md §11), 2.12.4 (the release §10 was
// observed on) and 2.10.3 (the minor before the changes of §0 and §8, for tests of older
// behaviour). The newest is the default.
//
// CHANGES is the one place where a difference is keyed by release: each entry names the first
// release that has it. Areas ask `world.version.has("<change>")`, and routes that exist only
// from or until a release say so with `since`/`until` (router.ts); nothing else compares version
// strings. VERSIONS.md beside this file describes every entry (a test holds the two together).

export const HARBOR_VERSIONS = ["2.15.2", "2.14.4", "2.13.5", "2.12.4", "2.10.3"] as const;
export type HarborVersionName = (typeof HARBOR_VERSIONS)[number];
export const DEFAULT_HARBOR_VERSION: HarborVersionName = "2.15.2";

/** Every difference between the modelled releases: the first release that has it. */
export const CHANGES = {
  /** Project metadata `auto_sbom_generation`. */
  autoSbomGeneration: "2.11",
  /** Robot `duration: 0` is refused (up to 2.10 it meant the default of 30 days). */
  robotZeroDurationRefused: "2.11",
  /** Robot `creator_type` and `creator_ref`. */
  robotCreator: "2.12",
  /** Project metadata `proxy_speed_kb`. */
  proxySpeedKb: "2.12",
  /** Scanner registration `capabilities`. */
  scannerCapabilities: "2.12",
  /** The five project robot v1 operations are gone (404, route not found). */
  robotsV1Removed: "2.13",
  /** Anonymous `GET /systeminfo` no longer shows `harbor_version` and the deployment's details. */
  systemInfoVersionAuthenticated: "2.13",
  /** GC `workers` may be 1–10 (was 1–5). */
  gcTenWorkers: "2.13",
  /** A GC schedule's `job_parameters` (GET /system/gc/schedule) gain `delete_tag: false`. */
  gcDeleteTag: "2.13",
  /** Audit-log purge takes `include_event_types` (event types), not `include_operations`. */
  purgeEventTypes: "2.13",
  /**
   * `/auditlog-exts` (system and per project) and `/auditlog-exts/events`; writes are recorded
   * there only, so the deprecated `/projects/{p}/logs` shows nothing written after the upgrade.
   */
  auditLogExt: "2.13",
  /** The project roles but project admin lose `log:list`: only a project admin reads a project's log. */
  projectLogAdminOnly: "2.13",
  /** Configuration keys `disabled_audit_log_event_types` and `oidc_logout`. */
  auditLogConfiguration: "2.13",
  /** A preheat policy's scope moves from `scope` into `extra_attrs` (a JSON string). */
  preheatExtraAttrs: "2.13",
  /** Replication policy `single_active_replication`. */
  singleActiveReplication: "2.14",
  /** The adapter lists follow the deployment's REPLICATION_ADAPTER_WHITELIST. */
  adapterWhitelist: "2.14",
  /** Project metadata `max_upstream_conn` (proxy-cache projects). */
  maxUpstreamConn: "2.14.1",
  /**
   * Preheat-instance `auth_info` and scanner `access_credential` are no longer returned; an update
   * without one keeps the stored credential.
   */
  credentialsKept: "2.14.4",
  /** Registry `ca_certificate` (registry, ping and update). */
  registryCaCertificate: "2.15",
  /** Project metadata `proxy_cache_local_on_not_found` (proxy-cache projects). */
  proxyCacheLocalOnNotFound: "2.15.1",
} as const satisfies Record<string, string>;
export type Change = keyof typeof CHANGES;

/**
 * The patch releases that refuse webhook delivery to private addresses (none of the modelled
 * patches does; the `webhookPrivateAddresses: "refuse"` setting models one of these).
 */
export const PRIVATE_WEBHOOK_REFUSAL_PATCHES = ["2.13.6", "2.14.5", "2.15.3"] as const;

export class HarborVersion {
  readonly name: HarborVersionName;
  readonly #parts: number[];

  constructor(name: string = DEFAULT_HARBOR_VERSION) {
    if (!(HARBOR_VERSIONS as readonly string[]).includes(name)) {
      throw new Error(
        `unsupported Harbor version ${name}; the emulator models ${HARBOR_VERSIONS.join(", ")}`,
      );
    }
    this.name = name as HarborVersionName;
    this.#parts = parts(name);
  }

  /** Whether this release has the change (it is the change's first release or newer). */
  has(change: Change): boolean {
    return this.atLeast(CHANGES[change]);
  }

  /** True when this release is `min` ("2.11", "2.12.1") or newer. */
  atLeast(min: string): boolean {
    const want = parts(min);
    for (let i = 0; i < 3; i++) {
      const a = this.#parts[i] ?? 0;
      const b = want[i] ?? 0;
      if (a !== b) return a > b;
    }
    return true;
  }

  /**
   * What an authenticated systeminfo reports as harbor_version: like a real build, the release,
   * a dash and eight hex digits of a commit (here not Harbor's commit: a fixed stand-in per release,
   * so that two emulators of one release say the same).
   */
  get display(): string {
    return `v${this.name}-${BUILD_COMMITS[this.name]}`;
  }
}

/**
 * What an authenticated systeminfo reports where the emulator refuses webhook delivery to private
 * addresses: the patch of the modelled line that brought the refusal ("v2.15.3-e15a3c0e"), whose
 * differences from the modelled patch are that refusal and its project key alone.
 */
export function refusalPatchDisplay(version: HarborVersion): string {
  const line = version.name.replace(/\.\d+$/, "");
  const patch = PRIVATE_WEBHOOK_REFUSAL_PATCHES.find((p) => p.startsWith(`${line}.`));
  if (!patch) throw new Error(`Harbor ${version.name} has no patch that refuses private webhook targets`);
  const [, minor, micro] = patch.split(".");
  return `v${patch}-e${minor}a${micro}c0e`;
}

/** The stand-in commits of `display` (hex, so that a client's `v<semver>-<hex>` parsing is exercised). */
const BUILD_COMMITS: Record<HarborVersionName, string> = {
  "2.15.2": "e15a2c0e",
  "2.14.4": "e14a4c0e",
  "2.13.5": "e13a5c0e",
  "2.12.4": "e12a4c0e",
  "2.10.3": "e10a3c0e",
};

function parts(v: string): number[] {
  return v
    .replace(/^v/, "")
    .split(".")
    .map((p) => Number.parseInt(p, 10) || 0);
}
