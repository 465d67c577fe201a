// HarborPreheatInstance's exporter (see shared/export.ts): every instance in one list, by its id. A
// credential becomes a Secret stub (the BASIC username, which is no secret, filled in); comparing a
// folder with Harbor checks the auth mode, and the credential only when the folder's Secret holds it.
import type { HarborPreheatInstanceSpec } from "../../api/preheat-instance.ts";
import type { PreheatInstance } from "../../harbor/preheat.ts";
import type { HarborObjectView, KindExporter } from "../shared/export.ts";
import { CREDENTIAL_KEYS, diff, specFromInstance } from "./mapping.ts";

/** Stands for the credential Secret's version on both sides: the version is not compared. */
const UNCOMPARED = "not compared";

export const preheatInstanceExporter: KindExporter<HarborPreheatInstanceSpec> = {
  async read(ctx) {
    const instances = await ctx.harbor.preheat.listInstances({}, { signal: ctx.signal });
    return instances.filter((i) => typeof i.id === "number").map(view);
  },
  keyOf: (_spec, harborName) => harborName,
  secretField: (field) => field === "auth.secretRef",
};

function view(i: PreheatInstance): HarborObjectView<HarborPreheatInstanceSpec> {
  const name = i.name ?? "";
  return {
    identity: { id: i.id ?? 0, key: name, harborName: name, suggestedName: name, projects: [] },
    spec: (names) => specFromInstance(i, names.self),
    diff(spec, harborName, refs) {
      const ref = spec.auth.secretRef;
      const values = ref ? refs.secret(ref.name) : undefined;
      const keys = spec.auth.mode === "NONE" ? [] : CREDENTIAL_KEYS[spec.auth.mode];
      const complete = values && keys.every((k) => values[k]);
      const info = complete ? Object.fromEntries(keys.map((k) => [k, values[k] as string])) : undefined;
      return diff(spec, harborName, info ? { info, version: UNCOMPARED } : undefined, UNCOMPARED, i);
    },
  };
}
