import { getVtimezoneComponent } from "@touch4it/ical-timezones";
import { ICalCalendar, ICalCalendarMethod, ICalEventStatus, type ICalEventData } from "ical-generator";
import { DateTime } from "luxon";
import type { Request, Response } from "express";
import type { RequestContext } from "../../http/request-context";
import { answeredNotModified, entityTag } from "../../http/conditional";
import type { Schemas } from "../../http/operation-types";
import { plainText } from "../../text/html";
import type { EventRecord } from "./event-record";

/**
 * iCalendar (RFC 5545) representations of events, for calendar apps: a feed of a list, or one
 * event. Written with ical-generator; VTIMEZONE blocks (for every zone the events use) from
 * @touch4it/ical-timezones. An event is its JSON representation (same language, same redaction
 * of password-protected content) in iCalendar's terms:
 * - UID `event-<id>@<host of the API>`, stable across edits; SEQUENCE, the event's write count;
 *   LAST-MODIFIED and DTSTAMP, its last write (so an unchanged feed keeps its bytes and its ETag);
 * - DTSTART/DTEND in the event's own zone (TZID), or as DATE values for all-day events (DTEND the
 *   day after the last, as RFC 5545 counts it);
 * - SUMMARY, DESCRIPTION (plain text), URL (the permalink), LOCATION and GEO from the venue,
 *   ORGANIZER from the first organizer that has an e-mail address, CATEGORIES from categories
 *   and tags;
 * - an event trashed inside the feed's window: STATUS:CANCELLED, so subscribed apps drop it.
 */

/** Whether a GET of events asks for iCalendar: `ical=1`, or an Accept header that prefers text/calendar. */
export function wantsCalendar(req: Request, icalParam: boolean | undefined): boolean {
  if (icalParam === true) return true;
  const accept = req.headers.accept;
  return accept !== undefined && /text\/calendar/i.test(accept) && req.accepts(["application/json", "text/calendar"]) === "text/calendar";
}

export interface FeedEvent {
  record: EventRecord;
  json: Schemas["Event"];
  cancelled: boolean;
}

function hostOf(ctx: RequestContext): string {
  return new URL(ctx.apiBase).hostname;
}

function locationOf(venue: Schemas["Venue"] | undefined): Pick<ICalEventData, "location"> {
  if (!venue) return {};
  const address = [venue.address, venue.city, venue.state ?? venue.province ?? venue.stateprovince, venue.zip, venue.country].filter((part) => part).join(", ");
  const title = [venue.venue, address].filter((part) => part).join(", ");
  const geo = venue.geo_lat !== null && venue.geo_lat !== undefined && venue.geo_lng !== null && venue.geo_lng !== undefined ? { lat: venue.geo_lat, lon: venue.geo_lng } : undefined;
  return { location: { title, ...(geo ? { geo } : {}) } };
}

function eventData(event: FeedEvent, ctx: RequestContext): ICalEventData {
  const { record, json } = event;
  const venue = Array.isArray(json.venue) ? json.venue[0] : (json.venue as Schemas["Venue"] | undefined);
  const organizer = json.organizer?.find((candidate) => candidate.email);
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
  const description = plainText(json.description ?? "").trim();
  return {
    id: `event-${record.id}@${hostOf(ctx)}`,
    sequence: record.version,
    stamp: record.modifiedAt,
    lastModified: record.modifiedAt,
    ...times,
    summary: json.title ? plainText(json.title) : "",
    ...(description ? { description } : {}),
    url: json.url,
    ...locationOf(event.cancelled ? undefined : venue),
    // ORGANIZER is a calendar address: an organizer without an e-mail address has none to give.
    ...(organizer?.email && !event.cancelled ? { organizer: { name: organizer.organizer || organizer.email, email: organizer.email } } : {}),
    categories: [...(json.categories ?? []), ...(json.tags ?? [])].map((term) => ({ name: term.name })),
    status: event.cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
  };
}

/** A calendar of `events`: a feed (METHOD:PUBLISH, named after the site) or a single event. */
export function eventCalendar(events: FeedEvent[], ctx: RequestContext, name: string): string {
  const calendar = new ICalCalendar({
    name,
    method: ICalCalendarMethod.PUBLISH,
    prodId: { company: hostOf(ctx), product: "calendar-events-v1", language: ctx.language.toUpperCase() },
  });
  calendar.timezone({ name: null, generator: getVtimezoneComponent });
  for (const event of events) calendar.createEvent(eventData(event, ctx));
  return calendar.toString();
}

/**
 * Sends a calendar with its strong ETag (a digest of its bytes); a GET whose If-None-Match names
 * it gets 304. `truncated`: the feed was cut at its size bound.
 */
export function sendCalendar(res: Response, body: string, filename: string, truncated = false): void {
  const etag = entityTag(body);
  res.setHeader("ETag", etag);
  if (truncated) res.setHeader("X-Feed-Truncated", "true");
  if (answeredNotModified(res, etag)) return;
  res.status(200);
  res.setHeader("Content-Type", "text/calendar; charset=utf-8");
  res.setHeader("Content-Disposition", `inline; filename="${filename}"`);
  res.send(body);
}
