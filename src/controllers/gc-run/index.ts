// HarborGarbageCollectionRun: one garbage collection, started once and followed to its end by the
// run lifecycle (src/runtime/run.ts).
import { type HarborGarbageCollectionRunSpec, harborGarbageCollectionRun } from "../../api/gc-run.ts";
import { gcWorkersField } from "../garbage-collection/mapping.ts";
import { defineRunKind } from "../shared/kinds.ts";
import { gcRunExternal } from "./external.ts";

export const gcRunKind = defineRunKind({
  def: harborGarbageCollectionRun,
  external: () => gcRunExternal(),
  releaseFields: [gcWorkersField<HarborGarbageCollectionRunSpec>()],
});
