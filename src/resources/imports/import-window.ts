import { DateTime } from "luxon";
import { instantOfWallClock } from "../../dates/date-input";
import { ruleParts, UNTIL, untilOf, wallOf } from "../../dates/floating";
import type { Schemas } from "../../http/operation-types";
import { yieldToEventLoop } from "../../event-loop";
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

/**
 * When the event is over: its end, a series' last date, or never (Infinity). Its extra dates are
 * wall clocks of one zone, which compare as text: only the latest is read as an instant (a source
 * whose hundreds of series list a thousand dates each held the event loop for seconds when each
 * was).
 */
function endOf(event: FeedEvent): number {
  const end = instantOf(event.endLocal, event.timezone);
  if (event.recurrence === null) return end;
  const until = ruleParts(event.recurrence.rrule)?.get("UNTIL");
  if (until === undefined || !UNTIL.test(until)) return Infinity;
  const last = instantOf(wallOf(untilOf(until, event.timezone)), event.timezone);
  const latestExtra = event.recurrence.rdate.reduce<string | null>(
    (max, wall) => (max === null || wall > max ? wall : max),
    null,
  );
  return Math.max(end, last, latestExtra === null ? -Infinity : instantOf(latestExtra, event.timezone));
}

/** Events whose times are read between two turns of the event loop (each costs a few zone conversions). */
const SLICE = 200;

/** The events of `events` (each an event of its own: a series, a single event) the window takes. */
export async function takenByWindow(window: ImportWindow, events: FeedEvent[], now: Date): Promise<Set<FeedEvent>> {
  if (window === null) return new Set(events);
  const from = now.getTime();
  const timed: Array<{ event: FeedEvent; start: number }> = [];
  for (const [at, event] of events.entries()) {
    if (at % SLICE === SLICE - 1) await yieldToEventLoop();
    if (endOf(event) >= from) timed.push({ event, start: instantOf(event.startLocal, event.timezone) });
  }
  const started = timed.sort((a, b) => a.start - b.start);
  if ("days" in window) {
    const until = DateTime.fromJSDate(now).plus({ days: window.days }).toMillis();
    return new Set(started.filter(({ start }) => start <= until).map(({ event }) => event));
  }
  return new Set(started.slice(0, window.events).map(({ event }) => event));
}
