// HarborRegistry: a remote registry endpoint. Its credential Secret (when labelled
// harborconfig.io/watch: "true") queues it at once; the drift sweep, which reads the Secret through
// prepare, finds other changes within the drift interval.
import { harborRegistry } from "../../api/registry.ts";
import type { ErrorClassifier } from "../../runtime/external-client.ts";
import { harborErrors } from "../shared/errors.ts";
import { defineKind } from "../shared/kinds.ts";
import { registryExporter } from "./export.ts";
import { RegistryUnhealthy, registryExternal } from "./external.ts";
import { REGISTRY_RELEASE_FIELDS } from "./mapping.ts";

/** The shared classification, plus an unreachable remote: not Stalled, retried with backoff. */
const registryErrors: ErrorClassifier = {
  classify: (e) =>
    e instanceof RegistryUnhealthy
      ? { reason: "RegistryUnhealthy", message: e.message, terminal: false }
      : harborErrors.classify(e),
};

export const registryKind = defineKind({
  def: harborRegistry,
  exporter: registryExporter,
  releaseFields: REGISTRY_RELEASE_FIELDS,
  watches: { secrets: (spec) => [spec.credential?.secretRef.name] },
  external: ({ ctx }) => registryExternal({ secrets: ctx.secretUses }),
  errors: registryErrors,
});
