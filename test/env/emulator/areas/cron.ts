// Cron for the emulator's schedules: robfig/cron's parser with a mandatory seconds field, as
// Harbor's scheduler uses it (UTC).

export interface CronSpec {
  second: boolean[];
  minute: boolean[];
  hour: boolean[];
  dom: boolean[];
  month: boolean[];
  dow: boolean[];
  /** A day matches when both day fields do if either starts with * or ?, else when either does. */
  domStar: boolean;
  dowStar: boolean;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const FIELDS: Array<{ min: number; max: number; names?: string[]; base?: number }> = [
  { min: 0, max: 59 },
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, base: 1 },
  { min: 0, max: 6, names: DAYS, base: 0 },
];

function cronNumber(text: string, names: string[] | undefined, base: number, expr: string): number {
  const named = names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + base;
  if (!/^-?\d+$/.test(text))
    throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`);
  const n = Number(text);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function cronField(field: string, f: (typeof FIELDS)[number]): boolean[] {
  const bits = new Array<boolean>(f.max + 1).fill(false);
  for (const expr of field.split(",")) {
    const [range = "", stepText, extra] = expr.split("/");
    if (extra !== undefined) throw new Error(`too many slashes: ${expr}`);
    let start: number;
    let end: number;
    if (range === "*" || range === "?") {
      start = f.min;
      end = f.max;
    } else {
      const [lo = "", hi, more] = range.split("-");
      if (more !== undefined) throw new Error(`too many hyphens: ${expr}`);
      start = cronNumber(lo, f.names, f.base ?? 0, expr);
      end =
        hi === undefined
          ? stepText === undefined
            ? start
            : f.max
          : cronNumber(hi, f.names, f.base ?? 0, expr);
    }
    const step = stepText === undefined ? 1 : cronNumber(stepText, undefined, 0, expr);
    if (start < f.min) throw new Error(`beginning of range (${start}) below minimum (${f.min}): ${expr}`);
    if (end > f.max) throw new Error(`end of range (${end}) above maximum (${f.max}): ${expr}`);
    if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
    if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
    for (let i = start; i <= end; i += step) bits[i] = true;
  }
  return bits;
}

/** Harbor's ValidateCronString plus the parse: throws with the parser's message. */
export function parseCron(cron: string): CronSpec {
  if (cron === "") throw new Error("empty cron string is invalid");
  if (cron.startsWith("@")) throw new Error(`parser does not accept descriptors: ${cron}`);
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 6) {
    throw new Error(`expected exactly 6 fields, found ${fields.length}: [${fields.join(" ")}]`);
  }
  const [second, minute, hour, dom, month, dow] = fields.map((text, i) =>
    cronField(text, FIELDS[i] as (typeof FIELDS)[number]),
  ) as [boolean[], boolean[], boolean[], boolean[], boolean[], boolean[]];
  const parts = cron.split(" ");
  if (parts.length === 6 && parts[0] !== "0") {
    throw new Error("the 1st field (indicating Seconds of time) of the cron setting must be 0");
  }
  const star = (t: string) => t.startsWith("*") || t.startsWith("?");
  return {
    second,
    minute,
    hour,
    dom,
    month,
    dow,
    domStar: star(fields[3] as string),
    dowStar: star(fields[5] as string),
  };
}

const DAY_MS = 86_400_000;

/** The first time strictly after `afterMs` that the spec matches (UTC), within five years. */
export function nextCronTime(spec: CronSpec, afterMs: number): number | undefined {
  const from = Math.floor(afterMs / 1000) * 1000 + 1000;
  const first = new Date(from);
  const firstDay = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate());
  for (let day = firstDay; day < firstDay + 5 * 366 * DAY_MS; day += DAY_MS) {
    const d = new Date(day);
    const domOk = spec.dom[d.getUTCDate()] === true;
    const dowOk = spec.dow[d.getUTCDay()] === true;
    const dayOk = spec.domStar || spec.dowStar ? domOk && dowOk : domOk || dowOk;
    if (!spec.month[d.getUTCMonth() + 1] || !dayOk) continue;
    for (let h = 0; h < 24; h++) {
      if (!spec.hour[h]) continue;
      for (let m = 0; m < 60; m++) {
        if (!spec.minute[m]) continue;
        for (let s = 0; s < 60; s++) {
          const t = day + h * 3_600_000 + m * 60_000 + s * 1000;
          if (spec.second[s] && t >= from) return t;
        }
      }
    }
  }
  return undefined;
}
