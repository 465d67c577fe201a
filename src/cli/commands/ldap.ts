// `ldap`: Harbor's LDAP settings tested, users and groups searched, users imported.
import { ldapCheck } from "../../controllers/connection/probe.ts";
import { isHarborError } from "../../harbor/errors.ts";
import { HARBOR_OPTIONS } from "../auth.ts";
import { flagString, type GroupSpec } from "../command.ts";
import { confirm, formatOf, OUTPUT_OPTIONS, print, withHarbor, YES_OPTION } from "../context.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { list, record } from "../output.ts";

export const ldapGroup: GroupSpec = {
  name: "ldap",
  summary: "Ping Harbor's LDAP server, search users and groups, import users",
  commands: [
    {
      name: "ping",
      summary: "Whether Harbor reaches and binds to its configured LDAP server (exit 1 when not)",
      description:
        "Harbor tests the LDAP settings it stores, with its stored search password (Harbor must be in LDAP auth mode).",
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const r = await ldapCheck(h.client, { signal: inv.io.signal });
          print(
            inv,
            record(
              [
                ["success", r.success],
                ["message", r.message],
              ],
              r,
              formatOf(inv),
            ),
          );
          if (!r.success) throw new CliError(`the LDAP ping failed: ${r.message ?? "no reason given"}`);
          return EXIT.ok;
        }),
    },
    {
      name: "users",
      summary: "LDAP users whose uid is NAME, or every user of the configured search",
      args: [{ name: "NAME", help: "a uid (exact, any case)", optional: true }],
      options: [...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const users = await h.client.ldap.searchUsers(inv.args[0], { signal: inv.io.signal });
          print(
            inv,
            list(
              users,
              [
                { header: "username", value: (u) => u.username },
                { header: "name", value: (u) => u.realname },
                { header: "email", value: (u) => u.email },
              ],
              formatOf(inv),
              "no LDAP users match",
            ),
          );
          return EXIT.ok;
        }),
    },
    {
      name: "groups",
      summary: "The LDAP group with this name, or with this DN",
      options: [
        { name: "name", arg: "NAME", help: "the group's name" },
        { name: "dn", arg: "DN", help: "the group's DN" },
        ...OUTPUT_OPTIONS,
        ...HARBOR_OPTIONS,
      ],
      run: (inv) => {
        const groupName = flagString(inv, "name");
        const groupDn = flagString(inv, "dn");
        if (!groupName === !groupDn) throw new UsageError("give one of --name and --dn", inv.path.join(" "));
        return withHarbor(inv, async (h) => {
          // Harbor answers "no such group" with a 404.
          const groups = await h.client.ldap
            .searchGroups(groupName ? { groupName } : { groupDn: groupDn as string }, {
              signal: inv.io.signal,
            })
            .catch((e: unknown) => {
              if (isHarborError(e, "notFound")) return [];
              throw e;
            });
          print(
            inv,
            list(
              groups,
              [
                { header: "name", value: (g) => g.group_name },
                { header: "dn", value: (g) => g.ldap_group_dn },
              ],
              formatOf(inv),
              "no LDAP group matches",
            ),
          );
          return EXIT.ok;
        });
      },
    },
    {
      name: "import",
      summary: "Make LDAP users Harbor users (asks first unless --yes); exit 1 when some could not be",
      args: [{ name: "UID", help: "LDAP uids", variadic: true }],
      options: [YES_OPTION, ...OUTPUT_OPTIONS, ...HARBOR_OPTIONS],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          await confirm(inv, `Import ${inv.args.length} LDAP user(s) into Harbor (${inv.args.join(", ")})?`);
          const failed = await h.client.ldap.importUsers(inv.args, { signal: inv.io.signal });
          const format = formatOf(inv);
          if (failed.length === 0) {
            print(inv, format === "table" ? `imported ${inv.args.length} user(s)\n` : list([], [], format));
            return EXIT.ok;
          }
          print(
            inv,
            list(
              failed,
              [
                { header: "uid", value: (f) => f.uid },
                { header: "error", value: (f) => f.error },
              ],
              format,
            ),
          );
          throw new CliError(`${failed.length} of ${inv.args.length} user(s) could not be imported`);
        }),
    },
  ],
};
