// A test hook: with HCO_TEST_CRASH_POINT=<point> the operator kills itself at that point, the way
// a node failure would (SIGKILL: no cleanup, no graceful shutdown). End-to-end tests use it to prove
// that a crash at the worst moment loses nothing. Without the variable it does nothing.
export function crashPoint(point: string): void {
  if (process.env.HCO_TEST_CRASH_POINT === point) process.kill(process.pid, "SIGKILL");
}
