// HarborScannerRegistration's exporter (see shared/export.ts): every registration in one list, by
// its UUID. A credential becomes a Secret stub; comparing a folder with Harbor checks the auth type,
// and the credential only when the folder's Secret holds one (Harbor 2.12 shows the stored one).
import type { HarborScannerRegistrationSpec } from "../../api/scanner.ts";
import type { ScannerRegistration } from "../../harbor/scanners.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { diff, specFromRegistration } from "./mapping.ts";

/** Stands for the credential Secret's version on both sides: the version is not compared. */
const UNCOMPARED = "not compared";

export const scannerExporter: KindExporter<HarborScannerRegistrationSpec> = {
  async read(ctx) {
    const registrations = await ctx.harbor.scanners.list({}, { signal: ctx.signal });
    return registrations.filter((r) => r.uuid).map(view);
  },
  keyOf: (_spec, harborName) => harborName,
  secretField: (field) => field === "auth.secretRef",
};

function view(r: ScannerRegistration): HarborObjectView<HarborScannerRegistrationSpec> {
  const name = r.name ?? "";
  return {
    identity: { id: r.uuid ?? "", key: name, harborName: name, suggestedName: name, projects: [] },
    spec: (names) => specFromRegistration(r, names.self),
    diff(spec, harborName, refs) {
      const ref = spec.auth?.secretRef;
      const value = ref ? refs.secret(ref.name)?.[ref.key] : undefined;
      return diff(spec, harborName, value ? { value, version: UNCOMPARED } : undefined, UNCOMPARED, r);
    },
  };
}
