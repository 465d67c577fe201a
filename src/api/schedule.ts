// The schedule of a per-Harbor system job (garbage collection, audit-log purge): Harbor's Schedule
// body without the types that are no schedule. "Manual" starts a run each time it is sent (a
// declarative resource would start one at every apply and every drift correction) and "Schedule"
// is accepted by Harbor and does nothing, so both are refused at admission with what to use instead.
import { z } from "zod";
import { celFormat, withRules } from "./common.ts";
import { SCHEDULE_CRON } from "./cron.ts";
import { RUN_REQUESTED_ANNOTATION } from "./run-now.ts";

const TYPES = ["Hourly", "Daily", "Weekly", "Custom", "None"] as const;
export const ScheduleType = z.enum(TYPES);
export type ScheduleType = z.infer<typeof ScheduleType>;

/** The cron Harbor's UI sends for these types, used when the spec gives none. */
export const DEFAULT_CRON: Readonly<Record<"Hourly" | "Daily" | "Weekly", string>> = {
  Hourly: "0 0 * * * *",
  Daily: "0 0 0 * * *",
  Weekly: "0 0 0 * * 0",
};

/** The cron a schedule runs on: the spec's, else the type's default; undefined for Custom without one and None. */
export function effectiveCron(s: { type: ScheduleType; cron?: string | undefined }): string | undefined {
  if (s.type === "None") return undefined;
  if (s.cron !== undefined) return s.cron;
  return s.type === "Custom" ? undefined : DEFAULT_CRON[s.type];
}

/** spec.schedule of a kind whose job is `what` ("garbage collection"). */
export function scheduleSpec(what: string) {
  return z
    .object({
      type: withRules(
        z.string().max(16),
        {
          cel: "self != 'Manual'",
          message: `type Manual is not a schedule: Harbor would start a run at every apply. Choose Hourly, Daily, Weekly, Custom or None, and start a run now with the annotation ${RUN_REQUESTED_ANNOTATION}`,
          test: (v) => v !== "Manual",
        },
        {
          cel: "self != 'Schedule'",
          message:
            "type Schedule is accepted by Harbor and does nothing: choose Hourly, Daily, Weekly, Custom or None",
          test: (v) => v !== "Schedule",
        },
        {
          cel: `self in [${TYPES.map((t) => `'${t}'`).join(", ")}, 'Manual', 'Schedule']`,
          message: `must be one of ${TYPES.join(", ")}`,
          messageExpression: celFormat(`type "%s" is not one of ${TYPES.join(", ")}`, "self"),
        },
      )
        // The CRD takes any string, so that Manual and Schedule are refused with why (an enum would
        // say only "Unsupported value"); the operator parses the value into the enum.
        .pipe(ScheduleType)
        .describe(
          `When Harbor runs ${what} by itself: Hourly, Daily or Weekly (on the cron Harbor's UI uses, unless cron says otherwise), Custom (on cron), or None (never; start a run with the ${RUN_REQUESTED_ANNOTATION} annotation). Manual and Schedule are refused: Manual would start a run at every apply, and Harbor ignores Schedule.`,
        ),
      cron: withRules(z.string().max(128), SCHEDULE_CRON)
        .optional()
        .describe(
          'Six fields with seconds first and 0, in UTC, e.g. "0 0 3 * * *" (03:00 every day). Required for Custom; for Hourly, Daily and Weekly the default is "0 0 * * * *", "0 0 0 * * *" (midnight) and "0 0 0 * * 0" (Sunday midnight). Not allowed with None.',
        ),
    })
    .refine((s) => s.type !== "Custom" || s.cron !== undefined, {
      message: "a Custom schedule needs a cron",
      path: ["cron"],
    })
    .refine((s) => s.type !== "None" || s.cron === undefined, {
      message: "cron is not used with type None",
      path: ["cron"],
    })
    .meta({
      "x-kubernetes-validations": [
        {
          rule: "self.type != 'Custom' || has(self.cron)",
          message: "a Custom schedule needs a cron",
          fieldPath: ".cron",
          reason: "FieldValueRequired",
        },
        {
          rule: "self.type != 'None' || !has(self.cron)",
          message: "cron is not used with type None: remove it, or choose Hourly, Daily, Weekly or Custom",
          fieldPath: ".cron",
          reason: "FieldValueForbidden",
        },
      ],
    })
    .describe(
      `When Harbor runs ${what} by itself. Harbor keeps one such schedule; the operator compares type and cron with it and puts back what was changed in Harbor.`,
    );
}
