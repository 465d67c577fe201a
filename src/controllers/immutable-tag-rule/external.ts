// HarborImmutableTagRule's ExternalClient. Choices where Harbor leaves room:
// - A rule has no name: it is found by its recorded id, and before it has one by its selectors
//   (Harbor keeps a rule once per project). The claim is the project and the selectors, so two
//   resources for the same rule conflict instead of fighting.
// - Harbor stores every new rule enabled: a disabled rule is created, then disabled (two requests).
// - An update whose `disabled` differs from Harbor's changes only the flag (the selectors in it are
//   ignored): changed selectors are sent first with Harbor's flag, then the flag on its own.
// - The drift sweep reads one list per project; the first rule of a project the operator has just
//   created is not looked up (a new project has none).

import type {
  HarborImmutableTagRuleSpec,
  HarborImmutableTagRuleStatus,
} from "../../api/immutable-tag-rule.ts";
import { isHarborError } from "../../harbor/errors.ts";
import type { ImmutableRule } from "../../harbor/immutable-tag-rule.ts";
import { forEachBounded, SWEEP_CONCURRENCY } from "../../runtime/bounded.ts";
import type { ExternalClient, ManagedObject } from "../../runtime/external-client.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { HarborConnectionHandle } from "../connection/handle.ts";
import type { FreshProjects } from "../shared/fresh-projects.ts";
import { type ProjectScope, projectScope } from "../shared/project-scope.ts";
import {
  applied,
  claimOf,
  describe,
  diff,
  type ObservedImmutableRule,
  ruleRequest,
  selectorDrift,
} from "./mapping.ts";

type Client = ExternalClient<
  HarborImmutableTagRuleSpec,
  ObservedImmutableRule,
  HarborConnectionHandle,
  ProjectScope,
  HarborImmutableTagRuleStatus
>;

const stored = (rules: ImmutableRule[]): ObservedImmutableRule[] =>
  rules.filter((r): r is ObservedImmutableRule => typeof r.id === "number");

export function immutableExternal(deps: {
  projects: Informer<ManagedObject>;
  fresh?: FreshProjects;
}): Client {
  return {
    async prepare({ resource, spec, conn }) {
      return projectScope(deps.projects, resource, spec, conn);
    },

    async observe({ conn, knownId, spec, extra, signal }) {
      if (
        knownId === undefined &&
        deps.fresh?.firstLookup(conn.harbor, extra.projectId, "immutable tag rule")
      )
        return undefined;
      let listed: ImmutableRule[];
      try {
        listed = await conn.client.immutable.list(extra.projectId, { signal });
      } catch (e) {
        // The project is gone, and its rules with it.
        if (isHarborError(e, "notFound")) return undefined;
        throw e;
      }
      const rules = stored(listed);
      if (knownId !== undefined) return rules.find((r) => r.id === knownId);
      return rules.find((r) => selectorDrift(spec, r).length === 0);
    },

    async create({ conn, spec, extra, signal }) {
      const request = ruleRequest(spec, false);
      const id = await conn.client.immutable.create(extra.projectId, request, { signal });
      if (!spec.disabled) return applied(id, request);
      const off = ruleRequest(spec, true);
      await conn.client.immutable.update(extra.projectId, id, off, { signal });
      return applied(id, off);
    },

    async update({ conn, spec, extra, signal }, current) {
      let rule: ObservedImmutableRule = current;
      if (selectorDrift(spec, current).length) {
        const request = ruleRequest(spec, current.disabled ?? false);
        await conn.client.immutable.update(extra.projectId, current.id, request, { signal });
        rule = applied(current.id, request);
      }
      if (spec.disabled !== (rule.disabled ?? false)) {
        const request = ruleRequest(spec, spec.disabled);
        await conn.client.immutable.update(extra.projectId, current.id, request, { signal });
        rule = applied(current.id, request);
      }
      return rule;
    },

    async delete({ conn, extra, signal }, current) {
      try {
        await conn.client.immutable.delete(extra.projectId, current.id, { signal });
      } catch (e) {
        if (!isHarborError(e, "notFound")) throw e;
      }
    },

    diff: ({ spec }, observed) => diff(spec, observed),
    id: (observed) => observed.id,
    // Rules are listed per project, and Harbor never reuses an id.
    describe,
    status: ({ extra }) => ({ projectId: extra.projectId }),

    async observeMany(conn, inputs) {
      const found = new Map<number, ObservedImmutableRule>();
      const projects = new Set(inputs.map((i) => i.extra.projectId));
      await forEachBounded(projects, SWEEP_CONCURRENCY, async (projectId) => {
        let rules: ImmutableRule[];
        try {
          rules = await conn.client.immutable.list(projectId);
        } catch (e) {
          // The project is gone: its rules are missing, which their reconciles handle.
          if (isHarborError(e, "notFound") || isHarborError(e, "forbidden")) return;
          throw e;
        }
        for (const r of stored(rules)) found.set(r.id, r);
      });
      return found;
    },

    claim: (spec, _harborName, namespace) => claimOf(spec, namespace),
  };
}
