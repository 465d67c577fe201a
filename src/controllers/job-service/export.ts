// HarborJobService's exporter (see shared/export.ts): the job queues in one list. Only paused
// queues are written (a running queue is Harbor's default); none paused: no resource is written (a folder's is still compared).
import type { HarborJobServiceSpec } from "../../api/job-service.ts";
import { type KindExporter, settingView } from "../shared/export.ts";
import { diff, specFromJobService } from "./mapping.ts";

const SETTING = "job-service";

export const jobServiceExporter: KindExporter<HarborJobServiceSpec> = {
  async read(ctx) {
    const queues = await ctx.harbor.jobService.listQueues({ signal: ctx.signal });
    const exported = specFromJobService(queues);
    return [settingView(SETTING, exported, (spec) => diff(spec, { queues, pools: [], workers: [] }))];
  },
  keyOf: () => SETTING,
};
