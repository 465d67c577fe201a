// HarborReplicationPolicy ⇄ Harbor replication policy, as pure functions. Round-trip quirks
// normalised here so nothing flaps: Harbor returns both registries in full (the local side is the
// Local registry, id 0), leaves out false/empty values, may omit a manual trigger, stores a
// negative speed as 0 (both mean unlimited), fills replicate_deletion from the `deletion` field it
// reads, and keeps filters as a list whose order and empty decorations carry no meaning.
import type { HarborReplicationPolicySpec, HarborReplicationPolicyStatus } from "../../api/replication.ts";
import { ReplicationFilterDecoration, ReplicationTriggerType } from "../../harbor/model/enums.ts";
import type {
  PersistedReplicationExecution,
  ReplicationExecution,
  ReplicationPolicy,
  ReplicationPolicyReq,
} from "../../harbor/replication.ts";
import { safeText } from "../../kube/text.ts";
import type { SpecFields } from "../shared/export.ts";
import type { ReleaseField } from "../shared/release-fields.ts";

/** Harbor's id of its own registry on the local side of every policy. */
export const LOCAL_REGISTRY_ID = 0;

/** Harbor's "never set" time, e.g. the end of a running execution. */
const ZERO_TIME = /^0001-01-01T/;

type FilterReq = NonNullable<Exclude<ReplicationPolicyReq["filters"], undefined>>[number];

/** The spec's filters as Harbor's filter list. */
export function filtersRequest(filters: HarborReplicationPolicySpec["filters"]): FilterReq[] {
  const out: FilterReq[] = [];
  if (filters.name !== undefined) out.push({ type: "name", value: filters.name });
  if (filters.tag) out.push({ type: "tag", value: filters.tag.pattern, decoration: filters.tag.decoration });
  if (filters.labels)
    out.push({ type: "label", value: filters.labels.values, decoration: filters.labels.decoration });
  if (filters.resource !== undefined) out.push({ type: "resource", value: filters.resource });
  return out;
}

/** Request body for create and for update (Harbor's PUT replaces every setting). */
export function policyRequest(
  spec: HarborReplicationPolicySpec,
  name: string,
  registryId: number,
  current?: ReplicationPolicy,
): ReplicationPolicyReq {
  const remote = { id: registryId };
  const local = { id: LOCAL_REGISTRY_ID };
  // An unmanaged description keeps what Harbor has; the PUT would clear it otherwise.
  const description = spec.description ?? current?.description;
  const singleActive = spec.singleActiveReplication ?? current?.single_active_replication ?? undefined;
  return {
    name,
    ...(description ? { description } : {}),
    src_registry: spec.direction === "push" ? local : remote,
    dest_registry: spec.direction === "push" ? remote : local,
    dest_namespace: spec.destinationNamespace ?? "",
    dest_namespace_replace_count: spec.destinationNamespaceReplaceCount,
    trigger:
      spec.trigger.type === "scheduled"
        ? { type: "scheduled", trigger_settings: { cron: spec.trigger.cron ?? "" } }
        : { type: spec.trigger.type },
    filters: filtersRequest(spec.filters),
    replicate_deletion: spec.replicateDeletion,
    override: spec.override,
    enabled: spec.enabled,
    speed: speedOf(spec.speedKbps),
    copy_by_chunk: spec.copyByChunk,
    // Unmanaged, it keeps what Harbor has: the PUT would turn it off otherwise.
    ...(singleActive === undefined ? {} : { single_active_replication: singleActive }),
  };
}

/**
 * Spec fields only some Harbor releases have; false is what an older Harbor does anyway (see
 * shared/release-fields.ts).
 */
export const REPLICATION_RELEASE_FIELDS: readonly ReleaseField<HarborReplicationPolicySpec>[] = [
  {
    field: "singleActiveReplication",
    change: "singleActiveReplication",
    uses: (s) => s.singleActiveReplication === true,
  },
];

/** Harbor stores a negative speed as 0; both mean unlimited. */
function speedOf(kbps: number | null | undefined): number {
  return Math.max(0, kbps ?? 0);
}

/** A filter in a form that compares equal however Harbor returns it. */
function canonicalFilter(f: { type?: string; value?: unknown; decoration?: string }): string {
  const type = f.type ?? "";
  const value = Array.isArray(f.value) ? [...new Set(f.value.map(String))].sort() : f.value;
  const decorated = type === "tag" || type === "label";
  return JSON.stringify([type, value ?? "", decorated ? f.decoration || "matches" : ""]);
}

function canonicalFilters(list: ReadonlyArray<{ type?: string; value?: unknown; decoration?: string }>) {
  return list.map(canonicalFilter).sort().join("\n");
}

/** Harbor leaves out a manual trigger (and any cron of a non-scheduled one). */
function triggerOf(policy: ReplicationPolicy): { type: string; cron: string } {
  const type = policy.trigger?.type || "manual";
  const cron = type === "scheduled" ? (policy.trigger?.trigger_settings?.cron ?? "") : "";
  return { type, cron: cron.trim().replace(/\s+/g, " ") };
}

/** The spec fields whose Harbor value differs. */
export function diff(
  spec: HarborReplicationPolicySpec,
  name: string,
  registryId: number,
  policy: ReplicationPolicy,
): string[] {
  const out: string[] = [];
  const src = policy.src_registry?.id ?? LOCAL_REGISTRY_ID;
  const dest = policy.dest_registry?.id ?? LOCAL_REGISTRY_ID;
  const direction = src === LOCAL_REGISTRY_ID ? "push" : "pull";
  const remote = direction === "push" ? dest : src;
  if ((policy.name ?? "") !== name) out.push("name");
  if (spec.description !== undefined && (policy.description ?? "") !== spec.description)
    out.push("description");
  if (direction !== spec.direction) out.push("direction");
  else if (remote !== registryId) out.push("registryRef");
  if ((policy.dest_namespace ?? "") !== (spec.destinationNamespace ?? "")) out.push("destinationNamespace");
  if ((policy.dest_namespace_replace_count ?? -1) !== spec.destinationNamespaceReplaceCount)
    out.push("destinationNamespaceReplaceCount");
  if (canonicalFilters(policy.filters ?? []) !== canonicalFilters(filtersRequest(spec.filters)))
    out.push("filters");
  const trigger = triggerOf(policy);
  if (trigger.type !== spec.trigger.type || trigger.cron !== (spec.trigger.cron ?? "")) out.push("trigger");
  if ((policy.replicate_deletion ?? policy.deletion ?? false) !== spec.replicateDeletion)
    out.push("replicateDeletion");
  if ((policy.override ?? false) !== spec.override) out.push("override");
  if ((policy.enabled ?? false) !== spec.enabled) out.push("enabled");
  if (speedOf(policy.speed) !== speedOf(spec.speedKbps)) out.push("speedKbps");
  if ((policy.copy_by_chunk ?? false) !== spec.copyByChunk) out.push("copyByChunk");
  // A release without the field reads as false: it does not skip runs.
  if (
    spec.singleActiveReplication !== undefined &&
    (policy.single_active_replication ?? false) !== spec.singleActiveReplication
  )
    out.push("singleActiveReplication");
  return out;
}

/**
 * status.lastExecution from Harbor's execution; times Harbor never set are left out, and Harbor's
 * status text is cleaned and capped like a message.
 */
export function executionStatus(e: PersistedReplicationExecution): ExecutionStatus {
  const time = (t: string | undefined) => (t && !ZERO_TIME.test(t) ? t : undefined);
  const fields: ExecutionStatus = {
    id: e.id,
    status: e.status ?? "Unknown",
    trigger: e.trigger,
    statusText: e.status_text ? safeText(e.status_text) : undefined,
    total: e.total,
    succeeded: e.succeed,
    failed: e.failed,
    inProgress: e.in_progress,
    stopped: e.stopped,
    startTime: time(e.start_time),
    endTime: time(e.end_time),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as ExecutionStatus;
}

/** status.lastExecution. */
export type ExecutionStatus = NonNullable<HarborReplicationPolicyStatus["lastExecution"]>;

/** An execution Harbor has not finished yet (and which blocks deleting its policy). */
export function isRunning(e: { status?: string | undefined }): boolean {
  return e.status === "InProgress";
}

/** The shortest and longest wait before looking at a running execution again. */
export const FOLLOW_MIN_MS = 1_000;
export const FOLLOW_MAX_MS = 15_000;

/**
 * When to look at a running execution again: a quarter of the time it has run so far, from 1 s
 * to 15 s. A short run (Harbor ends one with nothing to copy within 0.1 s) shows its end within
 * about a second; a long one costs a read every 15 s, so the reads per execution stay bounded
 * (about log2 of its duration plus one per 15 s).
 */
export function followDelayMs(e: ReplicationExecution, nowMs: number): number {
  const start = Date.parse(e.start_time ?? "");
  const ran = Number.isNaN(start) || ZERO_TIME.test(e.start_time ?? "") ? 0 : Math.max(0, nowMs - start);
  return Math.min(FOLLOW_MAX_MS, Math.max(FOLLOW_MIN_MS, Math.round(ran / 4)));
}

/** What an Event says of an execution that ended. */
export interface Outcome {
  type: "Normal" | "Warning";
  reason: "ReplicationSucceeded" | "ReplicationFailed" | "ReplicationStopped";
  message: string;
}

/**
 * The Event for `current` when it has ended and the status did not show that end yet (the one it
 * recorded was running, or another execution): each end is reported once, also for runs that
 * started and ended between two looks (a schedule's).
 */
export function executionOutcome(
  shown: { id?: number; status?: string } | undefined,
  current: ReplicationExecution,
): Outcome | undefined {
  const status = current.status ?? "";
  if (!["Succeed", "Failed", "Stopped"].includes(status)) return undefined;
  if (shown?.id === current.id && shown?.status === status) return undefined;
  const total = current.total ?? 0;
  const counts = [
    `${current.succeed ?? 0} of ${total} tasks succeeded`,
    ...(current.failed ? [`${current.failed} failed`] : []),
    ...(current.stopped ? [`${current.stopped} stopped`] : []),
  ].join(", ");
  const start = Date.parse(current.start_time ?? "");
  const end = Date.parse(current.end_time ?? "");
  const took =
    Number.isNaN(start) || Number.isNaN(end) || ZERO_TIME.test(current.end_time ?? "")
      ? ""
      : ` in ${Math.max(0, Math.round((end - start) / 1000))} s`;
  const what = `Replication execution ${current.id}${current.trigger ? ` (${current.trigger})` : ""}`;
  const said = current.status_text ? `: ${safeText(current.status_text, 512)}` : "";
  if (status === "Succeed")
    return {
      type: "Normal",
      reason: "ReplicationSucceeded",
      message: `${what} succeeded${took}: ${counts}${said}`,
    };
  if (status === "Stopped")
    return {
      type: "Normal",
      reason: "ReplicationStopped",
      message: `${what} was stopped${took}: ${counts}${said}`,
    };
  return {
    type: "Warning",
    reason: "ReplicationFailed",
    message: `${what} failed${took}: ${counts}${said}. Harbor's task logs (Replications > Executions) say why each task failed`,
  };
}

/**
 * The projects of this Harbor a policy reads from (push) or writes into (pull), for a tenancy
 * check: their names, or "all" when it can reach any project (no destination namespace on a pull,
 * no name filter, or a filter whose project part is a pattern).
 */
export function replicatedProjects(
  spec: Pick<HarborReplicationPolicySpec, "direction" | "destinationNamespace"> & {
    filters: Pick<HarborReplicationPolicySpec["filters"], "name">;
  },
): string[] | "all" {
  const path = spec.direction === "pull" ? spec.destinationNamespace : spec.filters.name;
  const project = path?.split("/")[0];
  return project && !/[*?[\]{}]/.test(project) ? [project] : "all";
}

// -------------------------------------------------------------------------------------------
// export: Harbor → spec (the inverse of policyRequest; see shared/export.ts)

/** What the export writes for a replication policy, or why it cannot. */
export type ReplicationExport = { spec: SpecFields<typeof HarborReplicationPolicySpec> } | { skip: string };

/** Whether a policy pushes from this Harbor or pulls into it, and the remote registry's id. */
export function directionOf(policy: ReplicationPolicy): { direction: "push" | "pull"; remote: number } {
  const src = policy.src_registry?.id ?? LOCAL_REGISTRY_ID;
  const dest = policy.dest_registry?.id ?? LOCAL_REGISTRY_ID;
  return src === LOCAL_REGISTRY_ID ? { direction: "push", remote: dest } : { direction: "pull", remote: src };
}

/** The spec's filters for Harbor's filter list, or why the spec cannot hold them. */
function specFilters(
  list: ReadonlyArray<{ type?: string; value?: unknown; decoration?: string }>,
): HarborReplicationPolicySpec["filters"] | string {
  const out: HarborReplicationPolicySpec["filters"] = {};
  for (const f of list) {
    const type = f.type ?? "";
    if (type in out || (type === "label" && out.labels)) return `it has more than one ${type} filter`;
    const decoration = ReplicationFilterDecoration.safeParse(f.decoration || "matches");
    if (!decoration.success) return `its ${type} filter has the decoration "${f.decoration}"`;
    if (type === "name" && typeof f.value === "string" && f.value !== "") out.name = f.value;
    else if (type === "tag" && typeof f.value === "string" && f.value !== "")
      out.tag = { pattern: f.value, decoration: decoration.data };
    else if (type === "label" && Array.isArray(f.value) && f.value.length > 0)
      out.labels = { values: [...new Set(f.value.map(String))].sort(), decoration: decoration.data };
    else if (type === "resource" && (f.value === "image" || f.value === "artifact")) out.resource = f.value;
    else return `its ${type || "unnamed"} filter has the value ${JSON.stringify(f.value)}`;
  }
  return out;
}

/**
 * The spec that reproduces a replication policy, managing every field; the remote registry is
 * named by the metadata.name of its resource. runOnCreate stays off: an adopted policy is never
 * started.
 */
export function specFromPolicy(
  policy: ReplicationPolicy,
  registryRef: string | undefined,
): ReplicationExport {
  const name = policy.name ?? "";
  const { direction, remote } = directionOf(policy);
  if (remote === LOCAL_REGISTRY_ID) return { skip: `replication policy ${name} has no remote registry` };
  if (registryRef === undefined)
    return { skip: `the registry of replication policy ${name} (id ${remote}) is not exported` };
  const filters = specFilters(policy.filters ?? []);
  if (typeof filters === "string") return { skip: `replication policy ${name}: ${filters}` };
  const trigger = triggerOf(policy);
  const type = ReplicationTriggerType.safeParse(trigger.type);
  if (!type.success) return { skip: `replication policy ${name} has the trigger "${trigger.type}"` };
  const speed = speedOf(policy.speed);
  return {
    spec: {
      name,
      description: policy.description ?? "",
      direction,
      registryRef: { name: registryRef },
      ...(policy.dest_namespace ? { destinationNamespace: policy.dest_namespace } : {}),
      destinationNamespaceReplaceCount: policy.dest_namespace_replace_count ?? -1,
      filters,
      trigger: type.data === "scheduled" ? { type: type.data, cron: trigger.cron } : { type: type.data },
      replicateDeletion: policy.replicate_deletion ?? policy.deletion ?? false,
      override: policy.override ?? false,
      enabled: policy.enabled ?? false,
      ...(speed > 0 ? { speedKbps: speed } : {}),
      copyByChunk: policy.copy_by_chunk ?? false,
      // Only a release that has it shows it.
      ...(typeof policy.single_active_replication === "boolean"
        ? { singleActiveReplication: policy.single_active_replication }
        : {}),
    },
  };
}
