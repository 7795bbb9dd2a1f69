import { getVtimezoneComponent } from "@touch4it/ical-timezones";
import { ICalCalendar, ICalCalendarMethod, ICalEventStatus, type ICalEventData } from "ical-generator";
import { DateTime } from "luxon";
import type { Request, Response } from "express";
import type { RequestContext } from "../../http/request-context";
import { answeredNotModified, entityTagOfParts, writeParts } from "../../http/conditional";
import type { Schemas } from "../../http/operation-types";
import { calendarText, plainText } from "../../text/html";
import { foldLines } from "../../text/ical-folding";
import type { EventRecord } from "./event-record";
import { parseStoredRecurrence } from "./event-recurrence";
import { formatWallClock, instantOfWallClock } from "../../dates/date-input";
import { yieldToEventLoop } from "../../event-loop";

/**
 * iCalendar (RFC 5545) representations of events, for calendar apps: a feed of a list, or one
 * event. Written with ical-generator; VTIMEZONE blocks (for every zone the events use) from
 * @touch4it/ical-timezones. An event is its JSON representation (same language, same redaction
 * of password-protected content) in iCalendar's terms:
 * - UID `event-<id>@<host of the API>`, stable across edits; SEQUENCE, the event's write count;
 *   LAST-MODIFIED and DTSTAMP, its last write (so an unchanged feed keeps its bytes and its ETag);
 * - DTSTART/DTEND in the event's own zone (TZID), or as DATE values for all-day events (DTEND the
 *   day after the last, as RFC 5545 counts it); an end in the hour a DST change repeats, in UTC;
 * - SUMMARY, DESCRIPTION (plain text, its paragraphs, line breaks and list items on lines of their
 *   own) and X-ALT-DESC (the HTML, for apps that show it), URL (the permalink), ATTACH (the
 *   image, with its FMTTYPE), LOCATION and GEO from the venue,
 *   ORGANIZER from the first organizer that has an e-mail address, CATEGORIES from categories
 *   and tags;
 * - an event trashed inside the feed's window: STATUS:CANCELLED, so subscribed apps drop it;
 * - a series: RRULE, EXDATE, RDATE (see withSeries).
 */

/** Whether a GET of events asks for iCalendar: `ical=1`, or an Accept header that prefers text/calendar. */
export function wantsCalendar(req: Request, icalParam: boolean | undefined): boolean {
  if (icalParam === true) return true;
  const accept = req.headers.accept;
  return (
    accept !== undefined &&
    /text\/calendar/i.test(accept) &&
    req.accepts(["application/json", "text/calendar"]) === "text/calendar"
  );
}

export interface FeedEvent {
  record: EventRecord;
  cancelled: boolean;
  /** An occurrence written as an override of its series' instance (the series is in the same calendar). */
  overridesSeries?: boolean;
}

/**
 * The events of a feed as a calendar app needs them: a series once, with its rule (also when only
 * its occurrences fall in the window: `seriesOf` reads it), its occurrences edited on their own as
 * overrides, the others left to the rule; occurrences deleted one by one are EXDATEs already.
 */
export async function withSeries(
  events: FeedEvent[],
  seriesOf: (ids: number[]) => Promise<FeedEvent[]>,
): Promise<FeedEvent[]> {
  const present = new Set(events.filter((event) => event.record.recurrence !== null).map((event) => event.record.id));
  const isOccurrence = (event: FeedEvent) => event.record.recurrenceId !== null && event.record.parentId !== null;
  const missing = [
    ...new Set(
      events
        .filter((event) => isOccurrence(event) && !present.has(event.record.parentId!))
        .map((event) => event.record.parentId!),
    ),
  ];
  const series = missing.length > 0 ? await seriesOf(missing) : [];
  const shown = new Set([...present, ...series.map((event) => event.record.id)]);
  const kept = events.flatMap((event): FeedEvent[] => {
    if (!isOccurrence(event) || !shown.has(event.record.parentId!)) return [event];
    if (event.cancelled || !event.record.detached) return [];
    return [{ ...event, overridesSeries: true }];
  });
  return [...series, ...kept];
}

function hostOf(ctx: RequestContext): string {
  return new URL(ctx.apiBase).hostname;
}

function locationOf(venue: Schemas["Venue"] | undefined): Pick<ICalEventData, "location"> {
  if (!venue) return {};
  const address = [
    venue.address,
    venue.city,
    venue.state ?? venue.province ?? venue.stateprovince,
    venue.zip,
    venue.country,
  ]
    .filter((part) => part)
    .join(", ");
  const title = [venue.venue, address].filter((part) => part).join(", ");
  const geo =
    venue.geo_lat !== null && venue.geo_lat !== undefined && venue.geo_lng !== null && venue.geo_lng !== undefined
      ? { lat: venue.geo_lat, lon: venue.geo_lng }
      : undefined;
  return { location: { title, ...(geo ? { geo } : {}) } };
}

/** `YYYYMMDDTHHMMSS` (or `YYYYMMDD`) of a `YYYY-MM-DD HH:MM:SS` wall clock. */
function icalWall(wall: string, dateOnly: boolean): string {
  const compact = wall.replace(/[-:]/g, "").replace(" ", "T");
  return dateOnly ? compact.slice(0, 8) : compact;
}

/**
 * A series' RRULE, EXDATE and RDATE lines. UNTIL goes out as RFC 5545 asks beside a DTSTART with a
 * zone: in UTC (a wall clock of the zone, or a day, turned into the instant it ends at); for an
 * all-day series, as a date.
 */
function recurrenceLines(record: EventRecord): string | undefined {
  const recurrence = parseStoredRecurrence(record.recurrence);
  if (recurrence === null) return undefined;
  const rule = recurrence.rrule.replace(
    /UNTIL=(\d{8})(?:T(\d{6})(Z)?)?/,
    (whole, day: string, time: string | undefined, utc: string | undefined) => {
      if (record.allDay) return `UNTIL=${day}`;
      if (utc) return whole;
      const wall = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)} ${time ? `${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4, 6)}` : "23:59:59"}`;
      return `UNTIL=${instantOfWallClock(wall, record.timezone).toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'")}`;
    },
  );
  const dated = (name: string, walls: string[]) =>
    walls.map((wall) =>
      record.allDay
        ? `${name};VALUE=DATE:${icalWall(wall, true)}`
        : record.timezone === "UTC"
          ? `${name}:${icalWall(wall, false)}Z`
          : `${name};TZID=${record.timezone}:${icalWall(wall, false)}`,
    );
  return [`RRULE:${rule}`, ...dated("EXDATE", recurrence.exdate), ...dated("RDATE", recurrence.rdate)].join("\n");
}

/**
 * A series that starts in an hour a DST change skips keeps that time in its rule (see
 * Recurrence.start): its DTSTART says it (RFC 5545 §3.3.5 reads it, that day, as moved forward by
 * the gap: the same instant), so that calendar apps expand the rule at it on the other days.
 */
function startAsGiven(vevent: string, record: EventRecord): string {
  const given = record.allDay ? undefined : parseStoredRecurrence(record.recurrence)?.start;
  if (given === undefined) return vevent;
  return vevent.replace(
    /^DTSTART;TZID=[^:\r\n]+:\d{8}T\d{6}\r$/m,
    `DTSTART;TZID=${record.timezone}:${icalWall(given, false)}\r`,
  );
}

/**
 * An end in the hour a DST change repeats (an hour from the first 01:30 ends at the second): its
 * wall clock with TZID is read as the first of the two (RFC 5545 §3.3.5), so it goes out in UTC.
 */
function endAsInstant(vevent: string, record: EventRecord): string {
  if (record.allDay || record.timezone === "UTC") return vevent;
  const wall = formatWallClock(record.endsAt, record.timezone);
  if (instantOfWallClock(wall, record.timezone).toMillis() === record.endsAt.getTime()) return vevent;
  const utc = record.endsAt.toISOString().replace(/[-:]/g, "").slice(0, 15);
  return vevent.replace(/^DTEND;TZID=[^:\r\n]+:\d{8}T\d{6}\r$/m, `DTEND:${utc}Z\r`);
}

function eventData(event: FeedEvent, json: Schemas["Event"], ctx: RequestContext): ICalEventData {
  const { record } = event;
  const venue = Array.isArray(json.venue) ? json.venue[0] : (json.venue as Schemas["Venue"] | undefined);
  const organizer = json.organizer
    ?.map((candidate) => ({ name: candidate.organizer, email: mailAddressIn(candidate.email) }))
    .find((candidate) => candidate.email);
  const times: Pick<ICalEventData, "start" | "end" | "allDay" | "timezone"> = record.allDay
    ? {
        allDay: true,
        start: DateTime.fromISO(record.startLocal.slice(0, 10), { zone: "UTC" }),
        end: DateTime.fromISO(record.endLocal.slice(0, 10), { zone: "UTC" }).plus({ days: 1 }),
      }
    : {
        timezone: record.timezone,
        start: DateTime.fromJSDate(record.startsAt).setZone(record.timezone),
        end: DateTime.fromJSDate(record.endsAt).setZone(record.timezone),
      };
  const html = json.description ?? "";
  const description = calendarText(html);
  // An occurrence edited on its own overrides its series' instance (same UID, RECURRENCE-ID).
  const override = event.overridesSeries && record.parentId !== null && record.recurrenceId !== null;
  const repeating = recurrenceLines(record);
  return {
    id: `event-${override ? record.parentId : record.id}@${hostOf(ctx)}`,
    ...(override ? { recurrenceId: DateTime.fromJSDate(record.recurrenceId!).setZone(record.timezone) } : {}),
    ...(repeating ? { repeating } : {}),
    sequence: record.version,
    stamp: record.modifiedAt,
    lastModified: record.modifiedAt,
    ...times,
    summary: json.title ? plainText(json.title) : "",
    ...(description ? { description: /<[a-z]/i.test(html) ? { plain: description, html } : description } : {}),
    url: json.url,
    ...(json.image ? { attachments: [json.image.url] } : {}),
    ...locationOf(event.cancelled ? undefined : venue),
    // ORGANIZER is a calendar address: an organizer without an e-mail address has none to give.
    ...(organizer?.email && !event.cancelled
      ? { organizer: { name: organizer.name || organizer.email, email: organizer.email } }
      : {}),
    categories: [...(json.categories ?? []), ...(json.tags ?? [])].map((term) => ({ name: term.name })),
    status: event.cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    // Days have no zone in iCalendar; the event's, for calendars (ours among them) that keep one.
    ...(record.allDay ? { x: [{ key: ALL_DAY_ZONE, value: record.timezone }] } : {}),
  };
}

const IMAGE_TYPES: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
};

/**
 * The event's image as an ATTACH with its FMTTYPE (`ATTACH;FMTTYPE=image/jpeg:…`), as calendars
 * that show an event's image read it (and this service's imports): ical-generator writes ATTACH
 * with no parameter. Before folding, on the VEVENT's one ATTACH line.
 */
function imageTyped(vevent: string, json: Schemas["Event"]): string {
  const type = json.image ? IMAGE_TYPES[json.image.extension] : undefined;
  return type === undefined ? vevent : vevent.replace(/^ATTACH:/m, `ATTACH;FMTTYPE=${type}:`);
}

/**
 * The address an organizer's e-mail text names: the text itself, or what `Name <address>` holds.
 * Organizers keep any text there (as the original's do); a calendar address must be an address.
 */
function mailAddressIn(text: string | null | undefined): string | null {
  const address = /<([^<>\s]+)>\s*$/.exec(text ?? "")?.[1] ?? text?.trim() ?? "";
  return /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(address) ? address : null;
}

/** The property that gives an all-day event's time zone (its DATE values have none). */
const ALL_DAY_ZONE = "X-CALENDAR-TIMEZONE";

/** VEVENTs kept for anonymous readers, as the representation cache keeps JSON (null: none are kept). */
export interface KeptEvents {
  get(key: string): string | undefined;
  keep(key: string, vevent: string, record: EventRecord): void;
}

export interface CalendarSources {
  /** An event's JSON representation, as the caller sees it. */
  present(record: EventRecord): Schemas["Event"];
  /** VEVENTs of public events kept from earlier calendars, and where to keep new ones. */
  kept: KeptEvents | null;
  /** The most bytes the calendar may have: the events past it are left out (`truncated`). */
  maxBytes: number;
}

/** Events written between two turns of the event loop, so that a large feed never holds it long. */
const EVENTS_PER_SLICE = 10;

/** Whether every anonymous reader sees the event the same: published, no password, not cancelled. */
function isShared(event: FeedEvent): boolean {
  return !event.cancelled && event.record.status === "publish" && event.record.passwordHash === null;
}

/**
 * A calendar of `events`: a feed (METHOD:PUBLISH, named after the site) or a single event. Each
 * VEVENT is written (folded, CRLF-ended) on its own, by ical-generator, or taken from those kept;
 * a slice of them at a time, the event loop free between slices. The calendar's head and its
 * VTIMEZONEs (one for each zone its events use) are ical-generator's too.
 */
export async function eventCalendar(
  events: FeedEvent[],
  ctx: RequestContext,
  name: string,
  sources: CalendarSources,
): Promise<{ parts: string[]; truncated: boolean }> {
  const calendar = new ICalCalendar({
    name,
    method: ICalCalendarMethod.PUBLISH,
    prodId: { company: hostOf(ctx), product: "calendar-events-v1", language: ctx.language.toUpperCase() },
  });
  const head = calendar.toString().replace(/END:VCALENDAR$/, "");
  const tail = "END:VCALENDAR\r\n";
  const variant = `${ctx.language}|${ctx.apiBase}`;
  const vevents: string[] = [];
  // Each zone's VTIMEZONE, in the order the events first use them.
  const zones = new Map<string, string>();
  const assembled = (truncated: boolean) => ({ parts: [head, ...zones.values(), ...vevents, tail], truncated });
  let bytes = Buffer.byteLength(head) + tail.length;
  let made = 0;
  for (const event of events) {
    const key = `events:${event.record.id}|vevent${event.overridesSeries ? "|override" : ""}|${variant}`;
    const shared = sources.kept !== null && isShared(event);
    let vevent = shared ? sources.kept!.get(key) : undefined;
    if (vevent === undefined) {
      if (++made % EVENTS_PER_SLICE === 0) await yieldToEventLoop();
      const json = sources.present(event.record);
      vevent = endAsInstant(
        startAsGiven(
          foldLines(imageTyped(calendar.createEvent(eventData(event, json, ctx)).toString(), json)) + "\r\n",
          event.record,
        ),
        event.record,
      );
      calendar.clear();
      if (shared) sources.kept!.keep(key, vevent, event.record);
    }
    const zone = event.record.allDay || event.record.timezone === "UTC" ? null : event.record.timezone;
    const block = zone === null || zones.has(zone) ? null : timezoneBlock(zone);
    bytes += Buffer.byteLength(vevent) + (block === null ? 0 : Buffer.byteLength(block));
    if (bytes > sources.maxBytes) return assembled(true);
    if (block !== null) zones.set(zone!, block);
    vevents.push(vevent);
  }
  return assembled(false);
}

/** The VTIMEZONE of a zone, CRLF-ended, as ical-generator writes it into a calendar. */
function timezoneBlock(zone: string): string {
  const block = getVtimezoneComponent(zone);
  return block ? `${block.replace(/\r\n/g, "\n").replace(/\n/g, "\r\n").trim()}\r\n` : "";
}

/**
 * Sends a calendar with its strong ETag (a digest of its bytes); a GET whose If-None-Match names
 * it gets 304. `truncated`: the feed was cut at its size bound.
 */
export async function sendCalendar(
  res: Response,
  calendar: { parts: string[]; truncated: boolean },
  filename: string,
  truncated = false,
): Promise<void> {
  const etag = await entityTagOfParts(calendar.parts);
  res.setHeader("ETag", etag);
  if (truncated || calendar.truncated) res.setHeader("X-Feed-Truncated", "true");
  if (answeredNotModified(res, etag)) return;
  res.status(200);
  res.setHeader("Content-Type", "text/calendar; charset=utf-8");
  res.setHeader("Content-Disposition", `inline; filename="${filename}"`);
  await writeParts(res, calendar.parts);
}
