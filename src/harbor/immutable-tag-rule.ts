// Immutable tag rules (/projects/{project_name_or_id}/immutabletagrules): tags a rule selects can
// be neither overwritten by a push nor deleted. What Harbor does with these requests is written
// down in README.md (immutable tag rules).
import type { z } from "zod";
import { type ProjectRef, projectHeaders } from "./common.ts";
import { path } from "./request-url.ts";
import { TagRule, TagSelector } from "./tag-rule.ts";
import type { CallOptions, HarborTransport } from "./transport.ts";

/** Harbor's model of a rule is the same for retention and immutable tags (see tag-rule.ts). */
export const ImmutableSelector = TagSelector;
export type ImmutableSelector = TagSelector;

/** An immutable tag rule: action "immutable", template "immutable_template". */
export const ImmutableRule = TagRule;
export type ImmutableRule = TagRule;
export type ImmutableRuleRequest = z.input<typeof ImmutableRule>;

export class ImmutableApi {
  readonly #t: HarborTransport;

  constructor(transport: HarborTransport) {
    this.#t = transport;
  }

  /** ListImmuRules: every rule of the project, by id. */
  list(project: ProjectRef, opts?: CallOptions): Promise<ImmutableRule[]> {
    return this.#t.listAll(
      {
        ...opts,
        operation: "ListImmuRules",
        method: "GET",
        path: path`/projects/${project}/immutabletagrules`,
        headers: projectHeaders(project),
      },
      ImmutableRule,
    );
  }

  /**
   * CreateImmuRule: the new rule's id. Harbor stores every new rule enabled, whatever `disabled`
   * says; a rule identical to one created before is a conflict (409).
   */
  async create(project: ProjectRef, rule: ImmutableRuleRequest, opts?: CallOptions): Promise<number> {
    const body = ImmutableRule.parse(rule);
    return Number(
      await this.#t.created({
        ...opts,
        operation: "CreateImmuRule",
        method: "POST",
        path: path`/projects/${project}/immutabletagrules`,
        headers: projectHeaders(project),
        body,
      }),
    );
  }

  /**
   * UpdateImmuRule: body.id must be `id`. When `disabled` differs from Harbor's, only the flag
   * changes (the selectors sent are ignored); otherwise the selectors are replaced.
   */
  update(project: ProjectRef, id: number, rule: ImmutableRuleRequest, opts?: CallOptions): Promise<void> {
    const body = ImmutableRule.parse({ ...rule, id });
    return this.#t.noContent({
      ...opts,
      operation: "UpdateImmuRule",
      method: "PUT",
      path: path`/projects/${project}/immutabletagrules/${id}`,
      headers: projectHeaders(project),
      body,
    });
  }

  /** DeleteImmuRule */
  delete(project: ProjectRef, id: number, opts?: CallOptions): Promise<void> {
    return this.#t.noContent({
      ...opts,
      operation: "DeleteImmuRule",
      method: "DELETE",
      path: path`/projects/${project}/immutabletagrules/${id}`,
      headers: projectHeaders(project),
    });
  }
}
