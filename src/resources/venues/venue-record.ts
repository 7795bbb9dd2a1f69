import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { ValueTypes } from "../../db/sql-json";
import { LINKED_POST_TEXT, LINKED_POST_TEXT_COLUMNS, POST_COLUMNS, POST_VALUE_TYPES } from "../post-kernel/post-record";

/**
 * A venue as stored: its own columns and its text in every language. One source for the Prisma
 * select and for the columns of the JSON statement that embeds venues in events (event-record.ts).
 */
export const VENUE_COLUMNS = {
  ...POST_COLUMNS,
  address: true,
  city: true,
  country: true,
  province: true,
  state: true,
  zip: true,
  phone: true,
  stateprovince: true,
  website: true,
  image: true,
  showMap: true,
  showMapLink: true,
  geoLat: true,
  geoLng: true,
  lineage: true,
} as const satisfies Prisma.VenueSelect;

export const venueSelect = {
  ...VENUE_COLUMNS,
  texts: { select: LINKED_POST_TEXT_COLUMNS },
} as const satisfies Prisma.VenueSelect;

/** The columns whose JSON form (a venue embedded in an event's record) is not the record's. */
export const VENUE_VALUE_TYPES: ValueTypes = { ...POST_VALUE_TYPES, showMap: "boolean", showMapLink: "boolean" };

export type VenueRecord = Prisma.VenueGetPayload<{ select: typeof venueSelect }>;

export const VENUE_TEXT = LINKED_POST_TEXT;

/** The columns of a venue that are the same in every language and that writes set as given. */
export const VENUE_PLAIN_COLUMNS = [
  "address",
  "city",
  "country",
  "province",
  "state",
  "zip",
  "phone",
  "stateprovince",
  "website",
  "image",
] as const;
