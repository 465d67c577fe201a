// `audit-log`: Harbor's audit log across projects, and the event types it records; with `project
// audit-logs`, which shares the filters and the table. From 2.13 Harbor writes its records only to
// the extended log (/auditlog-exts, /projects/{p}/auditlog-exts): the old one (/audit-logs,
// /projects/{p}/logs) then shows only what an older release wrote. Each command reads the extended
// log and falls back to the old one where Harbor has no such route (2.12 and older).
import { type AuditLogExt, type AuditLogFilter, isRouteNotFound } from "../../harbor/audit-logs.ts";
import type { HarborClient } from "../../harbor/client.ts";
import { HarborError } from "../../harbor/errors.ts";
import { q } from "../../harbor/query.ts";
import type { CallOptions } from "../../harbor/transport.ts";
import { HARBOR_OPTIONS } from "../auth.ts";
import {
  flagString,
  flagValue,
  type GroupSpec,
  type Invocation,
  type OptionSpec,
  pointInTime,
  wholeNumber,
} from "../command.ts";
import { formatOf, OUTPUT_OPTIONS, print, withHarbor } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import { list } from "../output.ts";

/** The filters of every audit-log listing. */
export const AUDIT_FILTER_OPTIONS: OptionSpec[] = [
  {
    name: "since",
    arg: "TIME",
    help: 'entries at or after TIME ("2025-03-01T10:00:00Z", "2025-03-01", or an age: "24h", "7d")',
  },
  { name: "until", arg: "TIME", help: "entries at or before TIME" },
  { name: "operation", arg: "OP", help: "only this operation, e.g. create, delete, pull, update" },
  { name: "user", arg: "USER", help: "only entries of this user" },
  { name: "resource-type", arg: "TYPE", help: "only this resource type, e.g. artifact, robot" },
  { name: "limit", arg: "N", help: "at most N entries", default: "100" },
];

/** The filters the flags say, newest first (Harbor's q on op_time, operation, username, resource_type). */
export function auditFilter(inv: Invocation): AuditLogFilter {
  const since = flagValue(inv, "since", pointInTime(Date.now));
  const until = flagValue(inv, "until", pointInTime(Date.now));
  const limit = flagValue(inv, "limit", wholeNumber(1, 100_000), "100");
  const query = q();
  if (since || until) query.range("op_time", since, until);
  const operation = flagString(inv, "operation");
  if (operation) query.exact("operation", operation);
  const user = flagString(inv, "user");
  if (user) query.exact("username", user);
  const type = flagString(inv, "resource-type");
  if (type) query.exact("resource_type", type);
  return { q: query, sort: "-op_time", limit };
}

/** The entries as a table (time, user, operation, type, resource), or as Harbor gave them. */
export function printAuditLog(inv: Invocation, entries: AuditLogExt[]): void {
  print(
    inv,
    list(
      entries,
      [
        { header: "time", value: (l) => l.op_time },
        { header: "user", value: (l) => l.username },
        { header: "operation", value: (l) => l.operation },
        { header: "type", value: (l) => l.resource_type },
        { header: "resource", value: (l) => l.resource },
      ],
      formatOf(inv),
      "no audit log entries match",
    ),
  );
}

/** The extended log's call, or the old log's where Harbor has no route for it (before 2.13). */
async function extendedOrOld<T>(extended: () => Promise<T>, old: () => Promise<T>): Promise<T> {
  try {
    return await extended();
  } catch (e) {
    if (!(e instanceof HarborError && isRouteNotFound(e))) throw e;
    return old();
  }
}

/** One project's audit log as the Harbor at hand keeps it. */
export function projectAuditLog(
  client: HarborClient,
  project: string,
  filter: AuditLogFilter,
  opts: CallOptions,
): Promise<AuditLogExt[]> {
  return extendedOrOld(
    () => client.auditLogs.ofProject(project, filter, opts),
    () => client.projects.logs(project, filter, opts),
  );
}

export const auditLogGroup: GroupSpec = {
  name: "audit-log",
  summary: "Harbor's audit log across projects, and the event types it records",
  commands: [
    {
      name: "list",
      summary: "The audit log of every project you may read, newest first, filtered like project audit-logs",
      description:
        "A system administrator reads every project's entries (and, from Harbor 2.13, user and configuration events); anyone else those of the projects whose log they may read (from 2.13: the projects they administer).",
      options: [...AUDIT_FILTER_OPTIONS, ...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      examples: ["kubectl harbor audit-log list --since 24h --resource-type robot"],
      run: (inv) => {
        const filter = auditFilter(inv);
        return withHarbor(inv, async (h) => {
          const opts = { signal: inv.io.signal };
          const entries = await extendedOrOld(
            () => h.client.auditLogs.list(filter, opts),
            () => h.client.auditLogs.listLegacy(filter, opts),
          );
          printAuditLog(inv, entries);
          return EXIT.ok;
        });
      },
    },
    {
      name: "event-types",
      summary: "The event types Harbor records (Harbor 2.13 on): the names an audit-log purge takes",
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          let types: string[];
          try {
            types = await h.client.auditLogs.eventTypes({ signal: inv.io.signal });
          } catch (e) {
            if (e instanceof HarborError && isRouteNotFound(e))
              throw new CliError(
                "this Harbor has no audit-log event types (Harbor 2.13 added them); its audit log and purge name operations: create, delete, pull",
              );
            throw e;
          }
          print(
            inv,
            list(
              types.map((event_type) => ({ event_type })),
              [{ header: "event type", value: (t) => t.event_type }],
              formatOf(inv),
              "no event types",
            ),
          );
          return EXIT.ok;
        }),
    },
  ],
};
