import { createHash } from "node:crypto";
import type { Schemas } from "../../http/operation-types";
import { CONTRIBUTOR_MARKUP } from "../../text/kses";
import { isWebUrl } from "../../text/web-url";
import type { FeedEvent, LinkedItemData, RestDetails } from "./feed-event";
import { venueOfLocation } from "./location-venue";

/**
 * What a VEVENT asks of its event: an event write, in the form the API takes (so that an import
 * follows every rule a write by hand does), and its digest, which tells a run whether the VEVENT
 * changed since it was last imported. Text is filtered as a contributor's (feeds are not trusted
 * with markup), titles and names cut to what the spec allows.
 */

/** What a source adds to every event it writes. */
export interface SourceDefaults {
  postStatus: "publish" | "draft";
  categoryIds: number[];
  tagIds: number[];
}

const UNTITLED = "(no title)";
const cut = (text: string, length: number) => (text.length > length ? text.slice(0, length) : text);

/**
 * A category's or tag's name as a source gives it, as a name here: markup taken out and entities
 * read (The Events Calendar sends `Food &amp; Drink`), cut to what a term's name may be; "" when
 * nothing is left.
 */
export const termNameOf = (given: string) => cut(CONTRIBUTOR_MARKUP.title(given).trim(), 200);

/** The names of terms, as names here, once each; `room`: how many the event may still take. */
const termNames = (given: string[], room: number) =>
  [...new Set(given.map(termNameOf).filter((name) => name !== ""))].slice(0, Math.max(0, room));

function titleOf(event: FeedEvent): string {
  const title = event.title === null ? "" : CONTRIBUTOR_MARKUP.title(event.title).trim();
  return cut(title === "" ? UNTITLED : title, 500);
}

function venueOf(event: FeedEvent): Schemas["EventFields"]["venue"] {
  const named = event.location === null ? null : venueOfLocation(CONTRIBUTOR_MARKUP.title(event.location));
  if (named === null) return [];
  return { ...named, ...(event.geo ? { geo_lat: event.geo.lat, geo_lng: event.geo.lng } : {}) };
}

function organizerOf(event: FeedEvent): Schemas["EventFields"]["organizer"] {
  const organizer = event.organizer;
  const name = organizer ? CONTRIBUTOR_MARKUP.title(organizer.name ?? organizer.email ?? "").trim() : "";
  if (!organizer || name === "") return [];
  const email = organizer.email !== null && organizer.email.length <= 200 ? { email: organizer.email } : {};
  return { organizer: cut(name, 200), ...email };
}

/** Whether a venue or organizer keeps a name once filtered (a venue named by markup alone is none). */
export const namedLinkedItem = (item: LinkedItemData, nameKey: string) =>
  CONTRIBUTOR_MARKUP.title(String(item.fields[nameKey])).trim() !== "";

/** A venue or organizer write a REST source gives, its text filtered as a contributor's: names as titles, descriptions as HTML. */
export function linkedItemWrite(item: LinkedItemData): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item.fields).map(([key, value]) => [
      key,
      typeof value !== "string" || key === "website" || key === "email"
        ? value
        : key === "description"
          ? cut(CONTRIBUTOR_MARKUP.html(value), 65535)
          : cut(CONTRIBUTOR_MARKUP.title(value), 200),
    ]),
  );
}

/** What a REST source's event says besides what a VEVENT can: its venue, organizers, tags, cost and flags. */
function restFieldsOf(rest: RestDetails, defaults: SourceDefaults) {
  const tags = termNames(
    rest.tags.map((term) => term.name),
    100 - defaults.tagIds.length,
  );
  return {
    venue: rest.venue && namedLinkedItem(rest.venue, "venue") ? linkedItemWrite(rest.venue) : [],
    organizer: rest.organizers.filter((organizer) => namedLinkedItem(organizer, "organizer")).map(linkedItemWrite),
    tags: [...defaults.tagIds, ...tags],
    cost: cut(rest.cost, 200),
    featured: rest.featured,
    sticky: rest.sticky,
    hide_from_listings: rest.hideFromListings,
    show_map: rest.showMap,
    show_map_link: rest.showMapLink,
  } as Partial<Schemas["CreateEventRequest"]>;
}

/**
 * The write of a VEVENT's event, as the feed says it (its ORGANIZER as data: a run links the
 * organizer its e-mail address matches instead); an override's (of one occurrence) has no rule,
 * and keeps its series' status; one of a series' first occurrence is an event of its own.
 */
export function eventWriteOf(event: FeedEvent, defaults: SourceDefaults): Schemas["CreateEventRequest"] {
  const description = event.description === null ? "" : cut(CONTRIBUTOR_MARKUP.html(event.description), 65535);
  const website = event.url !== null && isWebUrl(event.url) ? event.url : "";
  const ownEvent = event.recurrenceId === null || event.firstOfSeries === true;
  const given = event.image !== null && isWebUrl(event.image) ? event.image : null;
  // An event's image set here stays when the feed gives none; an override is its occurrence whole
  // (RFC 5545), and has none then, whatever its series has. A REST source says when it has none.
  const image = given !== null ? { image: given } : ownEvent && !event.rest ? {} : { image: "" };
  const names = termNames(event.categories, 100 - defaults.categoryIds.length);
  return {
    title: titleOf(event),
    description,
    start_date: event.startLocal,
    end_date: event.endLocal,
    timezone: event.timezone,
    all_day: event.allDay,
    website,
    ...image,
    venue: venueOf(event),
    organizer: organizerOf(event),
    categories: [...defaults.categoryIds, ...names],
    tags: defaults.tagIds,
    ...(event.rest ? restFieldsOf(event.rest, defaults) : {}),
    // A cancelled event is not published (it stays, as a draft, should the feed bring it back).
    ...(ownEvent ? { status: event.cancelled ? "draft" : defaults.postStatus } : {}),
    ...(ownEvent ? { recurrence: event.firstOfSeries ? null : event.recurrence } : {}),
  };
}

/** The digest of a write in a language: the same write in the same language, the same digest. */
export function digestOf(write: unknown, language: string): string {
  return createHash("sha256")
    .update(JSON.stringify([language, write]))
    .digest("base64url");
}
