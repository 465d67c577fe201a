// HarborRobot: a robot account and the Secrets that deliver its credentials. It follows its
// project, its own Secrets (label harborconfig.io/watch, owner annotation: handled for every kind
// that owns Secrets), Namespaces (copies go to namespaces chosen by labels, cluster-wide) and the
// ServiceAccounts it names (see pull-secret-links.ts).
import { harborRobot } from "../../api/robot.ts";
import { defineKind } from "../shared/kinds.ts";
import { RobotDelivery } from "./delivery.ts";
import { robotExporter } from "./export.ts";
import { robotExternal } from "./external.ts";
import { linksServiceAccount } from "./pull-secret-links.ts";

export const robotKind = defineKind({
  def: harborRobot,
  exporter: robotExporter,
  ownsSecrets: true,
  watches: {
    references: { HarborProject: (spec) => spec.projectRef?.name },
    namespaces: (spec) => spec.secret?.copies !== undefined,
    serviceAccounts: linksServiceAccount,
  },
  external: ({ ctx, informer, namespaces, fresh }) =>
    robotExternal({
      fresh,
      projects: informer("HarborProject"),
      delivery: new RobotDelivery({
        kube: ctx.kube,
        secrets: ctx.secrets,
        namespaces,
        ...(ctx.namespaces?.length ? { watchedNamespaces: ctx.namespaces } : {}),
        copiesWithoutConsent: ctx.copiesWithoutConsent ?? "keep",
      }),
      events: ctx.events,
      metrics: ctx.metrics,
    }),
});
