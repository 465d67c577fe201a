// HarborWebhookPolicy wiring. Delivery status (last triggers, failed deliveries) costs three reads
// per policy (the policy, the project's last triggers, the policy's newest failed jobs): more than
// the drift sweep's budget of one list per project. It is refreshed by every reconcile that happens
// anyway, and otherwise every --status-refresh-interval (default 1 h).
import { HarborWebhookPolicySpec, harborWebhookPolicy } from "../../api/webhook.ts";
import { type Informers, type KindContext, managedKind } from "../shared/kinds.ts";
import { webhookExternal } from "./external.ts";

export function webhookKind(ctx: KindContext, informers: Pick<Informers, "projects" | "webhookPolicies">) {
  return managedKind(ctx, {
    def: harborWebhookPolicy,
    specSchema: HarborWebhookPolicySpec,
    informer: informers.webhookPolicies,
    external: webhookExternal({
      projects: informers.projects,
      secrets: ctx.secretUses,
      statusRefreshMs: ctx.statusRefreshIntervalMs,
    }),
  });
}
