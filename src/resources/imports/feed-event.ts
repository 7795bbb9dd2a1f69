/** What reading a source gives (ical-reader.ts, rest-reader.ts), and what a feed's reading is given. */

/** A venue or organizer as a REST source gives it: its write (`CreateVenueRequest`'s or `CreateOrganizerRequest`'s fields), and its lineage there. */
export interface LinkedItemData {
  fields: Record<string, unknown>;
  /** Its `global_id_lineage` there (empty: the source gives none). */
  lineage: string[];
}

/** A category or tag as a REST source gives it: its id there (null: none given), and its name in the source's language. */
export interface RemoteTerm {
  id: string | null;
  name: string;
}

/**
 * What another site's events REST API gives besides what iCalendar can say (rest-reader.ts): the
 * venue and organizers as items, the terms with their ids there, cost, flags and the item's lineage.
 */
export interface RestDetails {
  venue: LinkedItemData | null;
  organizers: LinkedItemData[];
  /** Its categories (their names are the event's `categories` too) and tags. */
  categories: RemoteTerm[];
  tags: RemoteTerm[];
  cost: string;
  featured: boolean;
  sticky: boolean;
  hideFromListings: boolean;
  showMap: boolean;
  showMapLink: boolean;
  /** The item's `global_id_lineage` at the source: its global id there first, where it was first made last. */
  lineage: string[];
  /** When it was last modified there (`YYYY-MM-DD HH:MM:SS`, the site's wall clock), if it says. */
  modified: string | null;
}

/**
 * One event of a source as the calendar will hold it: a VEVENT, or an item of a REST API (its uid
 * the item's id there; an occurrence edited on its own, its series' id with its `recurrence_id`).
 */
export interface FeedEvent {
  uid: string;
  /** Of an override of one occurrence (RECURRENCE-ID): that occurrence's start, a wall clock of the event's zone. */
  recurrenceId: string | null;
  timezone: string;
  allDay: boolean;
  /** `YYYY-MM-DD HH:MM:SS` of `timezone`; an all-day event's end is 23:59:59 of its last day (DTEND is exclusive). */
  startLocal: string;
  endLocal: string;
  recurrence: { rrule: string; rdate: string[]; exdate: string[] } | null;
  /** An override of its series' first occurrence, made an event of its own: the series starts after it (first-occurrences.ts). */
  firstOfSeries?: true;
  title: string | null;
  /** DESCRIPTION as HTML (its lines as paragraphs and breaks), or X-ALT-DESC's HTML when the feed gives it. */
  description: string | null;
  url: string | null;
  /** The event's image: RFC 7986's IMAGE, or an ATTACH that is an image (by its FMTTYPE, or its URL's extension). */
  image: string | null;
  location: string | null;
  geo: { lat: number; lng: number } | null;
  organizer: { name: string | null; email: string | null } | null;
  categories: string[];
  cancelled: boolean;
  rest?: RestDetails;
}

/** Why a VEVENT was not read. */
export interface FeedProblem {
  uid: string | null;
  recurrence_id: string | null;
  message: string;
}

export interface FeedReading {
  events: FeedEvent[];
  problems: FeedProblem[];
}

/** What a feed's reading is given: its text, the site's zone, and the most VEVENTs it may hold (IMPORT_MAX_EVENTS). */
export interface FeedText {
  text: string;
  siteZone: string;
  maxEvents: number;
}
