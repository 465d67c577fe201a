// What the operator cost Harbor, from the emulator's request counters: snapshots taken at phase
// boundaries and subtracted, each operation attributed to the kind whose API area it belongs to.
// During the steady state the counters are sampled often, so that each drift sweep (a burst of one
// kind's list calls) can be told apart and timed.

import { HarborClient } from "../../src/harbor/client.ts";
import { areas } from "../env/emulator/areas/index.ts";
import type { CounterRow, RemoteControl } from "../env/emulator/index.ts";
import { bump, ratio, round, sortedByCount } from "./stats.ts";
import type { HarborCost, KindName } from "./types.ts";

export type Snapshot = Map<string, CounterRow>;

/** Which kind each of Harbor's operations serves (its API area); the rest is "other". */
const AREA_KIND: Record<string, string> = {
  projects: "HarborProject",
  // A project's storage limit lives in its quota.
  quotas: "HarborProject",
  robots: "HarborRobot",
  registries: "HarborRegistry",
  replication: "HarborReplicationPolicy",
  webhooks: "HarborWebhookPolicy",
  labels: "HarborLabel",
  userGroups: "HarborUserGroup",
  // An LDAP group is looked up in the directory before it is created.
  ldap: "HarborUserGroup",
  // Members, and the user search that finds a user member's id.
  members: "HarborProjectMember",
  system: "HarborConnection",
  retention: "HarborRetentionPolicy",
  immutable: "HarborImmutableTagRule",
  // Instances; the preheat policies' operations are named below.
  preheat: "HarborPreheatInstance",
  configurations: "HarborConfiguration",
  scanAll: "HarborScanAll",
  users: "HarborUser",
};

/** Operations of an area that serves two kinds. */
const OPERATION_KIND: Record<string, string> = {
  ListPolicies: "HarborPreheatPolicy",
  CreatePolicy: "HarborPreheatPolicy",
  GetPolicy: "HarborPreheatPolicy",
  UpdatePolicy: "HarborPreheatPolicy",
  DeletePolicy: "HarborPreheatPolicy",
};

/** POSTs that change nothing in Harbor: a preheat instance's health check. */
const NOT_WRITES = new Set(["PingInstances"]);

const KIND_OF_OPERATION = new Map<string, string>();
for (const [area, def] of Object.entries(areas)) {
  for (const route of [...def.routes, ...(def.rootRoutes ?? [])]) {
    KIND_OF_OPERATION.set(route.op, OPERATION_KIND[route.op] ?? AREA_KIND[area] ?? "other");
  }
}

export function kindOfOperation(op: string): string {
  return KIND_OF_OPERATION.get(op) ?? "other";
}

/** The list call each kind's drift sweep makes: one burst of these is one sweep. */
export const SWEEP_LIST: Record<KindName, string> = {
  HarborProject: "listProjects",
  HarborRobot: "ListRobot",
  HarborRegistry: "listRegistries",
  HarborReplicationPolicy: "listReplicationPolicies",
  HarborWebhookPolicy: "ListWebhookPoliciesOfProject",
  HarborLabel: "ListLabels",
  HarborUserGroup: "listUserGroups",
  HarborProjectMember: "listProjectMembers",
  // Each policy by its id (Harbor lists no retention policies): one read per project.
  HarborRetentionPolicy: "getRetention",
  HarborImmutableTagRule: "ListImmuRules",
  HarborPreheatInstance: "ListInstances",
  HarborPreheatPolicy: "ListPolicies",
  HarborConfiguration: "getConfigurations",
  HarborScanAll: "getScanAllSchedule",
};

/**
 * Also read by a sweep, after its list call: the project sweep's list of project quotas, the
 * configuration's system CVE allowlist, the scan-all schedule's two run metrics.
 */
const ALSO_SWEPT = [
  "listQuotas",
  "getSystemCVEAllowlist",
  "getLatestScanAllMetrics",
  "getLatestScheduledScanAllMetrics",
];

const PERIODIC = new Set<string>([...Object.values(SWEEP_LIST), ...ALSO_SWEPT]);

/** The operator's reads on a timer: drift sweeps and connection checks. */
export function isPeriodic(op: string): boolean {
  return PERIODIC.has(op) || kindOfOperation(op) === "HarborConnection";
}

export async function snapshot(control: RemoteControl): Promise<Snapshot> {
  const rows = await control.counters.list();
  return new Map(rows.map((r) => [`${r.op} ${r.method} ${r.status}`, r]));
}

/** The requests between two snapshots. */
export function delta(before: Snapshot, after: Snapshot): CounterRow[] {
  const out: CounterRow[] = [];
  for (const [key, row] of after) {
    const count = row.count - (before.get(key)?.count ?? 0);
    if (count > 0) out.push({ ...row, count });
  }
  return out;
}

export function harborCost(rows: readonly CounterRow[], objects: number): HarborCost {
  const byMethod: Record<string, number> = {};
  const byKind: Record<string, number> = {};
  const byOperation: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  let total = 0;
  for (const r of rows) {
    total += r.count;
    bump(byMethod, r.method, r.count);
    bump(byKind, kindOfOperation(r.op), r.count);
    bump(byOperation, `${r.method} ${r.op}`, r.count);
    bump(byStatus, String(r.status), r.count);
  }
  return {
    total,
    perObject: ratio(total, objects),
    byMethod: sortedByCount(byMethod),
    byKind: sortedByCount(byKind),
    byOperation: sortedByCount(byOperation),
    byStatus: sortedByCount(byStatus),
  };
}

export function writesIn(rows: readonly CounterRow[]): number {
  return rows
    .filter((r) => r.method !== "GET" && r.method !== "HEAD" && !NOT_WRITES.has(r.op))
    .reduce((n, r) => n + r.count, 0);
}

export interface Bursts {
  /** Sweeps in the window; one cut by an edge counts by its share of calls (see SteadyKind). */
  count: number;
  /** Sweeps seen from start to end. */
  whole: number;
  longestSeconds: number;
}

/**
 * Counts of one operation over time (one value per sample), turned into bursts: a burst starts
 * with a sample that saw calls and ends after `quietSamples` samples without any. Bursts that
 * started before the first sample or had not ended at the last are cut by the window; they count
 * as the fraction (calls / calls of a whole burst) when a whole one was seen.
 */
export function bursts(counts: readonly { at: number; total: number }[], quietSamples = 3): Bursts {
  const found: Array<{ start: number; end: number; calls: number; whole: boolean }> = [];
  let current: { start: number; end: number; calls: number; whole: boolean } | undefined;
  let quiet = quietSamples; // the window may open in the middle of a burst
  for (let i = 1; i < counts.length; i++) {
    const prev = counts[i - 1];
    const cur = counts[i];
    if (!prev || !cur) continue;
    const calls = cur.total - prev.total;
    if (calls > 0) {
      if (!current) {
        current = { start: prev.at, end: cur.at, calls: 0, whole: i > 1 && quiet >= quietSamples };
        found.push(current);
      }
      current.calls += calls;
      current.end = cur.at;
      quiet = 0;
    } else if (++quiet >= quietSamples) {
      current = undefined;
    }
  }
  if (current) current.whole = false; // still running when the window closed
  const whole = found.filter((b) => b.whole);
  const perBurst = whole.length ? whole.reduce((n, b) => n + b.calls, 0) / whole.length : 0;
  const count = found.reduce(
    (n, b) => n + (b.whole || perBurst === 0 ? 1 : Math.min(1, b.calls / perBurst)),
    0,
  );
  const longest = Math.max(0, ...whole.map((b) => b.end - b.start));
  return { count: round(count, 4), whole: whole.length, longestSeconds: ratio(longest, 1000) };
}

/**
 * The workload's objects still in Harbor, from the emulator's world (the control API, so nothing
 * is counted) and, for replication policies, which it has no list of, an admin client.
 */
export async function leftInHarbor(e: {
  url: string;
  username: string;
  password: string;
  control: RemoteControl;
}): Promise<Record<string, number>> {
  const client = new HarborClient({ url: e.url, username: e.username, password: e.password });
  try {
    const projects = await e.control.projects.list();
    const teams = projects.filter((p) => p.name?.startsWith("team-"));
    let members = 0;
    for (const p of teams) {
      members += (await e.control.members.list(p.name as string)).filter((m) => m.entity_type === "g").length;
    }
    return {
      HarborProject: teams.length,
      HarborRobot: (await e.control.robots.list()).length,
      HarborRegistry: (await e.control.registries.list()).length,
      HarborReplicationPolicy: (await client.replication.listPolicies()).length,
      HarborLabel: (await e.control.labels.list()).length,
      HarborUserGroup: (await e.control.userGroups.list()).length,
      // Group memberships left in the workload's projects (a project's creator is no resource's).
      HarborProjectMember: members,
      // A policy emptied by its resource's deletion is what Harbor keeps of it (no rules, no schedule).
      HarborRetentionPolicy: (await e.control.retention.policies()).filter(
        (p) => Array.isArray(p.data.rules) && p.data.rules.length > 0,
      ).length,
      HarborImmutableTagRule: (await e.control.immutable.list()).length,
      HarborPreheatInstance: (await e.control.preheat.instances()).length,
      HarborPreheatPolicy: (await e.control.preheat.policies()).length,
      // The mix's settings still away from Harbor's defaults, or an allowlist still held.
      HarborConfiguration: Number(
        (await e.control.configurations.get("project_creation_restriction")) !== "everyone" ||
          (await e.control.configurations.get("robot_token_duration")) !== 30 ||
          (await e.control.configurations.get("banner_message")) !== "" ||
          ((await client.system.getCveAllowlist()).items?.length ?? 0) > 0,
      ),
      HarborScanAll: Number(((await e.control.scanAll.schedule())?.type ?? "None") !== "None"),
    };
  } finally {
    await client.close();
  }
}
