// HarborAuditLogPurge's exporter (see shared/export.ts): Harbor's one purge schedule, in one read,
// with the system info (which release: what a folder's spec is compared in) and, from 2.13, the
// event types Harbor lists. No schedule is Harbor's default: no resource is written (a folder's is
// still compared). What the schedule purges is exported in the form Harbor stored it.
import type { HarborAuditLogPurgeSpec } from "../../api/audit-log-purge.ts";
import { type KindExporter, settingView } from "../shared/export.ts";
import { diff, EVENT_TYPES_SINCE, purgeTarget, scheduleFrom, specFromPurge } from "./mapping.ts";

const SETTING = "audit-log-purge";

export const auditLogPurgeExporter: KindExporter<HarborAuditLogPurgeSpec> = {
  async read(ctx) {
    const [history, release] = await Promise.all([
      ctx.harbor.purge.getSchedule({ signal: ctx.signal }),
      ctx.release(),
    ]);
    const listed = release.atLeast(EVENT_TYPES_SINCE)
      ? await ctx.harbor.auditLogs.eventTypes({ signal: ctx.signal })
      : undefined;
    const schedule = scheduleFrom(history);
    return [
      settingView(SETTING, specFromPurge(schedule), (spec) => {
        const r = purgeTarget(spec, release, listed);
        // A spec this Harbor would refuse differs in the field it is refused for.
        if ("refused" in r) return [spec.includeOperations ? "includeOperations" : "includeEventTypes"];
        return diff(spec, { schedule }, r.target);
      }),
    ];
  },
  keyOf: () => SETTING,
};
