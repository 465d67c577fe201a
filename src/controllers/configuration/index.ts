// HarborConfiguration: the system configuration settings a spec sets (the rest left alone) and the
// system CVE allowlist, one per Harbor.
import { harborConfiguration } from "../../api/configuration.ts";
import { defineKind } from "../shared/kinds.ts";
import { configurationExporter } from "./export.ts";
import { configurationExternal } from "./external.ts";
import { CONFIGURATION_RELEASE_FIELDS } from "./mapping.ts";

export const configurationKind = defineKind({
  def: harborConfiguration,
  watches: {
    secrets: (spec) => [
      spec.auth?.ldap?.bindPasswordSecretRef?.name,
      spec.auth?.oidc?.clientSecretSecretRef?.name,
    ],
  },
  exporter: configurationExporter,
  releaseFields: CONFIGURATION_RELEASE_FIELDS,
  external: ({ ctx }) => configurationExternal({ secrets: ctx.secretUses }),
});
