// Which Harbor release the emulator models. 2.12.4 is the default (the release HARBOR-API.md §10
// was observed on); 2.10.3 is the earlier minor whose differences §0 and §8 name: robot
// `duration: 0` means the default 30 days, robots have no creator_type/creator_ref, project metadata
// has no auto_sbom_generation (2.11) or proxy_speed_kb (2.12), scanner registrations no
// capabilities (2.12), and v1 robot create still works. Areas branch on `world.version.atLeast()`.

export const HARBOR_VERSIONS = ["2.12.4", "2.10.3"] as const;
export type HarborVersionName = (typeof HARBOR_VERSIONS)[number];
export const DEFAULT_HARBOR_VERSION: HarborVersionName = "2.12.4";

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

  /** What systeminfo reports as harbor_version (a real build appends its commit). */
  get display(): string {
    return `v${this.name}-emulator`;
  }
}

function parts(v: string): number[] {
  return v
    .replace(/^v/, "")
    .split(".")
    .map((p) => Number.parseInt(p, 10) || 0);
}
