// Which Harbor release the tests' emulators model when a test does not pin one
// (`useEmulator({ harborVersion })`): the file emulators of the harbor, cli and cluster projects
// (useEmulator, useOperator) and the cluster project's shared emulators (global-setup.ts).
import { DEFAULT_HARBOR_VERSION } from "./emulator/version.ts";

/**
 * The tests' release: the emulator's default, the newest modelled. This line is the one place to
 * pin every test that does not choose its own release to another one (e.g. "2.14.4" while the
 * operator is not ready for the newest).
 */
const TESTS_HARBOR_VERSION: string = DEFAULT_HARBOR_VERSION;

/**
 * The release for an emulator a test helper starts: HCO_HARBOR_VERSION when set (the per-release
 * vitest projects set it; an unknown release is refused when the emulator starts), else the tests'
 * release above. Read at each start, not at import: workers share modules between files.
 */
export function testHarborVersion(): string {
  return process.env.HCO_HARBOR_VERSION || TESTS_HARBOR_VERSION;
}
