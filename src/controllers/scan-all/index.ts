// HarborScanAll: a Harbor's scan-all schedule, one per Harbor, with "run now" (the
// harborconfig.io/runRequestedAt annotation) and the newest runs' progress in status. Harbor refuses
// scan-all calls while it has no default scanner, so a scanner registration appearing, turning Ready
// or going queues the scan-all resources at once (a waiting one proceeds without its retry delay).
// The reference is declared for every registration (any may be Harbor's default); a HarborScanAll
// going queues the registrations once, which costs each one reconcile that finds nothing to do.
import { harborScanAll } from "../../api/scan-all.ts";
import { defineKind, resourceType } from "../shared/kinds.ts";
import { scanAllExporter } from "./export.ts";
import { scanAllExternal } from "./external.ts";

export const scanAllKind = defineKind({
  def: harborScanAll,
  exporter: scanAllExporter,
  watches: { references: { HarborScannerRegistration: { matches: () => true } } },
  external: ({ ctx }) =>
    scanAllExternal({ kube: ctx.kube, events: ctx.events, type: resourceType(harborScanAll) }),
});
