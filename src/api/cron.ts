// The schedules Harbor runs replication policies on: robfig/cron with six fields, seconds first,
// plus Harbor's own rules (seconds 0, a minute other than "*"). The CRD checks the fields and their
// value ranges with one regex at admission; what a regex cannot say (a range whose start is after
// its end, "5-2") only the operator sees.
import { celString, type StringRule } from "./common.ts";

interface Field {
  /** One value, as a regex (numbers, names in any case). */
  value: string;
  names?: readonly string[];
  /** Whether a bare "*" or "?" (every value) may stand for the field. */
  every: boolean;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

const named = (numbers: string, names: readonly string[]) => `(?:${numbers}|(?i:${names.join("|")}))`;

/** minute, hour, day of month, month, day of week (seconds are always "0"). */
const FIELDS: readonly Field[] = [
  { value: "[0-5]?[0-9]", every: false },
  { value: "(?:[01]?[0-9]|2[0-3])", every: true },
  { value: "(?:0?[1-9]|[12][0-9]|3[01])", every: true },
  { value: named("(?:0?[1-9]|1[0-2])", MONTHS), names: MONTHS, every: true },
  { value: named("[0-6]", WEEKDAYS), names: WEEKDAYS, every: true },
];

const STEP = "(?:/0*[1-9][0-9]*)";

function fieldSource(f: Field): string {
  const range = `${f.value}(?:-${f.value})?${STEP}?`;
  const term = `(?:[*?]${f.every ? `${STEP}?` : STEP}|${range})`;
  return `${term}(?:,${term})*`;
}

const CRON_SOURCE = `^0 ${FIELDS.map(fieldSource).join(" ")}$`;
const CRON = new RegExp(CRON_SOURCE);

/** The number a value of the field stands for (a name's index for months from 1). */
function numberOf(f: Field, text: string): number {
  const i = f.names?.indexOf(text.toLowerCase()) ?? -1;
  if (i < 0) return Number(text);
  return f.names === MONTHS ? i + 1 : i;
}

/** Every range "a-b" of the schedule runs from low to high, as robfig/cron requires. */
function rangesAscend(expr: string): boolean {
  const fields = expr.split(" ").slice(1);
  return fields.every((text, i) => {
    const f = FIELDS[i] as Field;
    return text.split(",").every((term) => {
      const [low, high] = (term.split("/")[0] as string).split("-");
      return high === undefined || low === "*" || numberOf(f, low as string) <= numberOf(f, high);
    });
  });
}

export const HARBOR_CRON: StringRule = {
  cel: `self.matches(${celString(CRON_SOURCE)})`,
  message:
    'must be a cron schedule Harbor runs: six fields "0 <minute> <hour> <day of month> <month> <day of week>" with seconds 0, a minute other than "*", values in range and ranges from low to high (e.g. "0 0 2 * * *")',
  test: (v) => CRON.test(v) && rangesAscend(v),
};

/**
 * The schedules of Harbor's system jobs (GC, audit-log purge): robfig/cron as above, seconds 0, but
 * any minute, "*" included (Harbor checks these with ValidateCronString only).
 */
const SCHEDULE_FIELDS: readonly Field[] = [{ value: "[0-5]?[0-9]", every: true }, ...FIELDS.slice(1)];
const SCHEDULE_CRON_SOURCE = `^0 ${SCHEDULE_FIELDS.map(fieldSource).join(" ")}$`;
const SCHEDULE_CRON_RE = new RegExp(SCHEDULE_CRON_SOURCE);

export const SCHEDULE_CRON: StringRule = {
  cel: `self.matches(${celString(SCHEDULE_CRON_SOURCE)})`,
  message:
    'must be a cron schedule Harbor runs: six fields "0 <minute> <hour> <day of month> <month> <day of week>" with seconds 0, values in range and ranges from low to high (e.g. "0 0 3 * * *")',
  test: (v) => SCHEDULE_CRON_RE.test(v) && rangesAscend(v),
};
