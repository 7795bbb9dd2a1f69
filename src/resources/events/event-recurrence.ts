import { DateTime } from "luxon";
import { formatWallClock, instantOfWallClock } from "../../dates/date-input";
import type { ParamProblems } from "../../http/errors";
import type { Schemas } from "../../http/operation-types";
import { readRecurrence, type SeriesStart } from "./recurrence-forms";
import { expandRule } from "./rule-expansion";
import { floating, ruleParts, UNTIL, untilOf, wallOf } from "../../dates/floating";
import { yieldToEventLoop } from "../../event-loop";

/**
 * Recurring events (RFC 5545). A series is an event with a rule: its own dates are its first
 * occurrence, and every later one is an event of its own, a child of the series (`post_parent`),
 * made in advance up to a horizon, so that lists, totals, search and every filter find them as they
 * find any event. The rule is an RRULE (FREQ DAILY, WEEKLY, MONTHLY or YEARLY; INTERVAL, BYDAY with
 * ordinals such as 2TU or -1FR, BYMONTHDAY, BYMONTH, BYSETPOS, WKST, COUNT or UNTIL), with RDATE
 * and EXDATE lists, all read as wall clocks of the event's time zone: a class at 19:00 stays at
 * 19:00 local across a daylight-saving change. The expansion is rrule's, on wall clocks.
 */

/** The rule as stored on the series: RRULE parts, and extra and excluded dates as wall clocks. */
export interface Recurrence {
  rrule: string;
  rdate: string[];
  exdate: string[];
  /**
   * The wall clock the series was given, when it does not happen (it fell in the hour a DST change
   * skips, and the series' own date moved forward by the gap): the rule keeps it for its other dates.
   */
  start?: string;
}

/** Most occurrences a series may have up to the horizon: a rule giving more is refused (400). */
export const MAX_OCCURRENCES = 730;

const FREQUENCIES = new Set(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"]);
const PARTS = new Set(["FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "BYMONTH", "BYSETPOS", "WKST", "COUNT", "UNTIL"]);
const WEEKDAY = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/;
const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;

function integerIn(value: string, min: number, max: number): boolean {
  return /^[+-]?\d+$/.test(value) && Number(value) >= min && Number(value) <= max;
}

function listOf(value: string, valid: (item: string) => boolean): boolean {
  return value.split(",").every((item) => item !== "" && valid(item));
}

/** Whether each part of an RRULE (without its `RRULE:` name) is one this service expands, with a valid value. */
function validParts(parts: Map<string, string>): boolean {
  for (const [name, value] of parts) {
    if (!PARTS.has(name)) return false;
    const valid =
      name === "FREQ"
        ? FREQUENCIES.has(value)
        : name === "INTERVAL"
          ? integerIn(value, 1, 1000)
          : name === "COUNT"
            ? integerIn(value, 1, 100_000)
            : name === "BYDAY"
              ? listOf(value, (day) => {
                  const match = WEEKDAY.exec(day);
                  return (
                    match !== null &&
                    (match[1] === undefined || (integerIn(match[1], -53, 53) && Number(match[1]) !== 0))
                  );
                })
              : name === "BYMONTHDAY"
                ? listOf(value, (day) => integerIn(day, -31, 31) && Number(day) !== 0)
                : name === "BYMONTH"
                  ? listOf(value, (month) => integerIn(month, 1, 12))
                  : name === "BYSETPOS"
                    ? listOf(value, (position) => integerIn(position, -366, 366) && Number(position) !== 0)
                    : name === "WKST"
                      ? WEEKDAY.test(value) && !/\d/.test(value)
                      : UNTIL.test(value);
    if (!valid) return false;
  }
  return parts.has("FREQ") && !(parts.has("COUNT") && parts.has("UNTIL")) && canMatch(parts);
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether the parts can give a date at all. rrule searches a rule that never matches (the 30th of
 * February, the 9th of 7 weekdays) up to the year 9999, seconds of CPU for a daily rule: such
 * rules are refused, as are ordinals RFC 5545 does not allow with their FREQ.
 */
function canMatch(parts: Map<string, string>): boolean {
  const freq = parts.get("FREQ")!;
  const days = parts.get("BYDAY")?.split(",") ?? [];
  const ordinals = days.map((day) => Math.abs(Number(WEEKDAY.exec(day)![1] ?? 0)));
  const maxOrdinal = freq === "MONTHLY" ? 5 : freq === "YEARLY" ? 53 : 0;
  if (ordinals.some((ordinal) => ordinal > maxOrdinal)) return false;
  const months = parts.get("BYMONTH")?.split(",").map(Number) ?? [1, 3];
  const monthDays =
    parts
      .get("BYMONTHDAY")
      ?.split(",")
      .map((day) => Math.abs(Number(day))) ?? [];
  if (monthDays.length > 0 && !months.some((month) => monthDays.some((day) => day <= DAYS_IN_MONTH[month - 1])))
    return false;
  const positions =
    parts
      .get("BYSETPOS")
      ?.split(",")
      .map((position) => Math.abs(Number(position))) ?? [];
  if (positions.length === 0) return true;
  // A position picks among the dates of one period: there must be that many.
  const setSize =
    freq === "WEEKLY"
      ? days.length
      : freq === "MONTHLY"
        ? Math.min(31, 5 * days.length || 31)
        : freq === "YEARLY"
          ? Math.min(366, 53 * days.length || 366)
          : 1;
  return freq !== "DAILY" && positions.every((position) => position <= setSize);
}

/** `YYYY-MM-DD HH:MM:SS` of a wall clock given as `YYYY-MM-DD HH:MM[:SS]` or with a `T`; null if it is not one. */
function wallClockOf(value: string): string | null {
  const match = WALL_CLOCK.exec(value.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second = "00"] = match;
  const wall = `${year}-${month}-${day} ${hour}:${minute}:${second}`;
  return DateTime.fromFormat(wall, "yyyy-MM-dd HH:mm:ss", { zone: "UTC" }).isValid ? wall : null;
}

/**
 * The stored rule of a write's `recurrence`, in any form recurrence-forms.ts reads; "none" for the
 * forms that mean no rule; or null with the problem added when it cannot be read or expanded: a
 * form none reads, an unknown part, a bad value, COUNT with UNTIL, a date that is not a wall clock.
 */
export function recurrenceOf(input: unknown, start: SeriesStart, problems: ParamProblems): Recurrence | "none" | null {
  const reading = readRecurrence(input, start);
  if ("none" in reading) return "none";
  if ("tooManyDates" in reading) {
    problems.add("recurrence", "rest_too_many_dates");
    return null;
  }
  const rule = "rule" in reading ? reading.rule : null;
  const parts = rule === null ? null : ruleParts(rule.rrule);
  if (rule === null || parts === null || !validParts(parts)) {
    problems.add("recurrence", "rest_invalid_recurrence");
    return null;
  }
  const dates = (list: string[] | undefined) => (list ?? []).map(wallClockOf);
  const rdate = dates(rule.rdate);
  const exdate = dates(rule.exdate);
  if ([...rdate, ...exdate].some((wall) => wall === null)) {
    problems.add("recurrence", "rest_invalid_recurrence");
    return null;
  }
  const rrule = [...parts].map(([name, value]) => `${name}=${value}`).join(";");
  return { rrule, rdate: [...new Set(rdate as string[])].sort(), exdate: [...new Set(exdate as string[])].sort() };
}

/**
 * The stored rule with the wall clock the series was given (`given`, a plain input), kept when it
 * is not the series' start as stored (`startLocal`: a time a DST change skips, moved forward).
 */
export function withGivenStart(
  stored: string,
  given: string | null,
  series: { startLocal: string; timezone: string },
): string {
  const { start: _before, ...recurrence } = JSON.parse(stored) as Recurrence;
  const skipped =
    given !== null &&
    given !== series.startLocal &&
    formatWallClock(instantOfWallClock(given, series.timezone).toJSDate(), series.timezone) === series.startLocal;
  return JSON.stringify(skipped ? { ...recurrence, start: given } : recurrence);
}

export function parseStoredRecurrence(stored: string | null): Recurrence | null {
  return stored === null ? null : (JSON.parse(stored) as Recurrence);
}

/** An occurrence the rule gives: when it starts and ends (wall clocks and instants), and its RECURRENCE-ID. */
export interface Occurrence {
  startLocal: string;
  endLocal: string;
  startsAt: Date;
  endsAt: Date;
  recurrenceId: Date;
}

export interface SeriesTimes {
  startLocal: string;
  endLocal: string;
  timezone: string;
  /** All-day series keep whole days on the wall clock, whatever a DST change does to the hours. */
  allDay?: boolean;
}

/**
 * The occurrences of a series after its own (first) one, up to the instant `until`, in order: the
 * rule's, plus RDATEs, less EXDATEs. The first occurrence counts toward COUNT, as RFC 5545 has it.
 * Each lasts as long as the series' first one does on the wall clock. `tooMany` when more than
 * MAX_OCCURRENCES would come before `until`.
 */
export async function occurrencesOf(
  recurrence: Recurrence,
  series: SeriesTimes,
  until: Date,
  client?: string,
): Promise<{ occurrences: Occurrence[]; tooMany: boolean; ruleStarts: string[] }> {
  const parts = ruleParts(recurrence.rrule)!;
  const startLocal = recurrence.start ?? series.startLocal;
  const start = floating(startLocal);
  const duration = floating(series.endLocal).getTime() - start.getTime();
  const last = floating(DateTime.fromJSDate(until).setZone(series.timezone).toFormat("yyyy-MM-dd HH:mm:ss"));
  const untilPart = parts.get("UNTIL");
  const countPart = parts.get("COUNT");
  parts.delete("UNTIL");
  parts.delete("COUNT");
  const ruleUntil = untilPart === undefined ? last : untilOf(untilPart, series.timezone);
  const count = countPart === undefined ? null : Number(countPart);
  const dates = await expandRule(
    {
      rule: [...parts].map(([name, value]) => `${name}=${value}`).join(";"),
      dtstart: start,
      until: ruleUntil < last ? ruleUntil : last,
      // One more than may be made, to tell a rule that gives too many.
      limit: Math.min(count ?? Infinity, MAX_OCCURRENCES + 2),
    },
    client,
  );
  const walls = new Set(dates.map(wallOf));
  walls.delete(startLocal);
  // The rule's occurrences after the first, COUNT including the first; then the extra dates.
  let starts = [...walls].sort();
  if (count !== null) starts = starts.slice(0, Math.max(0, count - 1));
  const ruleStarts = starts;
  for (const wall of recurrence.rdate) if (wall > startLocal && floating(wall) <= last) starts.push(wall);
  const excluded = new Set(recurrence.exdate);
  starts = [...new Set(starts)].filter((wall) => !excluded.has(wall)).sort();
  const occurrences: Occurrence[] = [];
  for (const wall of starts.slice(0, MAX_OCCURRENCES)) {
    // Each instant costs Luxon a few dozen microseconds: hundreds, the event loop free every hundred.
    if (occurrences.length % 100 === 99) await yieldToEventLoop();
    const startsAt = instantOfWallClock(wall, series.timezone).toJSDate();
    if (series.allDay) {
      const endLocal = wallOf(new Date(floating(wall).getTime() + duration));
      const endsAt = instantOfWallClock(endLocal, series.timezone).toJSDate();
      occurrences.push({ startLocal: wall, endLocal, startsAt, endsAt, recurrenceId: startsAt });
      continue;
    }
    // Every occurrence lasts as long as the series' first: one starting in the hour a DST change
    // skips starts when that hour is over (RFC 5545), its end as much later; one ending in the hour
    // repeated ends an hour earlier on the wall clock than the rule's wall clocks say.
    const endsAt = new Date(startsAt.getTime() + duration);
    occurrences.push({
      startLocal: formatWallClock(startsAt, series.timezone),
      endLocal: formatWallClock(endsAt, series.timezone),
      startsAt,
      endsAt,
      recurrenceId: startsAt,
    });
  }
  return { occurrences, tooMany: starts.length > MAX_OCCURRENCES, ruleStarts };
}

/** The recurrence as the API shows it on a series. */
export function recurrenceJson(
  stored: string | null,
  until: Date | null,
  timezone: string,
): Schemas["EventRecurrence"] | null {
  const recurrence = parseStoredRecurrence(stored);
  if (recurrence === null) return null;
  const materializedUntil =
    until === null ? null : DateTime.fromJSDate(until).setZone(timezone).toFormat("yyyy-MM-dd HH:mm:ss");
  return {
    rrule: recurrence.rrule,
    rdate: recurrence.rdate,
    exdate: recurrence.exdate,
    occurrences_until: materializedUntil,
  };
}
