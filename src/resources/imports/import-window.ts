import { DateTime } from "luxon";
import { UNTIL } from "../../dates/floating";
import type { Schemas } from "../../http/operation-types";
import type { FeedEvent } from "./feed-event";

/**
 * Which of a feed's events a run takes (a source's `window`, as Event Aggregator's import limit):
 * those not over that start within the next `days`, or the next `events` of them by start; a
 * series is one event (its overrides go with it), an overridden first occurrence made an event of
 * its own is one too. A series is over after its UNTIL and its last extra date; one with COUNT or
 * no end is never over.
 */

export type ImportWindow = Schemas["Import"]["window"];

const instantOf = (wall: string, zone: string) => DateTime.fromSQL(wall, { zone }).toMillis();

/** When the event is over: its end, a series' last date, or never (Infinity). */
function endOf(event: FeedEvent): number {
  const end = instantOf(event.endLocal, event.timezone);
  if (event.recurrence === null) return end;
  const until = /(?:^|;)UNTIL=([^;]+)/i.exec(event.recurrence.rrule)?.[1];
  const fields = until === undefined ? null : UNTIL.exec(until);
  if (fields === null) return Infinity;
  const [, year, month, day, hour, minute, second, utc] = fields;
  const last =
    hour === undefined
      ? instantOf(`${year}-${month}-${day} 23:59:59`, event.timezone)
      : utc
        ? Date.UTC(+year, +month - 1, +day, +hour, +minute, +second)
        : instantOf(`${year}-${month}-${day} ${hour}:${minute}:${second}`, event.timezone);
  const extra = event.recurrence.rdate.map((wall) => instantOf(wall, event.timezone));
  return Math.max(end, last, ...extra);
}

/** The events of `events` (each an event of its own: a series, a single event) the window takes. */
export function takenByWindow(window: ImportWindow, events: FeedEvent[], now: Date): Set<FeedEvent> {
  if (window === null) return new Set(events);
  const from = now.getTime();
  const started = events
    .filter((event) => endOf(event) >= from)
    .map((event) => ({ event, start: instantOf(event.startLocal, event.timezone) }))
    .sort((a, b) => a.start - b.start);
  if ("days" in window) {
    const until = DateTime.fromJSDate(now).plus({ days: window.days }).toMillis();
    return new Set(started.filter(({ start }) => start <= until).map(({ event }) => event));
  }
  return new Set(started.slice(0, window.events).map(({ event }) => event));
}
