// HarborScanAll: a Harbor's scan-all schedule, one per Harbor, with "run now" (the
// harborconfig.io/runRequestedAt annotation) and the newest runs' progress in status.
import { harborScanAll } from "../../api/scan-all.ts";
import { defineKind, resourceType } from "../shared/kinds.ts";
import { scanAllExternal } from "./external.ts";

export const scanAllKind = defineKind({
  def: harborScanAll,
  external: ({ ctx }) =>
    scanAllExternal({ kube: ctx.kube, events: ctx.events, type: resourceType(harborScanAll) }),
});
