// HarborAuditLogPurge: a Harbor's audit-log purge schedule, retention and operations, one per
// Harbor, with "run now" (the harborconfig.io/runRequestedAt annotation) and the newest run in status.
import { harborAuditLogPurge } from "../../api/audit-log-purge.ts";
import { defineKind, resourceType } from "../shared/kinds.ts";
import { auditLogPurgeExporter } from "./export.ts";
import { auditLogPurgeExternal } from "./external.ts";

export const auditLogPurgeKind = defineKind({
  def: harborAuditLogPurge,
  exporter: auditLogPurgeExporter,
  external: ({ ctx }) =>
    auditLogPurgeExternal({ kube: ctx.kube, events: ctx.events, type: resourceType(harborAuditLogPurge) }),
});
