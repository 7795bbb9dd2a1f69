import { DateTime } from "luxon";
import { RRule } from "rrule";
import { wallClockIn } from "../../dates/date-input";
import { floating, ruleParts, untilOf, wallOf } from "../../dates/floating";
import type { FeedEvent } from "./feed-event";

/**
 * A feed's overrides of a series' FIRST occurrence (RECURRENCE-ID = DTSTART: Google writes one
 * when the first instance alone is edited or deleted). Here a series is its own first occurrence,
 * and its later ones are its children; so, as the original's recurring add-on does when the first
 * occurrence alone is edited, that occurrence leaves the series: an edited one becomes an event
 * of its own (`firstOfSeries`), a cancelled one is dropped, and the series starts at its next
 * occurrence, with the same rule (its parts that followed from the old start written out, COUNT
 * less the occurrences passed). A series with no next occurrence is the override alone.
 */

/** How many years ahead a next occurrence is looked for: a rule that gives none sooner has none. */
const YEARS_AHEAD = 50;

const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];

/** The rule's parts, with those it took from its start (weekday, day, month) written out. */
function explicitParts(rrule: string, start: Date): Map<string, string> {
  const parts = ruleParts(rrule);
  if (parts === null) throw new Error(`not an RRULE: ${rrule}`);
  const has = (...names: string[]) => names.some((name) => parts.has(name));
  const weekday = WEEKDAYS[(start.getUTCDay() + 6) % 7];
  const frequency = parts.get("FREQ");
  if (frequency === "WEEKLY" && !has("BYDAY")) parts.set("BYDAY", weekday);
  if (frequency === "MONTHLY" && !has("BYDAY", "BYMONTHDAY")) parts.set("BYMONTHDAY", String(start.getUTCDate()));
  if (frequency === "YEARLY" && !has("BYDAY", "BYMONTHDAY", "BYMONTH", "BYYEARDAY", "BYWEEKNO")) {
    parts.set("BYMONTH", String(start.getUTCMonth() + 1));
    parts.set("BYMONTHDAY", String(start.getUTCDate()));
  }
  return parts;
}

/** The series from its next occurrence after its first, or null when it has none. */
function fromNextOccurrence(series: FeedEvent): FeedEvent | null {
  const recurrence = series.recurrence!;
  const start = floating(series.startLocal);
  const parts = explicitParts(recurrence.rrule, start);
  const count = parts.has("COUNT") ? Number(parts.get("COUNT")) : null;
  const until = parts.has("UNTIL") ? untilOf(parts.get("UNTIL")!, series.timezone) : null;
  const excluded = new Set(recurrence.exdate);
  const horizon = DateTime.fromJSDate(start, { zone: "UTC" }).plus({ years: YEARS_AHEAD }).toJSDate();
  const walkUntil = until !== null && until < horizon ? until : horizon;
  const rule = [...parts]
    .filter(([name]) => name !== "COUNT" && name !== "UNTIL")
    .map(([name, value]) => `${name}=${value}`)
    .join(";");
  // The rule's dates after the start, up to the first that is not excluded (the start counts toward COUNT).
  const later: Date[] = [];
  new RRule({ ...RRule.parseString(rule), dtstart: start, until: walkUntil }).all((date) => {
    if (date <= start) return true;
    if (count !== null && later.length + 1 >= count) return false;
    later.push(date);
    return excluded.has(wallOf(date));
  });
  const ruleNext = later.findIndex((date) => !excluded.has(wallOf(date)));
  const extraNext = recurrence.rdate.find((wall) => wall > series.startLocal && !excluded.has(wall));
  const ruleWall = ruleNext === -1 ? null : wallOf(later[ruleNext]);
  if (ruleWall === null && extraNext === undefined) return null;
  const fromExtra = extraNext !== undefined && (ruleWall === null || extraNext < ruleWall);
  const next = fromExtra ? extraNext : ruleWall!;
  // COUNT counts the start and the rule's dates: those passed are taken off; an extra date, a start of its own, takes none.
  if (count !== null) parts.set("COUNT", String(fromExtra ? count : count - 1 - ruleNext));
  const duration = floating(series.endLocal).getTime() - start.getTime();
  return {
    ...series,
    startLocal: next,
    endLocal: wallOf(new Date(floating(next).getTime() + duration)),
    recurrence: {
      rrule: [...parts].map(([name, value]) => `${name}=${value}`).join(";"),
      rdate: recurrence.rdate.filter((wall) => wall > next),
      exdate: recurrence.exdate.filter((wall) => wall > next),
    },
  };
}

/** The series from its next occurrence, null when it has none, or itself when its rule cannot be walked here (the write will say why). */
function splitSeries(series: FeedEvent): FeedEvent | null {
  try {
    return fromNextOccurrence(series);
  } catch {
    return series;
  }
}

/**
 * The feed's events with each series' overridden first occurrence taken out of it (see above),
 * again while the series' new first occurrence is overridden too (each time one override fewer).
 * A series left with no occurrence is not in the feed any more: its overrides are events of their own.
 */
export function withFirstOccurrencesSplit(events: FeedEvent[]): FeedEvent[] {
  const overridesOf = new Map<string, FeedEvent[]>();
  for (const event of events) {
    if (event.recurrenceId === null) continue;
    const list = overridesOf.get(event.uid);
    if (list) list.push(event);
    else overridesOf.set(event.uid, [event]);
  }
  const replaced = new Map<FeedEvent, FeedEvent[]>();
  for (const series of events) {
    const overrides = series.recurrenceId === null && series.recurrence ? overridesOf.get(series.uid) : undefined;
    if (overrides === undefined) continue;
    // The overrides by the start they replace, a wall clock of the series' zone.
    const at = new Map<string, FeedEvent[]>();
    for (const override of overrides) {
      const wall = wallClockIn(override.recurrenceId!, override.timezone, series.timezone);
      at.set(wall, [...(at.get(wall) ?? []), override]);
    }
    let current: FeedEvent | null = series;
    const own: FeedEvent[] = [];
    while (current !== null && at.has(current.startLocal)) {
      const first = at.get(current.startLocal)!;
      at.delete(current.startLocal);
      const rest = splitSeries(current);
      if (rest === current) break;
      for (const override of first) {
        if (!override.cancelled) own.push({ ...override, firstOfSeries: true });
        replaced.set(override, []);
      }
      current = rest;
    }
    if (current === series) continue;
    replaced.set(series, [...own, ...(current === null ? [] : [current])]);
  }
  return events.flatMap((event) => replaced.get(event) ?? [event]);
}
