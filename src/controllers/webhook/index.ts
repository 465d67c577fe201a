// HarborWebhookPolicy wiring. Delivery status (last triggers, failed deliveries) costs reads per
// policy (the policy, the project's last triggers, the policy's failed jobs). Refreshing it every
// drift interval would add three reads per policy to the sweep's one list per project, so a reconcile
// refreshes it every STATUS_REFRESH_INTERVALS drift intervals instead (20 min with the default 5 min),
// besides every reconcile that happens anyway.
import { HarborWebhookPolicySpec, harborWebhookPolicy } from "../../api/webhook.ts";
import { type Informers, type KindContext, managedKind } from "../shared/kinds.ts";
import { webhookExternal } from "./external.ts";

const STATUS_REFRESH_INTERVALS = 4;

export function webhookKind(ctx: KindContext, informers: Pick<Informers, "projects" | "webhookPolicies">) {
  return managedKind(ctx, {
    def: harborWebhookPolicy,
    specSchema: HarborWebhookPolicySpec,
    informer: informers.webhookPolicies,
    external: webhookExternal({
      projects: informers.projects,
      secrets: ctx.secrets,
      statusRefreshMs: ctx.driftIntervalMs * STATUS_REFRESH_INTERVALS,
    }),
  });
}
