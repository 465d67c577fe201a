// Harbor releases: what a Harbor reports about itself, read as a comparable release; the release
// lines this client is built and tested against; and every difference between them that requests
// follow, keyed by the first release that has it (CHANGES; a change brought by patch releases of
// several lines at once names the first patch of each). Nothing else compares version strings:
// code asks `has(release, "<change>")`.
//
// What a Harbor reports: `/systeminfo`'s harbor_version, "v2.15.2-8ab0c5ba" (release, dash, commit)
// on a build, "v2.12.4" or "2.12.4" in places, "dev" on a build from a branch. A release outside the
// known lines: a newer one is worked with as the newest known (every change known applies to it, and
// the connection's status says that it is newer), an older one is refused (the client relies on
// what 2.12 has), and one that does not say (dev, anything unreadable) is taken as the newest known.
export interface HarborRelease {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** The oldest release line the operator supports; older ones are refused. */
export const OLDEST_SUPPORTED: HarborRelease = { major: 2, minor: 12, patch: 0 };
/**
 * The newest release whose differences the operator knows (the emulator models 2.15.2, and 2.15.3's
 * refusal of private webhook targets): a newer one, or one that does not say which it is, is taken
 * to behave like it.
 */
export const NEWEST_KNOWN: HarborRelease = { major: 2, minor: 15, patch: 3 };

/** Every difference between the supported releases that the operator follows: its first release. */
export const CHANGES = {
  /** GC `workers` may be 1–10 (before: 1–5). */
  gcTenWorkers: "2.13",
  /** Audit-log purge takes `include_event_types` (event types), not `include_operations`. */
  purgeEventTypes: "2.13",
  /** A preheat policy's scope in `extra_attrs` (single_seed_peer, all_seed_peers, all_peers). */
  preheatScopeInExtraAttrs: "2.13",
  /** Configuration keys `disabled_audit_log_event_types` and `oidc_logout`. */
  auditLogConfiguration: "2.13",
  /** Replication policy `single_active_replication`. */
  singleActiveReplication: "2.14",
  /** Project metadata `max_upstream_conn` (proxy-cache projects). */
  maxUpstreamConnections: "2.14.1",
  /** Registry `ca_certificate`. */
  registryCaCertificate: "2.15",
  /** Project metadata `proxy_cache_local_on_not_found` (proxy-cache projects). */
  proxyCacheLocalOnNotFound: "2.15.1",
  /**
   * Project metadata `webhook_allow_private_ip`: these patches refuse webhook delivery to private
   * addresses unless a project allows it (earlier releases deliver anywhere).
   */
  webhookAllowPrivateIP: ["2.13.6", "2.14.5", "2.15.3"],
} as const satisfies Record<string, string | readonly string[]>;
export type HarborChange = keyof typeof CHANGES;

const RELEASE = /^v?(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?(?:[-+][0-9A-Za-z.+-]*)?$/;

/** "v2.15.2-8ab0c5ba", "v2.12.4", "2.13" → the release; "dev", "", anything else → undefined. */
export function parseRelease(text: string | undefined): HarborRelease | undefined {
  const m = RELEASE.exec((text ?? "").trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

/** A change's first release of each line it came to, oldest first; a unit test reads every entry of CHANGES. */
function firstReleases(change: HarborChange): HarborRelease[] {
  const entry: string | readonly string[] = CHANGES[change];
  return (typeof entry === "string" ? [entry] : [...entry])
    .map((text) => {
      const r = parseRelease(text);
      if (!r) throw new Error(`not a Harbor release: ${text}`);
      return r;
    })
    .sort(compareReleases);
}

/** Negative when a is older than b, 0 when the same, positive when newer. */
export function compareReleases(a: HarborRelease, b: HarborRelease): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** "2.14.1". */
export function releaseText(r: HarborRelease): string {
  return `${r.major}.${r.minor}.${r.patch}`;
}

/** "2.14" for a release line. */
export function lineText(r: HarborRelease): string {
  return `${r.major}.${r.minor}`;
}

/**
 * Whether the release has the change: on a line the change names, from that line's first release;
 * on any other line, when the line is newer than every line named.
 */
export function has(r: HarborRelease, change: HarborChange): boolean {
  const firsts = firstReleases(change);
  const sameLine = firsts.find((f) => f.major === r.major && f.minor === r.minor);
  if (sameLine) return compareReleases(r, sameLine) >= 0;
  return compareReleases(r, firsts[firsts.length - 1] as HarborRelease) > 0;
}

/**
 * The change's first release as CHANGES names it ("2.14.1"); for a change of several lines the
 * newest line's, then the others': "2.15.3 (on 2.13: 2.13.6; on 2.14: 2.14.5)".
 */
export function firstReleaseText(change: HarborChange): string {
  const entry: string | readonly string[] = CHANGES[change];
  if (typeof entry === "string") return entry;
  const firsts = firstReleases(change);
  const newest = firsts.pop() as HarborRelease;
  if (!firsts.length) return releaseText(newest);
  return `${releaseText(newest)} (${firsts.map((f) => `on ${lineText(f)}: ${releaseText(f)}`).join("; ")})`;
}

/** How the operator takes the release a Harbor reports. */
export type ReleaseSupport =
  /** A release of a supported line: requests follow it. */
  | { kind: "supported"; release: HarborRelease }
  /** Newer than the newest known line: requests follow it too (every known change applies). */
  | { kind: "newer"; release: HarborRelease }
  /** Harbor said nothing readable (a dev build, no version): taken as NEWEST_KNOWN. */
  | { kind: "unknown"; release: HarborRelease }
  /** Older than the oldest supported line: refused. */
  | { kind: "older"; release: HarborRelease };

export function supportOf(reported: string | undefined): ReleaseSupport {
  const r = parseRelease(reported);
  if (!r) return { kind: "unknown", release: NEWEST_KNOWN };
  if (compareReleases(r, OLDEST_SUPPORTED) < 0) return { kind: "older", release: r };
  const newestLine = { ...NEWEST_KNOWN, patch: Number.MAX_SAFE_INTEGER };
  if (compareReleases(r, newestLine) > 0) return { kind: "newer", release: r };
  return { kind: "supported", release: r };
}

/** The release requests follow for what a Harbor reports (see supportOf). */
export function releaseOf(reported: string | undefined): HarborRelease {
  return supportOf(reported).release;
}

/** "2.12 to 2.15", for messages. */
export const SUPPORTED_LINES = `${lineText(OLDEST_SUPPORTED)} to ${lineText(NEWEST_KNOWN)}`;
