// HarborImmutableTagRule's pure mapping: spec → Harbor's rule, Harbor's rule → drift and status.
// Harbor's UI writes a rule as action "immutable", template "immutable_template", one repository
// selector under scope_selectors.repository (repoMatches / repoExcludes) and one tag selector
// (matches / excludes), all of kind doublestar; the operator writes the same.
import type { z } from "zod";
import type { HarborImmutableTagRuleSpec } from "../../api/immutable-tag-rule.ts";
import type { ImmutableRule, ImmutableRuleRequest } from "../../harbor/immutable-tag-rule.ts";
import type { ManagedSpec } from "../../runtime/external-client.ts";

/** A rule Harbor holds, with its id. */
export type ObservedImmutableRule = ImmutableRule & { id: number };

interface Selectors {
  repositories: { decoration: "matches" | "excludes"; pattern: string };
  tags: { decoration: "matches" | "excludes"; pattern: string };
}

export function ruleRequest(spec: Selectors, disabled: boolean): ImmutableRuleRequest {
  return {
    disabled,
    action: "immutable",
    template: "immutable_template",
    tag_selectors: [{ kind: "doublestar", decoration: spec.tags.decoration, pattern: spec.tags.pattern }],
    scope_selectors: {
      repository: [
        {
          kind: "doublestar",
          decoration: spec.repositories.decoration === "excludes" ? "repoExcludes" : "repoMatches",
          pattern: spec.repositories.pattern,
        },
      ],
    },
  };
}

/** Harbor's rule in the spec's terms. */
export function selectorsOf(r: ImmutableRule): Selectors {
  const repo = r.scope_selectors?.repository?.[0];
  const tag = r.tag_selectors?.[0];
  return {
    repositories: {
      decoration: repo?.decoration === "repoExcludes" ? "excludes" : "matches",
      pattern: repo?.pattern ?? "",
    },
    tags: {
      decoration: tag?.decoration === "excludes" ? "excludes" : "matches",
      pattern: tag?.pattern ?? "",
    },
  };
}

/** The selector fields whose Harbor value differs. */
export function selectorDrift(spec: Selectors, observed: ImmutableRule): string[] {
  const have = selectorsOf(observed);
  const out: string[] = [];
  for (const s of ["repositories", "tags"] as const)
    for (const f of ["decoration", "pattern"] as const) if (spec[s][f] !== have[s][f]) out.push(`${s}.${f}`);
  return out;
}

export function diff(spec: HarborImmutableTagRuleSpec, observed: ImmutableRule): string[] {
  const out = selectorDrift(spec, observed);
  if (spec.disabled !== (observed.disabled ?? false)) out.push("disabled");
  return out;
}

/** The rule after `request` was applied to `current` (or created). */
export const applied = (id: number, request: ImmutableRuleRequest): ObservedImmutableRule =>
  ({ ...request, id }) as ObservedImmutableRule;

/** One owner per rule: the same selectors in one project are one rule in Harbor. */
export function claimOf(spec: HarborImmutableTagRuleSpec, namespace: string): string {
  return `immutable:${ruleKey(`${namespace}/${spec.projectRef.name}`, spec)}`;
}

export const describe = (o: ImmutableRule): string => {
  const s = selectorsOf(o);
  return `immutable rule ${o.id} (repositories ${s.repositories.decoration} ${s.repositories.pattern}, tags ${s.tags.decoration} ${s.tags.pattern})`;
};

/** The key of a rule within its Harbor: its project and selectors, which Harbor keeps once. */
export function ruleKey(project: string, s: Selectors): string {
  return `${project}/${s.repositories.decoration}:${s.repositories.pattern}/${s.tags.decoration}:${s.tags.pattern}`;
}

/** The spec that reproduces Harbor's rule (the export's inverse of ruleRequest), or why it cannot. */
export function specFromRule(
  rule: ImmutableRule,
  projectRef: string | undefined,
): { spec: Omit<z.input<typeof HarborImmutableTagRuleSpec>, keyof ManagedSpec> } | { skip: string } {
  if (projectRef === undefined) return { skip: "its project is not exported" };
  const repos = rule.scope_selectors?.repository ?? [];
  const tags = rule.tag_selectors ?? [];
  if (repos.length !== 1 || tags.length !== 1)
    return { skip: "it has other than one repository and one tag selector" };
  if ([...repos, ...tags].some((s) => s.kind !== "doublestar" || !s.pattern))
    return { skip: "a selector is not a doublestar pattern" };
  const s = selectorsOf(rule);
  return {
    spec: {
      projectRef: { name: projectRef },
      repositories: s.repositories,
      tags: s.tags,
      ...(rule.disabled ? { disabled: true } : {}),
    },
  };
}
