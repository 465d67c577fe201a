// HarborConfiguration's exporter (see shared/export.ts): the configuration and the system CVE
// allowlist, two reads. Only settings Harbor holds at other than its defaults are written; all at
// defaults: no resource is written (a folder's is still compared). Secret-held settings (the LDAP
// bind password, the OIDC client secret) are never shown by Harbor and so never exported.
import type { HarborConfigurationSpec } from "../../api/configuration.ts";
import { type KindExporter, settingView } from "../shared/export.ts";
import { diff, specFromConfiguration } from "./mapping.ts";

const SETTING = "configuration";

export const configurationExporter: KindExporter<HarborConfigurationSpec> = {
  async read(ctx) {
    const [config, allowlist] = await Promise.all([
      ctx.harbor.system.getConfigurations({ signal: ctx.signal }),
      ctx.harbor.system.getCveAllowlist({ signal: ctx.signal }),
    ]);
    const observed = { config, allowlist };
    const exported = specFromConfiguration(observed);
    return [
      settingView(
        SETTING,
        exported && { spec: exported.spec, ...(exported.notes.length ? { notes: exported.notes } : {}) },
        // A folder holds no secret values: Secret-held settings are not compared.
        (spec) => diff(spec, observed, "", {}, undefined),
      ),
    ];
  },
  keyOf: () => SETTING,
};
