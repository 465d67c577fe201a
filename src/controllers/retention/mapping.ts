// HarborRetentionPolicy's pure mapping: spec → Harbor's policy, Harbor's policy → drift (named per
// rule and field) and status.
//
// How Harbor's UI writes a policy, which the operator follows so that the UI shows its policies as
// its own: algorithm "or"; a rule's params keyed by its template ({"latestPushedK": 10}, {} for
// always); one repository selector under scope_selectors.repository (decoration repoMatches or
// repoExcludes) and one tag selector (matches or excludes) whose extras is {"untagged":true|false};
// the trigger {kind: "Schedule", settings: {cron}}, with cron "" for no schedule.
import type { z } from "zod";
import {
  HarborRetentionPolicySpec,
  type RetentionRuleSpec,
  type RetentionRunStatus,
} from "../../api/retention.ts";
import { DEFAULT_CRON, effectiveCron } from "../../api/schedule.ts";
import type {
  RetentionExecution,
  RetentionPolicy,
  RetentionPolicyRequest,
  RetentionRule,
  RetentionSelector,
} from "../../harbor/retention.ts";
import { safeText } from "../../kube/text.ts";
import type { ManagedSpec } from "../../runtime/external-client.ts";
import { FINAL_STATUSES } from "../shared/executions.ts";

export interface ObservedRetention {
  id: number;
  projectId: number;
  policy: RetentionPolicy;
  /** The newest execution, whoever started it. */
  lastRun?: RetentionExecution;
  /** false when executions were not read (the drift sweep): status.lastRun is left as it is. */
  runsRead?: false;
}

/** A rule as compared: the spec's shape, read back from Harbor's. */
export type ComparedRule = Omit<RetentionRuleSpec, "template"> & { template: string };

const REPO_DECORATION = { matches: "repoMatches", excludes: "repoExcludes" } as const;

function ruleRequest(r: RetentionRuleSpec): RetentionRule {
  const value = r.count ?? r.days;
  return {
    disabled: r.disabled,
    action: "retain",
    template: r.template,
    params: value === undefined ? {} : { [r.template]: value },
    tag_selectors: [
      {
        kind: "doublestar",
        decoration: r.tags.decoration,
        pattern: r.tags.pattern,
        extras: JSON.stringify({ untagged: r.untagged }),
      },
    ],
    scope_selectors: {
      repository: [
        {
          kind: "doublestar",
          decoration: REPO_DECORATION[r.repositories.decoration],
          pattern: r.repositories.pattern,
        },
      ],
    },
  };
}

/** The policy Harbor is sent for the spec. */
export function policyRequest(spec: HarborRetentionPolicySpec, projectId: number): RetentionPolicyRequest {
  return {
    algorithm: "or",
    rules: spec.rules.map(ruleRequest),
    trigger: { kind: "Schedule", settings: { cron: effectiveCron(spec.schedule) ?? "" }, references: {} },
    scope: { level: "project", ref: projectId },
  };
}

/** What deletion leaves: no rules and no schedule, as Harbor's UI leaves a policy whose rules all went. */
export function emptyRequest(projectId: number): RetentionPolicyRequest {
  return {
    algorithm: "or",
    rules: [],
    trigger: { kind: "Schedule", settings: { cron: "" }, references: {} },
    scope: { level: "project", ref: projectId },
  };
}

/** The policy as Harbor stores it after `request`. */
export function stored(id: number, request: RetentionPolicyRequest): RetentionPolicy {
  return { id, ...request } as RetentionPolicy;
}

export const cronOf = (p: RetentionPolicy): string => {
  const cron = p.trigger?.settings?.cron;
  return typeof cron === "string" ? cron : "";
};

/** A policy with no rules and no schedule: what deletion leaves, counted as no policy. */
export const isEmpty = (p: RetentionPolicy): boolean => (p.rules ?? []).length === 0 && cronOf(p) === "";

const untaggedOf = (s: RetentionSelector | undefined): boolean => {
  try {
    return (JSON.parse(s?.extras || "{}") as { untagged?: unknown }).untagged === true;
  } catch {
    return false;
  }
};

/** Harbor's rule in the spec's terms. */
export function compared(r: RetentionRule): ComparedRule {
  const tag = r.tag_selectors?.[0];
  const repo = r.scope_selectors?.repository?.[0];
  const template = r.template ?? "";
  const raw = r.params?.[template];
  const value = typeof raw === "number" ? raw : undefined;
  const counted = template === "latestPushedK" || template === "latestPulledN";
  const dated = template === "nDaysSinceLastPush" || template === "nDaysSinceLastPull";
  return {
    template,
    ...(counted && value !== undefined ? { count: value } : {}),
    ...(dated && value !== undefined ? { days: value } : {}),
    repositories: {
      decoration: repo?.decoration === "repoExcludes" ? "excludes" : "matches",
      pattern: repo?.pattern ?? "",
    },
    tags: {
      decoration: tag?.decoration === "excludes" ? "excludes" : "matches",
      pattern: tag?.pattern ?? "",
    },
    untagged: untaggedOf(tag),
    disabled: r.disabled ?? false,
  };
}

const RULE_FIELDS = ["template", "count", "days", "untagged", "disabled"] as const;

/** The spec fields whose Harbor value differs: schedule, rules, or rules[i].<field>. */
export function diff(spec: HarborRetentionPolicySpec, observed: ObservedRetention): string[] {
  const out: string[] = [];
  if (cronOf(observed.policy) !== (effectiveCron(spec.schedule) ?? "")) out.push("schedule");
  const have = (observed.policy.rules ?? []).map(compared);
  if (have.length !== spec.rules.length) {
    out.push("rules");
    return out;
  }
  spec.rules.forEach((want, i) => {
    const got = have[i] as ComparedRule;
    for (const f of RULE_FIELDS) if (want[f] !== got[f]) out.push(`rules[${i}].${f}`);
    for (const s of ["repositories", "tags"] as const)
      for (const f of ["decoration", "pattern"] as const)
        if (want[s][f] !== got[s][f]) out.push(`rules[${i}].${s}.${f}`);
  });
  return out;
}

export function runStatus(e: RetentionExecution): RetentionRunStatus {
  const running = !FINAL_STATUSES.includes(e.status ?? "");
  const end = e.end_time && !e.end_time.startsWith("0001-") ? e.end_time : undefined;
  return {
    id: e.id,
    status: safeText(e.status ?? "Unknown", 32),
    ...(e.trigger ? { trigger: safeText(e.trigger, 32) } : {}),
    ...(typeof e.dry_run === "boolean" ? { dryRun: e.dry_run } : {}),
    ...(e.start_time ? { startTime: e.start_time } : {}),
    ...(!running && end ? { endTime: end } : {}),
  };
}

export const isRunning = (run: RetentionRunStatus | undefined): boolean =>
  run !== undefined && !FINAL_STATUSES.includes(run.status);

export function status(observed: ObservedRetention): { projectId: number; lastRun?: RetentionRunStatus } {
  if (observed.runsRead === false) return { projectId: observed.projectId };
  return {
    projectId: observed.projectId,
    // A field set to undefined is removed from status.
    lastRun: observed.lastRun ? runStatus(observed.lastRun) : undefined,
  };
}

/** How Events name the policy. */
export function describe(observed: ObservedRetention): string {
  const rules = observed.policy.rules?.length ?? 0;
  const cron = cronOf(observed.policy);
  return `retention policy ${observed.id} (${rules} rule${rules === 1 ? "" : "s"}, ${cron ? `cron ${cron}` : "no schedule"})`;
}

// -------------------------------------------------------------------------------------------
// Harbor → spec (the export's inverse of policyRequest)

/** The schedule a cron stands for: the type whose UI default it is, else Custom; "" is None. */
export function scheduleFromCron(cron: string): {
  type: "None" | "Hourly" | "Daily" | "Weekly" | "Custom";
  cron?: string;
} {
  if (cron === "") return { type: "None" };
  for (const type of ["Hourly", "Daily", "Weekly"] as const) if (DEFAULT_CRON[type] === cron) return { type };
  return { type: "Custom", cron };
}

/** Why the spec cannot say this rule, or undefined when it can. */
function unexpressible(r: RetentionRule, i: number): string | undefined {
  const repos = r.scope_selectors?.repository ?? [];
  const tags = r.tag_selectors ?? [];
  if (Object.keys(r.scope_selectors ?? {}).some((k) => k !== "repository"))
    return `rule ${i} has selectors other than repository ones`;
  if (repos.length !== 1 || tags.length !== 1)
    return `rule ${i} has other than one repository and one tag selector`;
  if ([...repos, ...tags].some((s) => s.kind !== "doublestar" || !s.pattern))
    return `rule ${i} has a selector that is not a doublestar pattern`;
  if (r.action !== undefined && r.action !== "retain") return `rule ${i} has action ${r.action}`;
  return undefined;
}

/**
 * The spec that reproduces Harbor's policy, with the project named by its resource; a policy
 * without rules and schedule is none, and one the spec cannot say is skipped with why.
 */
export function specFromPolicy(
  policy: RetentionPolicy,
  projectRef: string | undefined,
): { spec: Omit<z.input<typeof HarborRetentionPolicySpec>, keyof ManagedSpec> } | { skip: string } {
  if (projectRef === undefined) return { skip: "its project is not exported" };
  if (isEmpty(policy)) return { skip: "no rules and no schedule" };
  const rules = policy.rules ?? [];
  for (const [i, r] of rules.entries()) {
    const why = unexpressible(r, i);
    if (why) return { skip: why };
  }
  const spec = {
    projectRef: { name: projectRef },
    schedule: scheduleFromCron(cronOf(policy)),
    rules: rules.map((r) => {
      const c = compared(r);
      return {
        template: c.template as RetentionRuleSpec["template"],
        ...(c.count === undefined ? {} : { count: c.count }),
        ...(c.days === undefined ? {} : { days: c.days }),
        repositories: c.repositories,
        tags: c.tags,
        ...(c.untagged ? { untagged: true } : {}),
        ...(c.disabled ? { disabled: true } : {}),
      };
    }),
  };
  const parsed = HarborRetentionPolicySpec.safeParse({ ...spec, connectionRef: { name: "x" } });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { skip: `the spec cannot say it: ${issue?.path.join(".")}: ${issue?.message}` };
  }
  return { spec };
}
