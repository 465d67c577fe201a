// Which Harbor release a connection reaches, as the kinds ask it: the version the connection's
// check recorded (status.harborVersion, e.g. "v2.15.2-e15a2c0e"), taken as src/harbor/release.ts
// takes it (one that names no release counts as the newest known; an older release than the
// oldest supported never gets this far, its connection is refused).
//
// A kind asks `release.atLeast(CHANGES.<change>)` with the first release that has what it needs.
import { compareReleases, parseRelease, releaseOf } from "../../harbor/release.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";

export { UNSUPPORTED_BY_HARBOR } from "./release-fields.ts";

export interface HarborRelease {
  /**
   * As Harbor reports it, e.g. "v2.15.2-e15a2c0e", for messages; a phrase when it names none, which
   * releaseOf takes as the newest known release, as it takes the missing version.
   */
  readonly version: string;
  /** Whether this release is `min` ("2.13", "2.14.4") or newer. */
  atLeast(min: string): boolean;
}

/** The release behind the connection. */
export function harborRelease(conn: Pick<HarborConnectionHandle, "harborVersion">): HarborRelease {
  const release = releaseOf(conn.harborVersion);
  return {
    version: conn.harborVersion || "of a release it does not name",
    atLeast(min) {
      const want = parseRelease(min);
      if (!want) throw new Error(`not a Harbor release: ${min}`);
      return compareReleases(release, want) >= 0;
    },
  };
}
