// HarborRegistry's exporter (see shared/export.ts): every registry in one list. A registry with a
// credential gets a Secret stub; comparing a folder with Harbor checks the credential's type and
// access key (when the folder's Secret holds one), never its secret, which Harbor never shows.
import type { HarborRegistrySpec } from "../../api/registry.ts";
import type { Registry } from "../../harbor/registries.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { diff, type RegistryCredentials, specFromRegistry } from "./mapping.ts";

/** Stands for the credentials' Secret version on both sides: the secret itself is not compared. */
const UNCOMPARED = "not compared";

export const registryExporter: KindExporter<HarborRegistrySpec> = {
  async read(ctx) {
    const registries = await ctx.harbor.registries.list({}, { signal: ctx.signal });
    // Id 0 is Harbor's own Local registry, which no resource manages.
    return registries.filter((r) => r.id !== 0).map(view);
  },
  keyOf: (_spec, harborName) => harborName,
  secretField: (field) => field === "credential",
};

function view(registry: Registry): HarborObjectView<HarborRegistrySpec> {
  const name = registry.name ?? "";
  return {
    identity: { id: registry.id, key: name, harborName: name, suggestedName: name, projects: [] },
    spec: (names) => specFromRegistry(registry, names.self),
    diff(spec, harborName, refs) {
      let credentials: RegistryCredentials | undefined;
      if (spec.credential) {
        const folder = refs.secret(spec.credential.secretRef.name)?.[spec.credential.secretRef.accessKeyKey];
        credentials = {
          accessKey: folder || (registry.credential?.access_key ?? ""),
          accessSecret: "",
          version: UNCOMPARED,
        };
      }
      return diff(spec, harborName, credentials, UNCOMPARED, registry);
    },
  };
}
