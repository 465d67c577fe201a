// HarborScannerRegistration: a scanner adapter registered in Harbor, optionally Harbor's default
// scanner (a per-Harbor setting one resource may hold). Its credential Secret (when labelled
// harborconfig.io/watch: "true") queues it at once; the drift sweep, which reads the Secret through
// prepare, finds other changes within the drift interval.
import { harborScannerRegistration } from "../../api/scanner.ts";
import type { ErrorClassifier } from "../../runtime/external-client.ts";
import { harborErrors } from "../shared/errors.ts";
import { defineKind } from "../shared/kinds.ts";
import { scannerExporter } from "./export.ts";
import { SCANNER_UNREACHABLE, ScannerUnreachable, scannerExternal } from "./external.ts";

/** The shared classification, plus an unreachable adapter: not Stalled, retried with backoff. */
const scannerErrors: ErrorClassifier = {
  classify: (e) =>
    e instanceof ScannerUnreachable
      ? { reason: SCANNER_UNREACHABLE, message: e.message, terminal: false }
      : harborErrors.classify(e),
};

export const scannerKind = defineKind({
  def: harborScannerRegistration,
  exporter: scannerExporter,
  watches: { secrets: (spec) => [spec.auth?.secretRef?.name] },
  external: ({ ctx }) =>
    scannerExternal({ secrets: ctx.secretUses, statusRefreshMs: ctx.statusRefreshIntervalMs }),
  errors: scannerErrors,
});
