// HarborJobService: the pause state of the job queues it lists (unlisted ones are left alone), one
// per Harbor, with the job service's pools, workers and queues in status.
import { harborJobService } from "../../api/job-service.ts";
import { defineKind } from "../shared/kinds.ts";
import { jobServiceExporter } from "./export.ts";
import { jobServiceExternal } from "./external.ts";

export const jobServiceKind = defineKind({
  def: harborJobService,
  exporter: jobServiceExporter,
  external: () => jobServiceExternal(),
});
