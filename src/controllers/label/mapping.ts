// HarborLabel's pure mapping: spec → Harbor's requests, Harbor's label → drift and status, and who
// in the cluster still uses a label.
import { type HarborLabelSpec, type HarborLabelStatus, LABEL_COLOR_PATTERN } from "../../api/label.ts";
import type { HarborReplicationPolicySpec } from "../../api/replication.ts";
import type { Label, LabelCreate, LabelUpdate } from "../../harbor/labels.ts";
import type { ManagedObject } from "../../runtime/external-client.ts";
import type { SpecFields } from "../shared/export.ts";

/** A label Harbor holds: what get and list return, with its id. */
export type ObservedLabel = Label & { id: number };

/** Where a label lives: Harbor's scope, and its project's id for a project label. */
export interface LabelPlace {
  scope: "g" | "p";
  /** 0 for a global label (Harbor stores 0 there). */
  projectId: number;
}

export const placeOf = (projectId: number | undefined): LabelPlace =>
  projectId === undefined ? { scope: "g", projectId: 0 } : { scope: "p", projectId };

export function createRequest(spec: HarborLabelSpec, harborName: string, place: LabelPlace): LabelCreate {
  return {
    name: harborName,
    scope: place.scope,
    ...(place.scope === "p" ? { project_id: place.projectId } : {}),
    ...(spec.description === undefined ? {} : { description: spec.description }),
    ...(spec.color === undefined ? {} : { color: spec.color }),
  };
}

/** The label as Harbor stores it after createRequest: as sent, nothing normalised. */
export function created(id: number, request: LabelCreate): ObservedLabel {
  return {
    id,
    name: request.name,
    description: request.description ?? "",
    color: request.color ?? "",
    scope: request.scope,
    project_id: request.scope === "g" ? 0 : (request.project_id ?? 0),
  };
}

/**
 * Harbor's update replaces name, description and colour together (one it is not sent is cleared):
 * what the spec leaves unset is sent as Harbor has it.
 */
export function updateRequest(spec: HarborLabelSpec, harborName: string, current: Label): LabelUpdate {
  return {
    name: harborName,
    description: spec.description ?? current.description ?? "",
    color: spec.color ?? current.color ?? "",
  };
}

/** The label after updateRequest was applied. */
export const updated = (current: ObservedLabel, request: LabelUpdate): ObservedLabel => ({
  ...current,
  ...request,
});

/** The spec fields whose Harbor value differs; colours compare without regard to letter case. */
export function diff(spec: HarborLabelSpec, observed: Label): string[] {
  const out: string[] = [];
  if (spec.description !== undefined && spec.description !== (observed.description ?? ""))
    out.push("description");
  if (spec.color !== undefined && spec.color.toLowerCase() !== (observed.color ?? "").toLowerCase())
    out.push("color");
  return out;
}

/** The label is this resource's: its name, in its scope and project. */
export function identifies(harborName: string, place: LabelPlace, observed: Label): boolean {
  return (
    observed.name === harborName &&
    observed.scope === place.scope &&
    (place.scope === "g" || observed.project_id === place.projectId)
  );
}

export function status(observed: Label): Partial<HarborLabelStatus> {
  return observed.scope === "p"
    ? { scope: "project", projectId: observed.project_id }
    : { scope: "global", projectId: undefined };
}

/** A replication policy of the cluster, as the deletion check sees it. */
export interface PolicyInCluster {
  /** "namespace/name". */
  key: string;
  spec: Pick<HarborReplicationPolicySpec, "filters">;
  /** Whether it reaches the label's Harbor. */
  sameHarbor: boolean;
}

/**
 * The replication policies whose label filter names this global label (matched or excluded: either
 * way deleting the label changes what they replicate). Harbor's replication uses global labels only.
 */
export function policiesUsing(
  harborName: string,
  place: LabelPlace,
  policies: readonly PolicyInCluster[],
): string[] {
  if (place.scope !== "g") return [];
  return policies
    .filter((p) => p.sameHarbor && (p.spec.filters?.labels?.values ?? []).includes(harborName))
    .map((p) => p.key)
    .sort();
}

/**
 * Whether a replication policy's label filter names this HarborLabel: a global label (replication
 * uses no others) by its Harbor name. For the kind wiring, which runs it per pair of resources.
 */
export function filtersOn(
  policy: Pick<HarborReplicationPolicySpec, "filters">,
  label: ManagedObject,
): boolean {
  const values = policy.filters?.labels?.values;
  if (!values?.length) return false;
  const spec = (label.spec ?? {}) as { name?: string; projectRef?: unknown };
  return spec.projectRef === undefined && values.includes(spec.name ?? label.metadata.name);
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of createRequest and diff; see shared/export.ts)

/**
 * The spec that reproduces a label: its name, its project (by the metadata.name of the project's
 * resource) for a project label, its colour and description where Harbor holds one (a colour the
 * CRD does not take, not #RRGGBB, is left unmanaged and said).
 */
export function specFromLabel(
  label: Label,
  projectRef: string | undefined,
): { spec: SpecFields<typeof HarborLabelSpec>; notes: string[] } | { skip: string } {
  const name = label.name ?? "";
  if (label.scope === "p" && projectRef === undefined)
    return { skip: `the project of label "${name}" (id ${label.project_id}) is not exported` };
  const notes: string[] = [];
  const color = label.color ?? "";
  const spec: SpecFields<typeof HarborLabelSpec> = {
    name,
    ...(label.scope === "p" ? { projectRef: { name: projectRef as string } } : {}),
    ...(label.description ? { description: label.description } : {}),
  };
  if (LABEL_COLOR_PATTERN.test(color)) spec.color = color;
  else if (color !== "") notes.push(`color is left unmanaged: Harbor holds "${color}", not #RRGGBB`);
  return { spec, notes };
}
