// `project`: a project's summary, whether Harbor would delete it, and its audit log.
import { formatStorage } from "../../controllers/project/mapping.ts";
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
  pointInTime,
  wholeNumber,
} from "../command.ts";
import { formatOf, OUTPUT_OPTIONS, print, withHarbor } from "../context.ts";
import { EXIT } from "../errors.ts";
import { list, record } from "../output.ts";

const PROJECT = { name: "PROJECT", help: "the Harbor project's name" };
const bytes = (n: number | undefined) => (n === undefined ? undefined : formatStorage(n));

export const projectGroup: GroupSpec = {
  name: "project",
  summary: "A project's summary, deletability and audit log",
  commands: [
    {
      name: "summary",
      summary: "Repositories, members by role, quota and proxy-cache registry of a project",
      args: [PROJECT],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const s = await h.client.projects.summary(inv.args[0] as string, { signal: inv.io.signal });
          print(
            inv,
            record(
              [
                ["repositories", s.repo_count ?? 0],
                ["project admins", s.project_admin_count],
                ["maintainers", s.maintainer_count],
                ["developers", s.developer_count],
                ["guests", s.guest_count],
                ["limited guests", s.limited_guest_count],
                ["storage limit", bytes(s.quota?.hard?.storage)],
                ["storage used", bytes(s.quota?.used?.storage)],
                [
                  "proxy cache of",
                  s.registry ? `${s.registry.name ?? ""} (${s.registry.url ?? ""})` : undefined,
                ],
              ],
              s,
              formatOf(inv),
            ),
          );
          return EXIT.ok;
        }),
    },
    {
      name: "deletable",
      summary: "Whether Harbor would delete the project now, and why not",
      description: "Exit 0 either way: the answer is the output (deletable: true or false).",
      args: [PROJECT],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const d = await h.client.projects.deletable(inv.args[0] as string, { signal: inv.io.signal });
          const data = { deletable: d.deletable ?? false, ...(d.message ? { message: d.message } : {}) };
          print(
            inv,
            record(
              [
                ["deletable", data.deletable],
                ["why not", d.message],
              ],
              data,
              formatOf(inv),
            ),
          );
          return EXIT.ok;
        }),
    },
    {
      name: "audit-logs",
      summary: "The project's audit log, newest first, filtered by time, operation, user and resource",
      description:
        "From Harbor 2.13 the extended audit log (project, repository, artifact, robot and user events; a push is the artifact's create); before 2.13 the project's log (project and robot creation and deletion, artifact, tag and repository events).",
      args: [PROJECT],
      options: [
        {
          name: "since",
          arg: "TIME",
          help: 'entries at or after TIME ("2025-03-01T10:00:00Z", "2025-03-01", or an age: "24h", "7d")',
        },
        { name: "until", arg: "TIME", help: "entries at or before TIME" },
        { name: "operation", arg: "OP", help: "only this operation, e.g. create, delete, pull" },
        { name: "user", arg: "USER", help: "only entries of this user" },
        { name: "resource-type", arg: "TYPE", help: "only this resource type, e.g. artifact, robot" },
        { name: "limit", arg: "N", help: "at most N entries", default: "100" },
        ...OUTPUT_OPTIONS,
        ...HARBOR_OPTIONS,
      ],
      examples: ["kubectl harbor project audit-logs team-a --since 24h --operation delete"],
      run: (inv) => auditLogs(inv),
    },
  ],
};

async function auditLogs(inv: Invocation): Promise<number> {
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
  return withHarbor(inv, async (h) => {
    const logs = await projectAuditLog(
      h.client,
      inv.args[0] as string,
      { q: query, sort: "-op_time", limit },
      { signal: inv.io.signal },
    );
    print(
      inv,
      list(
        logs,
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
    return EXIT.ok;
  });
}

/**
 * A project's audit log as the Harbor at hand keeps it: from 2.13 the extended log, where Harbor
 * records every write (its old project log then shows only what an older release wrote); before
 * 2.13, which has no such route, the project log.
 */
async function projectAuditLog(
  client: HarborClient,
  project: string,
  filter: AuditLogFilter,
  opts: CallOptions,
): Promise<AuditLogExt[]> {
  try {
    return await client.auditLogs.ofProject(project, filter, opts);
  } catch (e) {
    if (!(e instanceof HarborError && isRouteNotFound(e))) throw e;
    return client.projects.logs(project, filter, opts);
  }
}
