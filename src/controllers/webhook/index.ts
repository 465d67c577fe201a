// HarborWebhookPolicy: a project's webhook to HTTP or Slack targets. Delivery status (last
// triggers, failed deliveries) costs three reads per policy (the policy, the project's last
// triggers, the policy's newest failed jobs): more than the drift sweep's budget of one list per
// project. It is refreshed by every reconcile that happens anyway, and otherwise every
// --status-refresh-interval (default 1 h).
import { harborWebhookPolicy } from "../../api/webhook.ts";
import { defineKind } from "../shared/kinds.ts";
import { webhookExporter } from "./export.ts";
import { webhookExternal } from "./external.ts";

export const webhookKind = defineKind({
  def: harborWebhookPolicy,
  exporter: webhookExporter,
  watches: {
    references: { HarborProject: (spec) => spec.projectRef.name },
    secrets: (spec) => spec.targets.map((t) => t.authHeaderSecretRef?.name),
  },
  external: ({ ctx, informer, fresh }) =>
    webhookExternal({
      fresh,
      projects: informer("HarborProject"),
      secrets: ctx.secretUses,
      statusRefreshMs: ctx.statusRefreshIntervalMs,
    }),
});
