// HarborAuditLogPurge's exporter (see shared/export.ts): Harbor's one purge schedule, in one read
// (and one of the system info: from 2.13 on the operator does not manage the purge, so it is not
// exported). No schedule is Harbor's default: no resource is written (a folder's is still compared).
import type { HarborAuditLogPurgeSpec } from "../../api/audit-log-purge.ts";
import { type KindExporter, settingView } from "../shared/export.ts";
import { diff, scheduleFrom, specFromPurge, unsupportedRelease } from "./mapping.ts";

const SETTING = "audit-log-purge";

export const auditLogPurgeExporter: KindExporter<HarborAuditLogPurgeSpec> = {
  async read(ctx) {
    const [history, info] = await Promise.all([
      ctx.harbor.purge.getSchedule({ signal: ctx.signal }),
      ctx.harbor.system.getSystemInfo({ signal: ctx.signal }),
    ]);
    const schedule = scheduleFrom(history);
    const unsupported = unsupportedRelease(info.harbor_version ?? undefined);
    const exported = schedule && unsupported ? { skip: unsupported } : specFromPurge(schedule);
    return [settingView(SETTING, exported, (spec) => diff(spec, { schedule }))];
  },
  keyOf: () => SETTING,
};
