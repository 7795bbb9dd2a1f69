import { DateTime } from "luxon";
import { instantOfWallClock } from "../../dates/date-input";
import { ruleParts, UNTIL, untilOf, wallOf } from "../../dates/floating";
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

const instantOf = (wall: string, zone: string) => instantOfWallClock(wall, zone).toMillis();

/** When the event is over: its end, a series' last date, or never (Infinity). */
function endOf(event: FeedEvent): number {
  const end = instantOf(event.endLocal, event.timezone);
  if (event.recurrence === null) return end;
  const until = ruleParts(event.recurrence.rrule)?.get("UNTIL");
  if (until === undefined || !UNTIL.test(until)) return Infinity;
  const last = instantOf(wallOf(untilOf(until, event.timezone)), event.timezone);
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
