// Which Harbor release a connection reaches, as the kinds ask it. One function reads it
// (`harborRelease`), so that where the release comes from is decided here alone: today the version
// the connection's check recorded (status.harborVersion, e.g. "v2.15.2-e15a2c0e").
//
// A kind asks `release?.atLeast("2.13")` with the first release that has what it needs, named by a
// constant beside its mapping; an unknown release (undefined: not reported, or not of the form
// "v2.13.5-…") is for each kind to decide, and every kind says what it does then.
import type { HarborConnectionHandle } from "../connection/handle.ts";

/**
 * Ready=False (Stalled) reason: the spec asks for what the connected Harbor release cannot take
 * (a field it lacks, or one it no longer reads); the message names the field and the release.
 */
export const UNSUPPORTED_BY_HARBOR = "UnsupportedByHarbor";

export interface HarborRelease {
  /** As Harbor reports it, e.g. "v2.15.2-e15a2c0e". */
  readonly version: string;
  /** Whether this release is `min` ("2.13", "2.14.4") or newer. */
  atLeast(min: string): boolean;
}

/** The release behind the connection, or undefined when it is not known. */
export function harborRelease(
  conn: Pick<HarborConnectionHandle, "harborVersion">,
): HarborRelease | undefined {
  const version = conn.harborVersion ?? "";
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version);
  if (!m) return undefined;
  const have = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  return {
    version,
    atLeast(min) {
      const want = min.split(".").map((p) => Number.parseInt(p, 10) || 0);
      for (let i = 0; i < 3; i++) {
        const a = have[i] ?? 0;
        const b = want[i] ?? 0;
        if (a !== b) return a > b;
      }
      return true;
    },
  };
}
