import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { ValueTypes } from "../../db/sql-json";
import type { RowsSpec } from "../../i18n/localized-rows";
import type { FallbackOrder } from "../../i18n/localized-text";
import type { LoggedItem } from "../../sync/representation-cache";
import { POST_COLUMNS, POST_VALUE_TYPES } from "../post-kernel/post-record";
import { organizerSelect } from "../organizers/organizer-record";
import { termSelect } from "../terms/term-record";
import { venueSelect } from "../venues/venue-record";

/**
 * An event as stored: its own columns, its text in every language, and what it links to. One
 * source for both ways of reading it: the Prisma select below, and the statement that builds the
 * same record as JSON in the database (one statement per page instead of Prisma's eight).
 */

/** The event's own columns. */
export const EVENT_COLUMNS = {
  ...POST_COLUMNS,
  passwordHash: true,
  startLocal: true,
  endLocal: true,
  startsAt: true,
  endsAt: true,
  timezone: true,
  timezoneAbbr: true,
  allDay: true,
  cost: true,
  website: true,
  image: true,
  showMap: true,
  showMapLink: true,
  hideFromListings: true,
  sticky: true,
  featured: true,
  ticketed: true,
  parentId: true,
  recurrence: true,
  recurrenceUntil: true,
  recurrenceId: true,
  detached: true,
  textOwnerId: true,
  lineage: true,
} as const satisfies Prisma.EventSelect;

export const EVENT_TEXT_COLUMNS = {
  language: true,
  title: true,
  description: true,
  excerpt: true,
  slug: true,
} as const satisfies Prisma.EventTextSelect;

export const eventSelect = {
  ...EVENT_COLUMNS,
  texts: { select: EVENT_TEXT_COLUMNS },
  venues: { orderBy: { position: "asc" }, select: { venue: { select: venueSelect } } },
  organizers: { orderBy: { position: "asc" }, select: { organizer: { select: organizerSelect } } },
  terms: { orderBy: { position: "asc" }, select: { term: { select: termSelect } } },
} satisfies Prisma.EventSelect;

/** The event's columns whose JSON form (read through the raw path) is not the record's. */
export const EVENT_VALUE_TYPES: ValueTypes = {
  ...POST_VALUE_TYPES,
  startsAt: "date",
  endsAt: "date",
  recurrenceUntil: "date",
  recurrenceId: "date",
  allDay: "boolean",
  showMap: "boolean",
  showMapLink: "boolean",
  hideFromListings: "boolean",
  sticky: "boolean",
  featured: "boolean",
  ticketed: "boolean",
  detached: "boolean",
};

/** The languages a representation falls back through, but the item's own source language. */
export type FallbackLanguages = Omit<FallbackOrder, "sourceLanguage">;

export type EventRecord = Prisma.EventGetPayload<{ select: typeof eventSelect }>;

/** The items a representation of the event shows, as the change log names them: itself and what it embeds. */
export function itemsShownBy(event: EventRecord): LoggedItem[] {
  return [
    `events:${event.id}`,
    ...event.venues.map(({ venue }): LoggedItem => `venues:${venue.id}`),
    ...event.organizers.map(({ organizer }): LoggedItem => `organizers:${organizer.id}`),
    ...event.terms.map(({ term }): LoggedItem => `${term.taxonomy === "category" ? "categories" : "tags"}:${term.id}`),
  ];
}

export type LinkKind = "venue" | "organizer" | "categories" | "tags";

/** Ids per kind of link, in order; a kind a write leaves out is absent. */
export type LinkIds = Partial<Record<LinkKind, number[]>>;

export type EventTextField = "title" | "description" | "excerpt" | "slug";

export const EVENT_TEXT: RowsSpec<EventTextField> = {
  fields: ["title", "description", "excerpt", "slug"],
  nameField: "title",
  // As WordPress searches posts: title, excerpt and content.
  searchFields: ["title", "excerpt", "description"],
};
