// HarborGarbageCollection's exporter (see shared/export.ts): Harbor's one GC schedule, in one read.
// No schedule is Harbor's default: no resource is written (a folder's is still compared).
import type { HarborGarbageCollectionSpec } from "../../api/garbage-collection.ts";
import { type KindExporter, settingView } from "../shared/export.ts";
import { diff, scheduleFrom, specFromGc } from "./mapping.ts";

const SETTING = "garbage-collection";

export const garbageCollectionExporter: KindExporter<HarborGarbageCollectionSpec> = {
  async read(ctx) {
    const schedule = scheduleFrom(await ctx.harbor.gc.getSchedule({ signal: ctx.signal }));
    const exported = specFromGc(schedule);
    return [settingView(SETTING, exported, (spec) => diff(spec, { schedule }))];
  },
  keyOf: () => SETTING,
};
