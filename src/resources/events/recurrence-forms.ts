import { DateTime } from "luxon";
import { contentLineValueCount, MAX_EXDATES, MAX_RDATES } from "../../dates/recurrence-limits";

/**
 * The forms a write's `recurrence` comes in, read into the canonical one (`{rrule, rdate, exdate}`,
 * dates as wall clocks of the event's zone), which event-recurrence.ts then checks:
 * - canonical: `{"rrule": "FREQ=WEEKLY;BYDAY=TU", "rdate": [...], "exdate": [...]}`;
 * - RFC 5545 lines, as Google Calendar's API writes an event's recurrence:
 *   `["RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE;TZID=Europe/Lisbon:20270309T190000", "RDATE;VALUE=DATE:20270320"]`;
 * - the original's recurrence add-on (Events Calendar Pro), as its clients send it: a rule
 *   `{"type": "weekly", "end_type": "never"}`, or `{"rules": [rule...], "exclusions": [rule...]}`
 *   with rules such as `{"type": "every-month", "on": "first monday", "end_type": "On", "end": "2027-06-30"}`
 *   or `{"type": "Custom", "custom": {"type": "Weekly", "interval": 2, "week": {"day": [1, 3]}}}`;
 * - none: PHP's empty values (`null`, `false`, `""`, `"0"`, `[]`) and a rule of type `None`.
 * A form none of these reads gives null, and the write is refused.
 */

export interface CanonicalRecurrence {
  rrule: string;
  rdate?: string[];
  exdate?: string[];
}

/** Where the series starts: dates given as days alone take its time of day. */
export interface SeriesStart {
  startLocal: string;
  timezone: string;
}

/**
 * What a write's `recurrence` says: a rule, no rule, nothing this service reads (`unreadable`), or
 * more extra or excluded dates than a series may list (`tooManyDates`, told before they are read).
 */
export type RecurrenceReading =
  { rule: CanonicalRecurrence } | { none: true } | { unreadable: true } | { tooManyDates: true };

const NONE: RecurrenceReading = { none: true };
const UNREADABLE: RecurrenceReading = { unreadable: true };
const TOO_MANY_DATES: RecurrenceReading = { tooManyDates: true };

/** Whether lists of `rdates` and `exdates` values are more than a series may list. */
function overDateCaps(rdates: number, exdates: number): boolean {
  return rdates > MAX_RDATES || exdates > MAX_EXDATES;
}

export function readRecurrence(value: unknown, start: SeriesStart): RecurrenceReading {
  if (
    value === null ||
    value === false ||
    value === "" ||
    value === "0" ||
    (Array.isArray(value) && value.length === 0)
  )
    return NONE;
  if (typeof value === "string")
    return fromLines(
      value.split(/\r?\n/).filter((line) => line.trim() !== ""),
      start,
    );
  if (Array.isArray(value))
    return value.every((line) => typeof line === "string") ? fromLines(value as string[], start) : UNREADABLE;
  if (typeof value !== "object") return UNREADABLE;
  const object = value as Record<string, unknown>;
  if (typeof object.rrule === "string") {
    const count = (list: unknown) => (Array.isArray(list) ? list.length : 0);
    if (overDateCaps(count(object.rdate), count(object.exdate))) return TOO_MANY_DATES;
    return {
      rule: { rrule: object.rrule, rdate: datesOf(object.rdate, start), exdate: datesOf(object.exdate, start) },
    };
  }
  return fromAddOn(object, start);
}

/** Days alone (`YYYY-MM-DD`) take the series' time of day; other values are left for the rule's checks. */
function datesOf(value: unknown, start: SeriesStart): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((item) =>
    typeof item === "string" && /^\d{4}-\d{2}-\d{2}$/.test(item.trim())
      ? `${item.trim()} ${start.startLocal.slice(11)}`
      : String(item),
  );
}

// --- RFC 5545 lines ------------------------------------------------------------------------------

const ICAL_VALUE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/;

/** An RDATE or EXDATE value as a wall clock of the series' zone (a day alone: at the series' time). */
function wallOfIcal(value: string, tzid: string | undefined, start: SeriesStart): string | null {
  const match = ICAL_VALUE.exec(value.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second, utc] = match;
  if (hour === undefined) return `${year}-${month}-${day} ${start.startLocal.slice(11)}`;
  const wall = `${year}-${month}-${day}T${hour}:${minute}:${second}`;
  const from = utc ? "UTC" : (tzid ?? start.timezone);
  const instant = DateTime.fromISO(wall, { zone: from });
  if (!instant.isValid) return null;
  return instant.setZone(start.timezone).toFormat("yyyy-MM-dd HH:mm:ss");
}

/** How many values the RDATE and the EXDATE lines list, counted as text (before any is read as a date). */
function countLineValues(lines: string[]): { rdates: number; exdates: number } {
  const counts = { rdates: 0, exdates: 0 };
  for (const line of lines) {
    const name = /^\s*(RDATE|EXDATE)[;:]/i.exec(line)?.[1].toUpperCase();
    if (name === undefined) continue;
    counts[name === "RDATE" ? "rdates" : "exdates"] += contentLineValueCount(line);
  }
  return counts;
}

function fromLines(lines: string[], start: SeriesStart): RecurrenceReading {
  const { rdates, exdates } = countLineValues(lines);
  if (overDateCaps(rdates, exdates)) return TOO_MANY_DATES;
  let rrule: string | null = null;
  const rdate: string[] = [];
  const exdate: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    const head = (colon < 0 ? line : line.slice(0, colon)).trim();
    const [name, ...parameters] = head.split(";");
    const upper = name.toUpperCase();
    if (colon < 0) {
      // A bare rule ("FREQ=WEEKLY;COUNT=3") is the RRULE.
      if (rrule !== null || !/^FREQ=/i.test(head)) return UNREADABLE;
      rrule = head;
      continue;
    }
    const value = line.slice(colon + 1).trim();
    if (upper === "RRULE") {
      if (rrule !== null) return UNREADABLE;
      rrule = value;
      continue;
    }
    if (upper !== "RDATE" && upper !== "EXDATE") return UNREADABLE;
    const tzid = parameters
      .map((parameter) => /^TZID=(.+)$/i.exec(parameter.trim())?.[1])
      .find((zone) => zone !== undefined);
    for (const item of value.split(",")) {
      const wall = wallOfIcal(item, tzid, start);
      if (wall === null) return UNREADABLE;
      (upper === "RDATE" ? rdate : exdate).push(wall);
    }
  }
  return rrule === null ? UNREADABLE : { rule: { rrule, rdate, exdate } };
}

// --- The recurrence add-on's rules ---------------------------------------------------------------

const WEEKDAYS: Record<string, string> = {
  monday: "MO",
  tuesday: "TU",
  wednesday: "WE",
  thursday: "TH",
  friday: "FR",
  saturday: "SA",
  sunday: "SU",
};
// The add-on numbers weekdays as ISO 8601 does: 1 is Monday.
const ISO_WEEKDAYS = ["", "MO", "TU", "WE", "TH", "FR", "SA", "SU"];
const ORDINALS: Record<string, number> = {
  first: 1,
  "1st": 1,
  second: 2,
  "2nd": 2,
  third: 3,
  "3rd": 3,
  fourth: 4,
  "4th": 4,
  fifth: 5,
  "5th": 5,
  last: -1,
};

/** A field by any of the names clients give it (`end_type`, `end-type`, `endType`). */
function field(rule: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (rule[name] !== undefined && rule[name] !== null && rule[name] !== "") return rule[name];
  return undefined;
}

function textOf(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ? String(value).trim().toLowerCase() : "";
}

function frequencyOf(type: string): "DAILY" | "WEEKLY" | "MONTHLY" | "YEARLY" | "DATE" | "NONE" | "CUSTOM" | null {
  const words = type.replace(/[^a-z]+/g, " ").trim();
  if (words === "" || words === "none" || words === "no repeat" || words === "never") return "NONE";
  if (words === "custom") return "CUSTOM";
  if (/\bdate\b|\bsingle\b|\bonce\b/.test(words)) return "DATE";
  if (/\bdai|\bday\b|\bdays\b/.test(words)) return "DAILY";
  if (/\bweek/.test(words)) return "WEEKLY";
  if (/\bmonth/.test(words)) return "MONTHLY";
  if (/\byear|\bannual/.test(words)) return "YEARLY";
  return null;
}

/** BYDAY / BYMONTHDAY parts of an `on` text: "first monday", "last friday", "monday, wednesday", "15th", "day 15". */
function onParts(on: string, frequency: string): string[] | null {
  if (on === "" || /^(the )?same day$/.test(on)) return [];
  const dayOfMonth = /^(?:day |the )?(\d{1,2})(?:st|nd|rd|th)?$/.exec(on);
  if (dayOfMonth)
    return Number(dayOfMonth[1]) >= 1 && Number(dayOfMonth[1]) <= 31 ? [`BYMONTHDAY=${Number(dayOfMonth[1])}`] : null;
  const days: string[] = [];
  for (const item of on.split(/\s*(?:,|\band\b|&)\s*/).filter((part) => part !== "")) {
    const words = item.replace(/^(every|on|the)\s+/, "").split(/\s+/);
    const weekday = WEEKDAYS[words[words.length - 1].replace(/s$/, "")];
    if (!weekday) return null;
    const ordinal = words.length > 1 ? ORDINALS[words[0]] : undefined;
    if (words.length > 2 || (words.length === 2 && ordinal === undefined)) return null;
    days.push(
      ordinal !== undefined && frequency !== "WEEKLY" && frequency !== "DAILY" ? `${ordinal}${weekday}` : weekday,
    );
  }
  return [`BYDAY=${days.join(",")}`];
}

/** The parts of the add-on's `custom` settings: weekdays, the day of the month, months. */
function customParts(custom: Record<string, unknown>, frequency: string): string[] | null {
  const parts: string[] = [];
  const week = custom.week as Record<string, unknown> | undefined;
  if (week && week.day !== undefined) {
    const days = (Array.isArray(week.day) ? week.day : [week.day]).map(
      (day) => ISO_WEEKDAYS[Number(day)] ?? WEEKDAYS[textOf(day)],
    );
    if (days.some((day) => !day)) return null;
    parts.push(`BYDAY=${days.join(",")}`);
  }
  const period = (custom[frequency === "YEARLY" ? "year" : "month"] ?? {}) as Record<string, unknown>;
  if (frequency === "YEARLY" && period.month !== undefined) {
    const months = (Array.isArray(period.month) ? period.month : [period.month]).map(Number);
    if (months.some((month) => !Number.isInteger(month) || month < 1 || month > 12)) return null;
    parts.push(`BYMONTH=${months.join(",")}`);
  }
  if (textOf(period["same-day"] ?? period.same_day) !== "yes" && period.number !== undefined) {
    const number = textOf(period.number);
    if (/^\d+$/.test(number)) parts.push(`BYMONTHDAY=${Number(number)}`);
    else {
      const ordinal = ORDINALS[number];
      const weekday = ISO_WEEKDAYS[Number(period.day)] ?? WEEKDAYS[textOf(period.day)];
      if (ordinal === undefined || !weekday) return null;
      parts.push(`BYDAY=${ordinal}${weekday}`);
    }
  }
  return parts;
}

/** The end of an add-on rule: UNTIL from `end` (`end_type` "On"), COUNT from `end-count` ("After"), none ("Never"). */
function endParts(rule: Record<string, unknown>): string[] | null {
  const endType = textOf(field(rule, "end_type", "end-type", "endType"));
  const end = textOf(field(rule, "end", "end_date", "until"));
  const count = field(rule, "end-count", "end_count", "endCount", "count");
  if (endType === "never" || (endType === "" && end === "" && count === undefined)) return [];
  if (endType === "after" || endType === "count" || (endType === "" && count !== undefined)) {
    return Number.isInteger(Number(count)) && Number(count) >= 1 ? [`COUNT=${Number(count)}`] : null;
  }
  const day = /^(\d{4})-(\d{2})-(\d{2})(?:[ t](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(end);
  if (!day) return null;
  const [, year, month, date, hour, minute, second = "00"] = day;
  return [`UNTIL=${year}${month}${date}${hour === undefined ? "" : `T${hour}${minute}${second}`}`];
}

/** A rule's day as a wall clock at the series' time (`type: "Date"` rules and exclusions). */
function ruleDate(rule: Record<string, unknown>, start: SeriesStart): string | null {
  const custom = rule.custom as Record<string, unknown> | undefined;
  const nested = custom?.date as Record<string, unknown> | undefined;
  const value = textOf(field(rule, "date") ?? nested?.date ?? field(rule, "end"));
  const day = /^(\d{4}-\d{2}-\d{2})(?:[ t](\d{2}:\d{2}(?::\d{2})?))?$/.exec(value);
  if (!day) return null;
  const time = day[2] === undefined ? start.startLocal.slice(11) : day[2].length === 5 ? `${day[2]}:00` : day[2];
  return `${day[1]} ${time}`;
}

function ruleParts(rule: Record<string, unknown>): { frequency: string; parts: string[] } | "none" | "date" | null {
  let frequency = frequencyOf(textOf(rule.type));
  const custom = (rule.custom ?? {}) as Record<string, unknown>;
  if (frequency === "CUSTOM") frequency = frequencyOf(textOf(custom.type));
  if (frequency === null || frequency === "CUSTOM") return null;
  if (frequency === "NONE") return "none";
  if (frequency === "DATE") return "date";
  const interval = Number(field(rule, "interval", "every") ?? field(custom, "interval") ?? 1);
  if (!Number.isInteger(interval) || interval < 1) return null;
  const on = onParts(textOf(field(rule, "on", "days", "day")), frequency);
  const fromCustom = customParts(custom, frequency);
  const end = endParts(rule);
  if (on === null || fromCustom === null || end === null) return null;
  const parts = [
    `FREQ=${frequency}`,
    ...(interval > 1 ? [`INTERVAL=${interval}`] : []),
    ...(on.length > 0 ? on : fromCustom),
    ...end,
  ];
  return { frequency, parts };
}

function fromAddOn(object: Record<string, unknown>, start: SeriesStart): RecurrenceReading {
  const rules = Array.isArray(object.rules) ? object.rules : object.type !== undefined ? [object] : null;
  if (rules === null || !rules.every((rule) => rule !== null && typeof rule === "object")) return UNREADABLE;
  if (overDateCaps(rules.length, Array.isArray(object.exclusions) ? object.exclusions.length : 0))
    return TOO_MANY_DATES;
  let rrule: string | null = null;
  const rdate: string[] = [];
  for (const rule of rules as Array<Record<string, unknown>>) {
    const read = ruleParts(rule);
    if (read === null) return UNREADABLE;
    if (read === "none") continue;
    if (read === "date") {
      const wall = ruleDate(rule, start);
      if (wall === null) return UNREADABLE;
      rdate.push(wall);
      continue;
    }
    // One repeating rule: a second one is more than an RRULE says.
    if (rrule !== null) return UNREADABLE;
    // A yearly rule by weekday ("first monday") is of the series' month.
    const yearlyByWeekday =
      read.frequency === "YEARLY" &&
      read.parts.some((part) => /^BYDAY=[+-]?\d/.test(part)) &&
      !read.parts.some((part) => part.startsWith("BYMONTH="));
    rrule = [...read.parts, ...(yearlyByWeekday ? [`BYMONTH=${Number(start.startLocal.slice(5, 7))}`] : [])].join(";");
  }
  const exdate: string[] = [];
  const exclusions =
    object.exclusions === undefined || object.exclusions === null || object.exclusions === "" ? [] : object.exclusions;
  if (!Array.isArray(exclusions)) return UNREADABLE;
  for (const exclusion of exclusions) {
    const wall =
      typeof exclusion === "string"
        ? ruleDate({ date: exclusion }, start)
        : exclusion !== null && typeof exclusion === "object"
          ? ruleDate(exclusion as Record<string, unknown>, start)
          : null;
    if (wall === null) return UNREADABLE;
    exdate.push(wall);
  }
  if (rrule === null) return rdate.length === 0 ? NONE : UNREADABLE;
  return { rule: { rrule, rdate, exdate } };
}

/** Whether a write's `recurrence` names its own excluded dates (then they are not the ones before, moved with the series). */
export function givesExdates(value: unknown): boolean {
  if (typeof value === "string") return /^EXDATE[;:]/im.test(value);
  if (Array.isArray(value)) return value.some((line) => typeof line === "string" && /^EXDATE[;:]/i.test(line.trim()));
  return value !== null && typeof value === "object" && ("exdate" in value || "exclusions" in value);
}
