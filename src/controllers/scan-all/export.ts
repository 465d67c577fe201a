// HarborScanAll's exporter (see shared/export.ts): Harbor's one scan-all schedule, in one read. No
// schedule is Harbor's default: no resource is written (a folder's is still compared). A Harbor
// without a default scanner refuses the read (412): it holds no schedule a resource could manage.
import type { HarborScanAllSpec } from "../../api/scan-all.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { type KindExporter, settingView } from "../shared/export.ts";
import { diff, type ObservedScanAllSchedule, scheduleFrom, specFromScanAll } from "./mapping.ts";

const SETTING = "scan-all";

export const scanAllExporter: KindExporter<HarborScanAllSpec> = {
  async read(ctx) {
    let schedule: ObservedScanAllSchedule | undefined;
    try {
      schedule = scheduleFrom(await ctx.harbor.scanAll.getSchedule({ signal: ctx.signal }));
    } catch (e) {
      if (!isHarborError(e, "precondition")) throw e;
    }
    return [settingView(SETTING, specFromScanAll(schedule), (spec) => diff(spec, { schedule }))];
  },
  keyOf: () => SETTING,
};
