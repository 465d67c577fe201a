// What every run kind shares (HarborGarbageCollectionRun, HarborReplicationRun): one Harbor
// execution per resource, started once and followed to its end. The spec says what to run and is
// fixed once created; only what concerns the resource itself (deletionPolicy, the TTL) may change.
// The status carries the phase, the execution's id in Harbor and, from before the start request is
// sent, the marker that lets a restarted operator find an execution it started but did not record.
import { z } from "zod";
import { type CelRule, ConditionSchema, ConnectionRef, celFormat } from "./common.ts";

/** A run's phases: Pending until Harbor has the execution, Running until it ends, then final. */
export const RUN_PHASES = ["Pending", "Running", "Succeeded", "Failed", "Stopped", "Skipped"] as const;
export type RunPhase = (typeof RUN_PHASES)[number];
/** Phases after which nothing changes in Harbor: the run is over. */
export const FINAL_PHASES: readonly RunPhase[] = ["Succeeded", "Failed", "Stopped", "Skipped"];

/** The spec fields every run kind has. */
export const runSpec = {
  connectionRef: ConnectionRef,
  deletionPolicy: z
    .enum(["Delete", "Orphan"])
    .default("Delete")
    .describe(
      "Delete: deleting this resource while its execution still runs stops the execution in Harbor (Harbor keeps its record). Orphan: the execution runs on. May be changed at any time, e.g. to let a deletion go while Harbor is unreachable.",
    ),
  ttlSecondsAfterFinished: z
    .number()
    .int()
    .min(0)
    .max(31_536_000)
    .optional()
    .describe(
      "Delete this resource that many seconds after its run ended (Succeeded, Failed, Stopped or Skipped), like a Job's ttlSecondsAfterFinished; 0 deletes it as soon as it ends. Unset: the operator never deletes it. May be changed at any time.",
    ),
};

/**
 * CEL rules that keep the fields which say what to run as they were created, one rule per field so
 * that the error points at it and shows the value it keeps. `shown` is the CEL expression below
 * the field that names its value ("" for a string, ".name" for a reference; default string(...)).
 */
export function immutableRunFields(fields: ReadonlyArray<{ field: string; shown?: string }>): CelRule[] {
  return fields.map(({ field, shown }) => {
    const old = shown === undefined ? `string(oldSelf.${field})` : `oldSelf.${field}${shown}`;
    return {
      rule: `has(self.${field}) == has(oldSelf.${field}) && (!has(self.${field}) || self.${field} == oldSelf.${field})`,
      message: `${field} is immutable: a run does what it was created with; create another run instead`,
      messageExpression: `has(oldSelf.${field}) ? ${celFormat(`${field} is immutable: a run does what it was created with, so it stays %s; create another run instead`, old)} : '${field} is immutable: it was unset when the run was created, so it stays unset'`,
      fieldPath: `.${field}`,
    };
  });
}

/** The status fields every run kind has. */
export const runStatus = {
  observedGeneration: z
    .number()
    .int()
    .optional()
    .describe(
      "The metadata.generation this status describes (only deletionPolicy and ttlSecondsAfterFinished can change it).",
    ),
  conditions: z
    .array(ConditionSchema)
    .optional()
    .describe(
      "Ready=True once the run succeeded; Stalled=True when it failed, was stopped or skipped (or cannot start as written); Reconciling=True while it waits or runs. `kubectl wait --for=condition=Ready` waits for success.",
    ),
  phase: z
    .enum(RUN_PHASES)
    .optional()
    .describe(
      "Pending (not started in Harbor yet: the reason says what it waits for), Running, then one of Succeeded, Failed, Stopped, Skipped (Harbor did not run it). A final phase never changes.",
    ),
  harborId: z
    .number()
    .int()
    .optional()
    .describe(
      "The id of the execution in Harbor, recorded right after Harbor accepted the start (Harbor UI: the run's entry in its history).",
    ),
  harborUrl: z
    .string()
    .optional()
    .describe(
      "The Harbor the execution runs in (its normalised URL). When the connection reaches another Harbor later, the execution is not looked for there.",
    ),
  startRequest: z
    .object({
      time: z.string().describe("When the operator asked Harbor to start the execution (RFC 3339)."),
      afterId: z
        .number()
        .int()
        .describe(
          "The newest execution id Harbor had before the request (0 for none): an execution this run started has a higher id.",
        ),
    })
    .optional()
    .describe(
      "Written before the start request is sent. Should the operator stop before it records harborId, it looks for an execution above afterId that matches this run and takes it over, instead of starting a second one.",
    ),
  startTime: z.string().optional().describe("When Harbor started the execution (RFC 3339, Harbor's clock)."),
  completionTime: z
    .string()
    .optional()
    .describe("When Harbor ended the execution (RFC 3339, Harbor's clock); absent while it runs."),
};

/** Printer columns every run kind shows after its own: when Harbor started and ended it. */
export const RUN_TIME_COLUMNS = [
  {
    name: "Started",
    type: "date",
    jsonPath: ".status.startTime",
    description: "When Harbor started the execution.",
  },
  {
    name: "Completed",
    type: "date",
    jsonPath: ".status.completionTime",
    priority: 1,
    description: "When Harbor ended it.",
  },
];

/** The Phase column, first of a run kind's own columns. */
export const PHASE_COLUMN = {
  name: "Phase",
  type: "string",
  jsonPath: ".status.phase",
  description: "Pending, Running, Succeeded, Failed, Stopped or Skipped.",
};
