import { isWebUrl } from "../../text/web-url";
import { MAX_EXDATES, MAX_RDATES } from "../../dates/recurrence-limits";
import { zoneOfOffsetName } from "../../dates/offset-zones";
import type { FeedEvent, FeedProblem, LinkedItemData, RemoteTerm, RestDetails } from "./feed-event";

/**
 * Reading one page of another site's events REST API (The Events Calendar's `tribe/events/v1`, or
 * this service's `calendar/events/v1`): its JSON made into the events a run keeps in step, as
 * ical-reader.ts makes a feed's VEVENTs. It runs in the work thread (feed-reading.ts): the page is
 * the source's to shape, and a hostile one (a million nested arrays in a few megabytes) costs
 * seconds and hundreds of megabytes to parse. Every value is checked for its type and length: an
 * event with a value the calendar cannot hold is a problem of the run, never a crash.
 */

export interface RestPageText {
  text: string;
  /** The most items the page may hold (what the run may take). */
  maxEvents: number;
  /** The most problems worth keeping (the run keeps the first ones; the others are counted). */
  maxProblems?: number;
}

export interface RestPage {
  /** How many items the page held, whatever became of them (none: the list ended). */
  count: number;
  events: FeedEvent[];
  /** Of a sync answer (this service's): the ids of the events it reports deleted or no longer shown. */
  deleted: string[];
  /** Series whose occurrences the page lists without them (their ids). */
  seriesWanted: string[];
  /** The first problems (at most `maxProblems`), and how many there were. */
  problems: FeedProblem[];
  problemCount: number;
  /** How many of its items were occurrences of a series (made here by the series' rule). */
  occurrences: number;
  total: number | null;
  totalPages: number | null;
  nextSyncToken: string | null;
}

/** Why a page could not be read at all (the run fails with this message). */
export class UnreadableRestPage extends Error {
  override name = "UnreadableRestPage";
}

type Json = Record<string, unknown>;

function parsedJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new UnreadableRestPage("the source's answer is not JSON");
  }
}

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/;
const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+$/;
const MAX_LINEAGE = 20;
const MAX_TERMS = 100;
const MAX_ORGANIZERS = 20;

/** A string of at most `max` characters (longer ones cut), or null. */
function text(value: unknown, max: number): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return null;
  return value.length > max ? value.slice(0, max) : value;
}

const seconds = (wallClock: string) => (wallClock.length === 16 ? `${wallClock}:00` : wallClock);

function url(value: unknown): string | null {
  return typeof value === "string" && isWebUrl(value) ? value : null;
}

function flag(value: unknown, otherwise: boolean): boolean {
  return typeof value === "boolean" ? value : otherwise;
}

function coordinate(value: unknown, bound: number): number | null {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) && Math.abs(number) <= bound ? number : null;
}

/** A positive integer id, from a number or digits. */
function idOf(value: unknown): number | null {
  const number = typeof value === "string" && /^\d{1,10}$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isInteger(number) && number > 0 && number < 2 ** 31 ? number : null;
}

/** The non-empty string fields of an item among `keys`, each cut to `max`. */
function fieldsOf(item: Json, keys: string[], max: number): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const key of keys) {
    const value = text(item[key], max)?.trim();
    if (value) fields[key] = value;
  }
  return fields;
}

/** The event's venue as a venue write: its name, address and the rest (the original drops empty fields), with its lineage. */
function venueOf(value: unknown): LinkedItemData | null {
  const venue = Array.isArray(value) ? value[0] : value;
  if (!isObject(venue)) return null;
  const fields = fieldsOf(
    venue,
    ["venue", "address", "city", "country", "province", "state", "stateprovince", "zip", "phone"],
    200,
  );
  if (!fields.venue) return null;
  const description = text(venue.description, 65535);
  const website = url(venue.website);
  const lat = coordinate(venue.geo_lat, 90);
  const lng = coordinate(venue.geo_lng, 180);
  return {
    fields: {
      ...fields,
      ...(description ? { description } : {}),
      ...(website ? { website } : {}),
      ...(typeof venue.show_map === "boolean" ? { show_map: venue.show_map } : {}),
      ...(typeof venue.show_map_link === "boolean" ? { show_map_link: venue.show_map_link } : {}),
      ...(lat !== null && lng !== null ? { geo_lat: lat, geo_lng: lng } : {}),
    },
    lineage: linkedLineageOf(venue),
  };
}

function organizersOf(value: unknown): LinkedItemData[] {
  const list = Array.isArray(value) ? value : isObject(value) ? [value] : [];
  return list.slice(0, MAX_ORGANIZERS).flatMap((organizer) => {
    if (!isObject(organizer)) return [];
    const fields = fieldsOf(organizer, ["organizer", "phone"], 200);
    if (!fields.organizer) return [];
    const given = text(organizer.email, 254)?.trim();
    // An address, or none: a write takes it as it comes (the original keeps e-mails as given).
    const email = given && EMAIL.test(given) ? given : null;
    const website = url(organizer.website);
    const description = text(organizer.description, 65535);
    return [
      {
        fields: {
          ...fields,
          ...(email ? { email } : {}),
          ...(website ? { website } : {}),
          ...(description ? { description } : {}),
        },
        lineage: linkedLineageOf(organizer),
      },
    ];
  });
}

/** The terms (categories, tags) of an event: their ids there, and their names as the source's language names them. */
function remoteTerms(value: unknown): RemoteTerm[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_TERMS).flatMap((term) => {
    const name = isObject(term) ? text(term.name, 200)?.trim() : null;
    const id = isObject(term) ? idOf(term.id) : null;
    return name ? [{ id: id === null ? null : String(id), name }] : [];
  });
}

/** A modification date as WordPress gives it (`2026-12-02 13:25:44`, or with a `T`), with a space. */
function modifiedOf(value: unknown): string | null {
  const date = text(value, 19)?.replace("T", " ");
  return date && WALL_CLOCK.test(date) && date.length === 19 ? date : null;
}

/** A venue's or organizer's lineage, when it gives its global id. */
function linkedLineageOf(item: Json): string[] {
  const globalId = text(item.global_id, 500);
  return globalId ? lineageOf(item, globalId) : [];
}

/** The item's lineage as the source gives it: its own global id first. */
function lineageOf(item: Json, globalId: string): string[] {
  const given = Array.isArray(item.global_id_lineage) ? item.global_id_lineage : [];
  const ids = given.flatMap((id) => {
    const value = text(id, 500);
    return value ? [value] : [];
  });
  const lineage = ids[0] === globalId ? ids : [globalId, ...ids.filter((id) => id !== globalId)];
  return [...new Set(lineage)].slice(0, MAX_LINEAGE);
}

/**
 * A series' rule as this service gives it ({rrule, rdate, exdate}), or null; "too many dates" when
 * its lists pass what a series may list (counted before a date is read).
 */
function recurrenceOf(value: unknown): FeedEvent["recurrence"] | "too many dates" {
  if (!isObject(value) || typeof value.rrule !== "string" || value.rrule.length > 2000) return null;
  const listed = (list: unknown) => (Array.isArray(list) ? list : []);
  if (listed(value.rdate).length > MAX_RDATES || listed(value.exdate).length > MAX_EXDATES) return "too many dates";
  const dates = (list: unknown) =>
    listed(list).filter((date): date is string => typeof date === "string" && WALL_CLOCK.test(date));
  return { rrule: value.rrule, rdate: dates(value.rdate), exdate: dates(value.exdate) };
}

const UTC_OFFSET = /^UTC[+-]/i;

/**
 * The event's zone and wall clocks. The Events Calendar gives a site set to an offset rather than
 * a city as WordPress names it (`UTC+0`, `UTC+2`, `UTC-3:30`, `UTC+5.5`): the zone that has that
 * offset all year (src/dates/offset-zones.ts), else the event's UTC times in the zone `UTC`. Any
 * other name is the source's, and the write says whether it is one.
 */
function zoneAndTimes(item: Json, start: string, end: string, zone: string) {
  if (!UTC_OFFSET.test(zone)) return { timezone: zone, start, end };
  const fixed = zoneOfOffsetName(zone);
  if (fixed !== null) return { timezone: fixed, start, end };
  const utcStart = text(item.utc_start_date, 19);
  const utcEnd = text(item.utc_end_date, 19);
  if (!utcStart || !WALL_CLOCK.test(utcStart) || !utcEnd || !WALL_CLOCK.test(utcEnd)) return null;
  return { timezone: "UTC", start: utcStart, end: utcEnd };
}

/** The event of one item of the list, or why it cannot be one. */
function eventOf(item: unknown): FeedEvent | FeedProblem | "occurrence" {
  const id = isObject(item) ? idOf(item.id) : null;
  if (!isObject(item) || id === null)
    return { uid: null, recurrence_id: null, message: "an item of the list that is not an event with an id" };
  const problem = (message: string): FeedProblem => ({ uid: String(id), recurrence_id: null, message });
  const start = text(item.start_date, 19);
  const end = text(item.end_date, 19);
  const timezone = text(item.timezone, 64);
  if (!start || !WALL_CLOCK.test(start) || !end || !WALL_CLOCK.test(end))
    return problem("its start_date or end_date is not a date and time");
  if (!timezone) return problem("it has no timezone");
  const zoned = zoneAndTimes(item, start, end, timezone);
  if (!zoned)
    return problem("its timezone is an offset, and its utc_start_date or utc_end_date is not a date and time");
  const parent = idOf(item.post_parent);
  const recurrenceId = text(item.recurrence_id, 19);
  const ofSeries = parent !== null && recurrenceId !== null && WALL_CLOCK.test(recurrenceId);
  // An occurrence its series' rule makes here too; one edited on its own is the series' override.
  if (ofSeries && item.detached !== true) return "occurrence";
  const recurrence = ofSeries ? null : recurrenceOf(item.recurrence);
  if (recurrence === "too many dates")
    return problem(`its series lists more than ${MAX_RDATES} extra or ${MAX_EXDATES} excluded dates`);
  const globalId = text(item.global_id, 500) ?? String(id);
  const image = isObject(item.image) ? url(item.image.url) : null;
  const rest: RestDetails = {
    venue: venueOf(item.venue),
    organizers: organizersOf(item.organizer),
    categories: remoteTerms(item.categories),
    tags: remoteTerms(item.tags),
    cost: text(item.cost, 200) ?? "",
    featured: flag(item.featured, false),
    sticky: flag(item.sticky, false),
    hideFromListings: flag(item.hide_from_listings, false),
    showMap: flag(item.show_map, true),
    showMapLink: flag(item.show_map_link, true),
    lineage: lineageOf(item, globalId),
    modified: modifiedOf(item.modified),
  };
  return {
    uid: ofSeries ? String(parent) : String(id),
    recurrenceId: ofSeries ? recurrenceId : null,
    timezone: zoned.timezone,
    allDay: item.all_day === true,
    startLocal: seconds(zoned.start),
    endLocal: seconds(zoned.end),
    recurrence,
    title: text(item.title, 2000),
    description: text(item.description, 200_000),
    // Both APIs show an event's own page as its website when it has none: that is not a website.
    url: item.website === item.url ? null : url(item.website),
    image,
    location: null,
    geo: null,
    organizer: null,
    categories: remoteTerms(item.categories).map((term) => term.name),
    cancelled: false,
    rest,
  };
}

/** Reads one page of an events list, or of a sync answer (`deleted` besides `events`). */
export function readRestPage({ text: body, maxEvents, maxProblems = maxEvents }: RestPageText): RestPage {
  const parsed = parsedJson(body);
  if (!isObject(parsed) || !Array.isArray(parsed.events))
    throw new UnreadableRestPage("the source's answer is not a list of events (no `events`)");
  if (parsed.events.length > maxEvents)
    throw new UnreadableRestPage(`the source lists more than ${maxEvents} events (IMPORT_MAX_EVENTS)`);
  const page: RestPage = {
    count: parsed.events.length,
    events: [],
    deleted: [],
    seriesWanted: [],
    problems: [],
    problemCount: 0,
    occurrences: 0,
    total: idOf(parsed.total) ?? (parsed.total === 0 ? 0 : null),
    totalPages: idOf(parsed.total_pages),
    nextSyncToken: text(parsed.next_sync_token, 4000),
  };
  const wanted = new Set<string>();
  for (const item of parsed.events) {
    const event = eventOf(item);
    if (event === "occurrence") {
      page.occurrences += 1;
      wanted.add(String(idOf((item as Json).post_parent)));
    } else if ("message" in event) {
      page.problemCount += 1;
      if (page.problems.length < maxProblems) page.problems.push(event);
    } else page.events.push(event);
  }
  const deleted = Array.isArray(parsed.deleted) ? parsed.deleted.slice(0, maxEvents) : [];
  for (const tombstone of deleted) {
    const id = isObject(tombstone) ? idOf(tombstone.id) : null;
    if (id !== null) page.deleted.push(String(id));
  }
  page.seriesWanted = [...wanted];
  return page;
}

/** Reads one event (`GET …/events/{id}`): a series the list gave only occurrences of. */
export function readRestEvent({ text: body }: RestPageText): FeedEvent | FeedProblem {
  const parsed = parsedJson(body);
  const event = eventOf(parsed);
  if (event === "occurrence")
    return { uid: null, recurrence_id: null, message: "the series of occurrences listed is itself an occurrence" };
  return event;
}

/** One page of WordPress's own list of a site's events (`wp/v2/tribe_events?_fields=id,modified`). */
export interface RestIdPage {
  items: Array<{ id: string; modified: string }>;
  /** How many the page held, those unreadable too (fewer than asked: the last page). */
  count: number;
}

export function readRestIds({ text: body, maxEvents }: RestPageText): RestIdPage {
  const parsed = parsedJson(body);
  if (!Array.isArray(parsed)) throw new UnreadableRestPage("the source's answer is not a list of posts");
  if (parsed.length > maxEvents)
    throw new UnreadableRestPage(`the source lists more than ${maxEvents} events (IMPORT_MAX_EVENTS)`);
  const items = parsed.flatMap((post) => {
    const id = isObject(post) ? idOf(post.id) : null;
    const modified = isObject(post) ? modifiedOf(post.modified) : null;
    return id !== null && modified !== null ? [{ id: String(id), modified }] : [];
  });
  return { items, count: parsed.length };
}

/** A page of this service's changes of venues or organizers (`…/venues?sync_token=`). */
export interface LinkedItemPage {
  items: LinkedItemData[];
  totalPages: number | null;
  nextSyncToken: string | null;
}

export function readLinkedItemPage(
  { text: body, maxEvents }: RestPageText,
  key: "venues" | "organizers",
): LinkedItemPage {
  const parsed = parsedJson(body);
  const list = isObject(parsed) ? parsed[key] : null;
  if (!isObject(parsed) || !Array.isArray(list))
    throw new UnreadableRestPage(`the source's answer is not a list of ${key}`);
  const read = key === "venues" ? (item: unknown) => venueOf(item) : (item: unknown) => organizersOf([item])[0] ?? null;
  return {
    items: list.slice(0, maxEvents).flatMap((item) => read(item) ?? []),
    totalPages: idOf(parsed.total_pages),
    nextSyncToken: text(parsed.next_sync_token, 4000),
  };
}

/** One venue or organizer (`…/venues/{id}`), or null when it is none the calendar can hold. */
export function readLinkedItem({ text: body }: RestPageText, kind: "venue" | "organizer"): LinkedItemData | null {
  const parsed = parsedJson(body);
  return kind === "venue" ? venueOf(parsed) : (organizersOf([parsed])[0] ?? null);
}

/**
 * What a REST source's answer is read as: a page of its list, one event, a page of WordPress's
 * list of ids, a page of changed venues or organizers, or one of them.
 */
export type RestShape = "list" | "event" | "ids" | "venues" | "organizers" | "venue" | "organizer";

/** The work thread's entry for REST answers (one thread reads them all, page after page). */
export function readRest(
  input: RestPageText & { shape: RestShape },
): RestPage | FeedEvent | FeedProblem | RestIdPage | LinkedItemPage | LinkedItemData | null {
  if (input.shape === "list") return readRestPage(input);
  if (input.shape === "event") return readRestEvent(input);
  if (input.shape === "ids") return readRestIds(input);
  if (input.shape === "venue" || input.shape === "organizer") return readLinkedItem(input, input.shape);
  return readLinkedItemPage(input, input.shape);
}
