// The wire model of a tag rule, which Harbor's API has once (a retention policy's rules and a
// project's immutable tag rules take the same fields) under two Go type names.
import { z } from "zod";

/** The selector and rule models, named as the Go types Harbor decodes them into (error texts say them). */
export function tagRuleModels(goTypes: { selector: string; rule: string }) {
  const Selector = z
    .object({
      kind: z.string().nullish(),
      decoration: z.string().nullish(),
      pattern: z.string().nullish(),
      extras: z.string().nullish(),
    })
    .meta({ goType: goTypes.selector });
  const Rule = z
    .object({
      id: z.number().int().nullish(),
      priority: z.number().int().nullish(),
      disabled: z.boolean().nullish(),
      action: z.string().nullish(),
      template: z.string().nullish(),
      params: z.record(z.string(), z.unknown()).nullish(),
      tag_selectors: z.array(Selector.nullable()).nullish(),
      scope_selectors: z.record(z.string(), z.array(Selector.nullable())).nullish(),
    })
    .meta({ goType: goTypes.rule });
  return { Selector, Rule };
}
