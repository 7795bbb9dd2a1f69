import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { ValueTypes } from "../../db/sql-json";
import { LINKED_POST_TEXT, LINKED_POST_TEXT_COLUMNS, POST_COLUMNS, POST_VALUE_TYPES } from "../post-kernel/post-record";

/**
 * An organizer as stored: its own columns and its text in every language. One source for the
 * Prisma select and for the columns of the JSON statement that embeds organizers in events.
 */
export const ORGANIZER_COLUMNS = {
  ...POST_COLUMNS,
  phone: true,
  website: true,
  email: true,
  image: true,
  lineage: true,
} as const satisfies Prisma.OrganizerSelect;

export const organizerSelect = {
  ...ORGANIZER_COLUMNS,
  texts: { select: LINKED_POST_TEXT_COLUMNS },
} as const satisfies Prisma.OrganizerSelect;

/** The columns whose JSON form (an organizer embedded in an event's record) is not the record's. */
export const ORGANIZER_VALUE_TYPES: ValueTypes = POST_VALUE_TYPES;

export type OrganizerRecord = Prisma.OrganizerGetPayload<{ select: typeof organizerSelect }>;

export const ORGANIZER_TEXT = LINKED_POST_TEXT;

/** The columns of an organizer that are the same in every language and that writes set as given. */
export const ORGANIZER_PLAIN_COLUMNS = ["phone", "website", "email", "image"] as const;
