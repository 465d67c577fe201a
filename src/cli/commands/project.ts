// `project`: a project's summary, whether Harbor would delete it, and its audit log.
import { formatStorage } from "../../controllers/project/mapping.ts";
import { HARBOR_OPTIONS } from "../auth.ts";
import type { GroupSpec, Invocation } from "../command.ts";
import { formatOf, OUTPUT_OPTIONS, print, withHarbor } from "../context.ts";
import { EXIT } from "../errors.ts";
import { record } from "../output.ts";
import { AUDIT_FILTER_OPTIONS, auditFilter, printAuditLog, projectAuditLog } from "./audit-log.ts";

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
      options: [...AUDIT_FILTER_OPTIONS, ...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      examples: ["kubectl harbor project audit-logs team-a --since 24h --operation delete"],
      run: (inv) => auditLogs(inv),
    },
  ],
};

async function auditLogs(inv: Invocation): Promise<number> {
  const filter = auditFilter(inv);
  return withHarbor(inv, async (h) => {
    printAuditLog(
      inv,
      await projectAuditLog(h.client, inv.args[0] as string, filter, { signal: inv.io.signal }),
    );
    return EXIT.ok;
  });
}
