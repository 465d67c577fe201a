// How Harbor prints times (a module of its own, so that area helpers used while the World's
// modules load need not import the World).

/** Harbor's time format: RFC 3339, milliseconds, UTC. */
export function harborTime(ms: number): string {
  return new Date(ms).toISOString();
}
/** How Harbor prints a time that was never set (e.g. end_time while running). */
export const ZERO_TIME = "0001-01-01T00:00:00.000Z";
