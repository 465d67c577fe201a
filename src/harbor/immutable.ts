// Immutable tag rules (/projects/{project_name_or_id}/immutabletagrules): tags a rule selects can
// be neither overwritten by a push nor deleted. What Harbor does with these requests is written
// down in README.md (immutable tag rules).
import { z } from "zod";
import { nullAsAbsent, type ProjectRef, projectHeaders } from "./common.ts";
import { type CallOptions, type HarborTransport, path } from "./transport.ts";

export const ImmutableSelector = z.object({
  /** Always "doublestar". */
  kind: z.string().optional(),
  /** repoMatches / repoExcludes for repositories, matches / excludes for tags. */
  decoration: z.string().optional(),
  pattern: z.string().optional(),
  extras: z.string().optional(),
});
export type ImmutableSelector = z.output<typeof ImmutableSelector>;

export const ImmutableRule = z.object({
  id: z.number().int().optional(),
  priority: z.number().int().optional(),
  disabled: z.boolean().optional(),
  /** Always "immutable". */
  action: z.string().optional(),
  /** Always "immutable_template". */
  template: z.string().optional(),
  params: nullAsAbsent(z.record(z.string(), z.unknown())),
  tag_selectors: nullAsAbsent(z.array(ImmutableSelector)),
  /** Keyed by "repository". */
  scope_selectors: nullAsAbsent(z.record(z.string(), z.array(ImmutableSelector))),
});
export type ImmutableRule = z.output<typeof ImmutableRule>;
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
