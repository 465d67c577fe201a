// HarborPreheatPolicy ⇄ Harbor preheat policy, as pure functions.
//
// Harbor keeps filters and trigger as JSON text: filters a list of {type, value}, the trigger
// {type, trigger_setting: {cron}}. It stores them as sent (a scheduled trigger is written again in
// its own encoding once scheduled), so both are compared by meaning, never as text.
//
// The scope follows the release (`EXTRA_ATTRS_SINCE`): up to 2.12 it is the policy's `scope`
// (single_peer, all_peers), compared only when Harbor shows one; from 2.13 `scope` is gone and the
// scope lives in `extra_attrs`, a JSON object in a string ({"scope":"all_peers"}, values
// single_seed_peer, all_seed_peers, all_peers), always compared there (none is Harbor's default,
// single_seed_peer), and its other attributes are sent back as Harbor has them. 2.12's single_peer
// and 2.13's single_seed_peer are one scope under two names: each release gets its own word. all_seed_peers has no 2.12 word: refused there by name.
// A release that names none is taken as the newest known (src/harbor/release.ts).
import { z } from "zod";
import { type HarborPreheatPolicySpec, PREHEAT_SCOPES, type PreheatScope } from "../../api/preheat-policy.ts";
import type { PreheatPolicy, PreheatPolicyReq } from "../../harbor/preheat.ts";
import { CHANGES } from "../../harbor/release.ts";
import type { SpecFields } from "../shared/export.ts";
import type { HarborRelease } from "../shared/harbor-release.ts";

/** The release from which a policy's scope is in extra_attrs, with Dragonfly's seed-peer words. */
export const EXTRA_ATTRS_SINCE = CHANGES.preheatScopeInExtraAttrs;

const byExtraAttrs = (release: HarborRelease) => release.atLeast(EXTRA_ATTRS_SINCE);

/** The spec's scope in the release's word: single_peer (2.12) and single_seed_peer (2.13) are one. */
export function harborScope(scope: PreheatScope, release: HarborRelease): string {
  if (byExtraAttrs(release)) return scope === "single_peer" ? "single_seed_peer" : scope;
  return scope === "single_seed_peer" ? "single_peer" : scope;
}

/** Why this Harbor cannot take the spec's scope, or undefined. */
export function unsupportedScope(spec: HarborPreheatPolicySpec, release: HarborRelease): string | undefined {
  if (byExtraAttrs(release) || spec.scope !== "all_seed_peers") return undefined;
  return `spec.scope all_seed_peers needs Harbor ${EXTRA_ATTRS_SINCE} or later; this Harbor is ${release.version}, whose scopes are single_peer (single_seed_peer) and all_peers`;
}

/** extra_attrs as an object; {} when absent or not a JSON object. */
function extraAttrs(text: string | undefined): Record<string, unknown> {
  const v = parse(text);
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Where extra_attrs holds no scope, Harbor (2.13 on) preheats to one seed peer: its default. */
const DEFAULT_SCOPE = "single_seed_peer";

/**
 * The scope Harbor holds, in its release's place: from 2.13 extra_attrs' scope, Harbor's default
 * where it has none; up to 2.12 `scope`, undefined where Harbor shows none.
 */
export function observedScope(o: PreheatPolicy, release: HarborRelease): string | undefined {
  if (byExtraAttrs(release)) {
    const scope = extraAttrs(o.extra_attrs).scope;
    return typeof scope === "string" && scope !== "" ? scope : DEFAULT_SCOPE;
  }
  return o.scope || undefined;
}

/** A policy Harbor holds, so with its id. */
export type ObservedPolicy = PreheatPolicy & { id: number };

interface Filter {
  type?: unknown;
  value?: unknown;
}

/** The filters as Harbor takes them: repository and tag always, label when the spec names labels. */
export function filtersText(spec: HarborPreheatPolicySpec): string {
  const f: Filter[] = [
    { type: "repository", value: spec.filters.repository },
    { type: "tag", value: spec.filters.tag },
  ];
  if (spec.filters.labels?.length) f.push({ type: "label", value: spec.filters.labels });
  return JSON.stringify(f);
}

export function triggerText(spec: HarborPreheatPolicySpec): string {
  return JSON.stringify({ type: spec.trigger.type, trigger_setting: { cron: spec.trigger.cron ?? "" } });
}

export function policyRequest(
  spec: HarborPreheatPolicySpec,
  name: string,
  instanceId: number,
  release: HarborRelease,
  current?: ObservedPolicy,
): PreheatPolicyReq {
  const scope = harborScope(spec.scope, release);
  return {
    ...(current ? { id: current.id } : {}),
    name,
    description: spec.description ?? current?.description ?? "",
    provider_id: instanceId,
    filters: filtersText(spec),
    trigger: triggerText(spec),
    enabled: spec.enabled,
    // Harbor's update replaces extra_attrs whole: the attributes besides the scope go back as they are.
    ...(byExtraAttrs(release)
      ? { extra_attrs: JSON.stringify({ ...extraAttrs(current?.extra_attrs), scope }) }
      : { scope }),
  };
}

function parse(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? "");
  } catch {
    return undefined;
  }
}

/** Harbor's filters read back: repository, tag and the sorted labels (undefined when absent). */
export function readFilters(text: string | undefined): {
  repository?: string;
  tag?: string;
  labels?: string[];
} {
  const list = parse(text);
  const out: { repository?: string; tag?: string; labels?: string[] } = {};
  if (!Array.isArray(list)) return out;
  for (const f of list as Filter[]) {
    if (f?.type === "repository" && typeof f.value === "string") out.repository = f.value;
    else if (f?.type === "tag" && typeof f.value === "string") out.tag = f.value;
    else if (f?.type === "label" && Array.isArray(f.value))
      out.labels = (f.value as unknown[]).filter((v): v is string => typeof v === "string").sort();
    else if (f?.type !== undefined) (out as Record<string, unknown>)[`other:${String(f.type)}`] = f.value;
  }
  return out;
}

export function readTrigger(text: string | undefined): { type?: string; cron?: string } {
  const t = parse(text) as { type?: unknown; trigger_setting?: { cron?: unknown } } | undefined;
  return {
    ...(typeof t?.type === "string" ? { type: t.type } : {}),
    ...(typeof t?.trigger_setting?.cron === "string" && t.trigger_setting.cron !== ""
      ? { cron: t.trigger_setting.cron }
      : {}),
  };
}

/** The spec fields whose Harbor value differs. */
export function diff(
  spec: HarborPreheatPolicySpec,
  name: string,
  instanceId: number | undefined,
  release: HarborRelease,
  o: PreheatPolicy,
): string[] {
  const out: string[] = [];
  if ((o.name ?? "") !== name) out.push("name");
  if (spec.description !== undefined && (o.description ?? "") !== spec.description) out.push("description");
  if (instanceId !== undefined && o.provider_id !== instanceId) out.push("instanceRef");
  const f = readFilters(o.filters);
  const extra = Object.keys(f).some((k) => k.startsWith("other:"));
  if (f.repository !== spec.filters.repository || extra) out.push("filters.repository");
  if (f.tag !== spec.filters.tag) out.push("filters.tag");
  const want = [...(spec.filters.labels ?? [])].sort();
  if (JSON.stringify(f.labels ?? []) !== JSON.stringify(want)) out.push("filters.labels");
  const t = readTrigger(o.trigger);
  if (t.type !== spec.trigger.type) out.push("trigger.type");
  else if ((t.cron ?? undefined) !== spec.trigger.cron) out.push("trigger.cron");
  const scope = observedScope(o, release);
  if (scope !== undefined && scope !== harborScope(spec.scope, release)) out.push("scope");
  if ((o.enabled ?? false) !== spec.enabled) out.push("enabled");
  return out;
}

/**
 * The spec that reproduces a policy: its filters and trigger read back from Harbor's text, the
 * project and instance named by their exported resources. A filter the spec cannot express
 * (vulnerability, signature) or a reference not exported skips it.
 */
export function specFromPolicy(
  p: PreheatPolicy,
  projectName: string | undefined,
  instanceName: string | undefined,
  release: HarborRelease,
): { spec: SpecFields<typeof HarborPreheatPolicySpec> } | { skip: string } {
  if (!projectName) return { skip: "its project is not exported" };
  if (!instanceName) return { skip: "its preheat instance is not exported" };
  const f = readFilters(p.filters);
  const other = Object.keys(f).filter((k) => k.startsWith("other:"));
  if (other.length)
    return { skip: `it filters by ${other.map((k) => k.slice(6)).join(", ")}, which a spec cannot express` };
  const t = readTrigger(p.trigger);
  const type = z.enum(["manual", "scheduled", "event_based"]).safeParse(t.type);
  if (!type.success) return { skip: `its trigger "${t.type ?? ""}" is not one a spec can hold` };
  const scope = z.enum(PREHEAT_SCOPES).safeParse(observedScope(p, release));
  return {
    spec: {
      name: p.name ?? "",
      projectRef: { name: projectName },
      instanceRef: { name: instanceName },
      ...(p.description ? { description: p.description } : {}),
      filters: {
        repository: f.repository ?? "**",
        tag: f.tag ?? "**",
        ...(f.labels?.length ? { labels: f.labels } : {}),
      },
      trigger: { type: type.data, ...(type.data === "scheduled" && t.cron ? { cron: t.cron } : {}) },
      ...(scope.success ? { scope: scope.data } : {}),
      enabled: p.enabled ?? false,
    },
  };
}
