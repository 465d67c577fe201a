// HarborGarbageCollectionRun: one garbage collection in Harbor, started once and followed to its end.
import { z } from "zod";
import type { KindDefinition } from "./common.ts";
import { immutableRunFields, PHASE_COLUMN, RUN_TIME_COLUMNS, runSpec, runStatus } from "./run.ts";

export const HarborGarbageCollectionRunSpec = z.object({
  ...runSpec,
  deleteUntagged: z
    .boolean()
    .default(false)
    .describe(
      "Also delete artifacts that have no tag (Harbor's delete_untagged). Off: only blobs and manifests nothing refers to any more.",
    ),
  dryRun: z
    .boolean()
    .default(false)
    .describe(
      "Only report what a GC would remove (freedSpace, purgedBlobs, purgedManifests) and delete nothing.",
    ),
  workers: z
    .number()
    .int()
    .min(1)
    .max(10)
    .default(1)
    .describe(
      "How many workers delete in parallel: 1 to 10 on Harbor 2.13 and later, 1 to 5 before (Harbor's limits). Default 1.",
    ),
  concurrencyPolicy: z
    .enum(["Wait", "Queue"])
    .default("Wait")
    .describe(
      "Wait (default): start only when no GC runs in Harbor (note that Harbor shows a GC as running for about 25 s after it finished); the run stays Pending with reason WaitingForGC until then. Queue: start at once; Harbor's job service runs one GC at a time, so this one waits in Harbor's queue behind the running one (it shows Running meanwhile).",
    ),
});
export type HarborGarbageCollectionRunSpec = z.output<typeof HarborGarbageCollectionRunSpec>;

export const HarborGarbageCollectionRunStatus = z.object({
  ...runStatus,
  freedBytes: z
    .number()
    .int()
    .optional()
    .describe(
      "Bytes the GC freed (for a dry run: would free), as Harbor reports it once the run succeeded; Harbor calls it a rough estimate.",
    ),
  freedSpace: z
    .string()
    .optional()
    .describe('freedBytes in binary units, e.g. "1.5 GiB" (the FREED column).'),
  purgedBlobs: z
    .number()
    .int()
    .optional()
    .describe("Blobs deleted (for a dry run: that would be), once the run succeeded."),
  purgedManifests: z
    .number()
    .int()
    .optional()
    .describe("Manifests deleted (for a dry run: that would be), once the run succeeded."),
  logTail: z
    .array(z.string())
    .optional()
    .describe(
      "The last lines of the GC's job log (at most 20 lines of at most 256 characters), read once when the run ended. Harbor UI: Garbage Collection > History > Logs has it whole.",
    ),
});
export type HarborGarbageCollectionRunStatus = z.output<typeof HarborGarbageCollectionRunStatus>;

export const harborGarbageCollectionRun: KindDefinition<
  HarborGarbageCollectionRunSpec,
  HarborGarbageCollectionRunStatus
> = {
  kind: "HarborGarbageCollectionRun",
  plural: "harborgarbagecollectionruns",
  singular: "harborgarbagecollectionrun",
  shortNames: ["hgcrun"],
  scope: "Namespaced",
  lifecycle: "run",
  spec: HarborGarbageCollectionRunSpec,
  status: HarborGarbageCollectionRunStatus,
  specValidations: immutableRunFields([
    { field: "connectionRef", shown: ".name" },
    { field: "deleteUntagged" },
    { field: "dryRun" },
    { field: "workers" },
    { field: "concurrencyPolicy", shown: "" },
  ]),
  columns: [
    PHASE_COLUMN,
    { name: "Dry Run", type: "boolean", jsonPath: ".spec.dryRun", description: "Whether it only reports." },
    {
      name: "Freed",
      type: "string",
      jsonPath: ".status.freedSpace",
      description: "Space freed (or, for a dry run, that would be).",
    },
    ...RUN_TIME_COLUMNS,
  ],
  description:
    "One garbage collection in Harbor: started once, followed to its end; phase, times, freed space and the tail of its log in status. Deleting it while it runs stops the GC.",
};
