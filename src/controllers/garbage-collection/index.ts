// HarborGarbageCollection: a Harbor's garbage-collection schedule, one per Harbor, with "run now"
// (the harborconfig.io/runRequestedAt annotation) and the newest run in status.
import { harborGarbageCollection } from "../../api/garbage-collection.ts";
import { defineKind, resourceType } from "../shared/kinds.ts";
import { garbageCollectionExporter } from "./export.ts";
import { garbageCollectionExternal } from "./external.ts";
import { GC_RELEASE_FIELDS } from "./mapping.ts";

export const garbageCollectionKind = defineKind({
  def: harborGarbageCollection,
  exporter: garbageCollectionExporter,
  releaseFields: GC_RELEASE_FIELDS,
  external: ({ ctx }) =>
    garbageCollectionExternal({
      kube: ctx.kube,
      events: ctx.events,
      type: resourceType(harborGarbageCollection),
    }),
});
