// HarborRegistry wiring. The composition queues a registry when its credentials Secret changes (for
// Secrets labelled harborconfig.io/watch: "true"); the drift sweep, which reads the Secret through
// prepare, finds other changes within the drift interval.
import { HarborRegistrySpec, harborRegistry } from "../../api/registry.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { ErrorClassifier, ManagedObject } from "../../runtime/managed.ts";
import { harborErrors } from "../shared/errors.ts";
import { type KindContext, managedKind } from "../shared/kinds.ts";
import { RegistryUnhealthy, registryExternal } from "./external.ts";

/** The shared classification, plus an unreachable remote: not Stalled, retried with backoff. */
const registryErrors: ErrorClassifier = {
  classify: (e) =>
    e instanceof RegistryUnhealthy
      ? { reason: "RegistryUnhealthy", message: e.message, terminal: false }
      : harborErrors.classify(e),
};

export function registryKind(ctx: KindContext, informers: { registries: Informer<ManagedObject> }) {
  return managedKind(ctx, {
    def: harborRegistry,
    specSchema: HarborRegistrySpec,
    informer: informers.registries,
    external: registryExternal({ secrets: ctx.secretUses }),
    errors: registryErrors,
  });
}
