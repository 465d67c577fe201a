// HarborPreheatInstance: a P2P provider instance, optionally Harbor's default one (a per-Harbor
// setting one resource may hold). Its credential Secret (when labelled harborconfig.io/watch: "true")
// queues it at once; policies that use it are HarborPreheatPolicy's references (their going queues
// an instance whose deletion waits for them).
import { harborPreheatInstance } from "../../api/preheat-instance.ts";
import type { ErrorClassifier } from "../../runtime/external-client.ts";
import { harborErrors } from "../shared/errors.ts";
import { defineKind } from "../shared/kinds.ts";
import { preheatInstanceExporter } from "./export.ts";
import { PROVIDER_UNREACHABLE, ProviderUnreachable, preheatInstanceExternal } from "./external.ts";

/** The shared classification, plus an unreachable provider: not Stalled, retried with backoff. */
const preheatInstanceErrors: ErrorClassifier = {
  classify: (e) =>
    e instanceof ProviderUnreachable
      ? { reason: PROVIDER_UNREACHABLE, message: e.message, terminal: false }
      : harborErrors.classify(e),
};

export const preheatInstanceKind = defineKind({
  def: harborPreheatInstance,
  exporter: preheatInstanceExporter,
  watches: { secrets: (spec) => [spec.auth?.secretRef?.name] },
  external: ({ ctx }) =>
    preheatInstanceExternal({ secrets: ctx.secretUses, statusRefreshMs: ctx.statusRefreshIntervalMs }),
  errors: preheatInstanceErrors,
});
