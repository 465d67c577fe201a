// A tag rule as Harbor models it (RetentionRule in its API): the same shape for a retention policy's
// rules (/retentions) and a project's immutable tag rules (/projects/{project}/immutabletagrules).
import { z } from "zod";
import { nullAsAbsent } from "./common.ts";

/** A doublestar selector: `repoMatches`/`repoExcludes` for repositories, `matches`/`excludes` for tags. */
export const TagSelector = z.object({
  /** Always "doublestar". */
  kind: z.string().optional(),
  decoration: z.string().optional(),
  pattern: z.string().optional(),
  /** For retention tag selectors, a JSON text: `{"untagged":true}` also selects untagged artifacts. */
  extras: z.string().optional(),
});
export type TagSelector = z.output<typeof TagSelector>;

export const TagRule = z.object({
  id: z.number().int().optional(),
  priority: z.number().int().optional(),
  disabled: z.boolean().optional(),
  /** "retain" for retention rules, "immutable" for immutable tag rules. */
  action: z.string().optional(),
  /** A retention template, or "immutable_template". */
  template: z.string().optional(),
  params: nullAsAbsent(z.record(z.string(), z.unknown())),
  tag_selectors: nullAsAbsent(z.array(TagSelector)),
  /** Keyed by "repository". */
  scope_selectors: nullAsAbsent(z.record(z.string(), z.array(TagSelector))),
});
export type TagRule = z.output<typeof TagRule>;
