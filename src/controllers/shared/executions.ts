// What kinds read of Harbor's executions of a system job (GC, audit-log purge): their parameters,
// which Harbor sends as a JSON string, and how soon to look again at one that is still running.

/** job_parameters is a JSON string; anything unreadable counts as no parameters. */
export function jobParameters(h: { job_parameters?: string | undefined }): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(h.job_parameters ?? "{}");
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The final statuses of an execution as Harbor's GC and purge history show them. */
export const FINAL_STATUSES: readonly string[] = ["Success", "Error", "Stopped"];

/** How long to wait before looking at a running execution again: a quarter of its age, 1 to 5 s. */
export function followDelayMs(startTime: string | undefined, nowMs: number): number {
  const started = Date.parse(startTime ?? "");
  const age = Number.isNaN(started) ? 0 : Math.max(0, nowMs - started);
  return Math.min(5000, Math.max(1000, Math.round(age / 4)));
}
