// `webhook`: a policy's delivery jobs, and when each policy of a project last fired.
import { HARBOR_OPTIONS } from "../auth.ts";
import { flagList, flagString, flagValue, type GroupSpec, wholeNumber } from "../command.ts";
import { formatOf, OUTPUT_OPTIONS, print, withHarbor } from "../context.ts";
import { EXIT, UsageError } from "../errors.ts";
import { list } from "../output.ts";
import { idOf, time } from "./shared.ts";

const PROJECT = { name: "PROJECT", help: "the Harbor project's name" };
const STATUSES = ["Pending", "Running", "Success", "Error", "Stopped"] as const;

export const webhookGroup: GroupSpec = {
  name: "webhook",
  summary: "Webhook deliveries (jobs) and last triggers",
  commands: [
    {
      name: "jobs",
      summary: "A webhook policy's deliveries, newest first",
      args: [PROJECT, { name: "POLICY", help: "the policy's name or id" }],
      options: [
        {
          name: "status",
          arg: "STATUS",
          multiple: true,
          help: `only these statuses (${STATUSES.join(", ")})`,
        },
        { name: "limit", arg: "N", help: "at most N jobs", default: "20" },
        ...OUTPUT_OPTIONS,
        ...HARBOR_OPTIONS,
      ],
      run: (inv) => {
        const statuses = flagList(inv, "status");
        const bad = statuses.find((s) => !(STATUSES as readonly string[]).includes(s));
        if (bad)
          throw new UsageError(`--status "${bad}" must be one of ${STATUSES.join(", ")}`, inv.path.join(" "));
        const limit = flagValue(inv, "limit", wholeNumber(1, 100_000), "20");
        return withHarbor(inv, async (h) => {
          const signal = inv.io.signal;
          const project = inv.args[0] as string;
          const policy = await idOf(inv.args[1] as string, `webhook policy in project ${project}`, () =>
            h.client.webhooks.listPolicies(project, undefined, { signal }),
          );
          const jobs = await h.client.webhooks.listJobs(
            project,
            policy,
            { ...(statuses.length ? { status: statuses } : {}), sort: "-creation_time", limit },
            { signal },
          );
          print(
            inv,
            list(
              jobs,
              [
                { header: "id", value: (j) => j.id },
                { header: "event", value: (j) => j.event_type },
                { header: "notify", value: (j) => j.notify_type },
                { header: "status", value: (j) => j.status },
                { header: "created", value: (j) => j.creation_time },
                { header: "updated", value: (j) => j.update_time },
              ],
              formatOf(inv),
              "no deliveries",
            ),
          );
          return EXIT.ok;
        });
      },
    },
    {
      name: "last-triggers",
      summary: "When each webhook policy of a project last fired, per event type",
      args: [PROJECT],
      options: [
        { name: "policy", arg: "NAME", help: "only this policy" },
        ...OUTPUT_OPTIONS,
        ...HARBOR_OPTIONS,
      ],
      run: (inv) =>
        withHarbor(inv, async (h) => {
          const policy = flagString(inv, "policy");
          const triggers = (
            await h.client.webhooks.lastTriggers(inv.args[0] as string, { signal: inv.io.signal })
          ).filter((t) => policy === undefined || t.policy_name === policy);
          print(
            inv,
            list(
              triggers,
              [
                { header: "policy", value: (t) => t.policy_name },
                { header: "event", value: (t) => t.event_type },
                { header: "enabled", value: (t) => t.enabled },
                { header: "last triggered", value: (t) => time(t.last_trigger_time) ?? "never" },
              ],
              formatOf(inv),
              "no webhook policies",
            ),
          );
          return EXIT.ok;
        }),
    },
  ],
};
