import { canReadItem } from "../../auth/visibility";
import { dateDetails, formatWallClock, zoneAbbreviation } from "../../dates/date-input";
import type { Schemas } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { effectiveText } from "../../i18n/localized-text";
import { translationsOf } from "../../i18n/translations";
import { autop, excerptOf, plainSummary } from "../../text/html";
import { serializeOrganizer } from "../organizers/organizer-serializer";
import { compact, globalIds, imageOf, permalinkOf, postHead, restUrlOf } from "../post-kernel/post-serializer";
import { TERM_TEXT_FIELDS, type TermRecord } from "../terms/term-record";
import { CATEGORIES, TAGS } from "../terms/term-record";
import { serializeVenue } from "../venues/venue-serializer";
import { describeCost } from "./event-cost";
import { recurrenceJson } from "./event-recurrence";
import { EVENT_TEXT, type EventRecord } from "./event-record";

/** A category or tag as embedded in an event (docs/compatibility.md §3.4.1). */
function embeddedTerm(term: TermRecord, ctx: RequestContext): Schemas["EmbeddedTerm"] {
  const config = term.taxonomy === "category" ? CATEGORIES : TAGS;
  const text = effectiveText(term.texts, TERM_TEXT_FIELDS, {
    language: ctx.language,
    defaultLanguage: ctx.defaultLanguage,
    sourceLanguage: term.sourceLanguage,
  });
  const collection = `${ctx.apiBase}${config.collectionPath}`;
  const urls: Schemas["TermUrls"] = { self: `${collection}/${term.id}`, collection };
  if (term.parentId !== null) urls.up = `${collection}/${term.parentId}`;
  return {
    name: text.name ?? "",
    slug: text.slug ?? "",
    term_group: 0,
    term_taxonomy_id: term.id,
    taxonomy: config.wpName,
    description: text.description ?? "",
    parent: term.parentId ?? 0,
    count: term.count,
    filter: "raw",
    id: term.id,
    urls,
  };
}

/**
 * A wall clock as ISO 8601 with the offset its zone had at `instant` (the instant it is): `Z` in
 * the zone UTC. The offset is the distance between the two, without a time zone lookup.
 */
function isoOf(wall: string, instant: Date, zone: string): string {
  const local = wall.replace(" ", "T");
  if (zone === "UTC") return `${local}Z`;
  const offset = Math.round((Date.parse(`${local}Z`) - instant.getTime()) / 60_000);
  const minutes = Math.abs(offset);
  return `${local}${offset < 0 ? "-" : "+"}${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

function eventJsonLd(
  event: EventRecord,
  json: Schemas["Event"],
  venues: Schemas["Venue"][],
  organizers: Schemas["Organizer"][],
): Schemas["JsonLd"] {
  const values = json.cost_details.values;
  return {
    "@context": "http://schema.org",
    "@type": "Event",
    ...compact({
      name: json.title,
      description: plainSummary(json.excerpt || json.description || null),
      image: json.image === false ? undefined : json.image.url,
      url: json.url,
      eventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode",
      eventStatus: "https://schema.org/EventScheduled",
      startDate: isoOf(event.startLocal, event.startsAt, event.timezone),
      endDate: isoOf(event.endLocal, event.endsAt, event.timezone),
      location: venues[0]?.json_ld,
      organizer: organizers.length > 0 ? organizers.map((organizer) => organizer.json_ld) : undefined,
      offers:
        values.length > 0
          ? compact({
              "@type": "Offer",
              price: values[0],
              priceCurrency: json.cost_details.currency_code || undefined,
              url: json.url,
              category: "primary",
              availability: "inStock",
              // As the original gives it: the day the event was published, from its start.
              validFrom: `${json.date.slice(0, 10)}T00:00:00Z`,
            })
          : undefined,
      performer: "Organization",
    }),
  };
}

/**
 * An event as the API represents it (docs/compatibility.md §3.1 with the contract's departures). The
 * venues and organizers the caller may not read are left out. With `jsonLd` (single-event
 * responses), the event and its venues and organizers carry their schema.org description.
 */
export function serializeEvent(
  event: EventRecord,
  ctx: RequestContext,
  options: { jsonLd: boolean; translations?: boolean; redacted?: boolean },
): Schemas["Event"] {
  if (options.redacted) return redacted(serializeEvent(event, ctx, { jsonLd: false }));
  const text = effectiveText(event.texts, EVENT_TEXT.fields, {
    language: ctx.language,
    defaultLanguage: ctx.defaultLanguage,
    sourceLanguage: event.sourceLanguage,
  });
  const slug = text.slug ?? "";
  const url = permalinkOf(ctx, "event", slug);
  const description = text.description === null ? "" : autop(text.description);
  const excerpt = text.excerpt !== null ? autop(text.excerpt) : (excerptOf(description || null) ?? "");
  const embedded = { jsonLd: options.jsonLd };
  const venues = event.venues
    .map((link) => link.venue)
    .filter((venue) => canReadItem(ctx.principal, "venues", venue))
    .map((venue) => serializeVenue(venue, ctx, embedded));
  const organizers = event.organizers
    .map((link) => link.organizer)
    .filter((organizer) => canReadItem(ctx.principal, "organizers", organizer))
    .map((organizer) => serializeOrganizer(organizer, ctx, embedded));
  const terms = event.terms.map((link) => link.term);
  const utcStart = formatWallClock(event.startsAt, "UTC");
  const utcEnd = formatWallClock(event.endsAt, "UTC");
  const { id, ...head } = postHead(event, ctx);
  const json: Schemas["Event"] = {
    id,
    ...globalIds(event, "event", ctx),
    ...head,
    url,
    rest_url: restUrlOf(ctx, "event", event.id),
    title: text.title ?? "",
    description,
    excerpt,
    slug,
    image: imageOf(event.image, "event", event.id) ?? false,
    all_day: event.allDay,
    start_date: event.startLocal,
    start_date_details: dateDetails(event.startLocal),
    end_date: event.endLocal,
    end_date_details: dateDetails(event.endLocal),
    utc_start_date: utcStart,
    utc_start_date_details: dateDetails(utcStart),
    utc_end_date: utcEnd,
    utc_end_date_details: dateDetails(utcEnd),
    timezone: event.timezone,
    // Of the time zone data this release holds, not the stored copy an earlier release wrote (which
    // it still writes, for a previous release serving beside it during an upgrade).
    timezone_abbr: zoneAbbreviation(event.timezone, event.startsAt),
    ...describeCost(event.cost),
    website: event.website ?? url,
    show_map: event.showMap,
    show_map_link: event.showMapLink,
    hide_from_listings: event.hideFromListings,
    sticky: event.sticky,
    featured: event.featured,
    ticketed: event.ticketed,
    post_parent: event.parentId ?? 0,
    recurrence: recurrenceJson(event.recurrence, event.recurrenceUntil, event.timezone),
    recurrence_id: event.recurrenceId === null ? null : formatWallClock(event.recurrenceId, event.timezone),
    detached: event.detached,
    categories: terms.filter((term) => term.taxonomy === "category").map((term) => embeddedTerm(term, ctx)),
    tags: terms.filter((term) => term.taxonomy === "tag").map((term) => embeddedTerm(term, ctx)),
    venue: venues.length === 1 ? venues[0] : (venues as [] | Schemas["Venue"][] as never),
    organizer: organizers,
  };
  if (options.jsonLd) json.json_ld = eventJsonLd(event, json, venues, organizers);
  if (options.translations)
    json.translations = translationsOf(
      event.texts,
      EVENT_TEXT.fields,
      event.sourceLanguage,
      ctx,
      `/events/${event.id}`,
    );
  return json;
}

/**
 * A password-protected event the request may not open, as lists show it (docs/compatibility.md §3.6):
 * its content emptied, its flags null, its links gone; title, dates, status, slug and links stay.
 */
function redacted(json: Schemas["Event"]): Schemas["Event"] {
  return {
    ...json,
    description: "",
    excerpt: "",
    image: false,
    all_day: null,
    cost: "",
    cost_details: { currency_symbol: "", currency_code: "", currency_position: "", values: [] },
    website: "",
    show_map: null,
    show_map_link: null,
    hide_from_listings: null,
    sticky: null,
    featured: null,
    ticketed: null,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
  };
}
