import type { ValueTypes } from "../../db/sql-json";
import type { RowsSpec } from "../../i18n/localized-rows";

/**
 * The columns every post (event, venue, organizer) has, as a Prisma select: each resource's record
 * (event-record.ts, venue-record.ts, organizer-record.ts) starts from these.
 */
export const POST_COLUMNS = {
  id: true,
  authorId: true,
  status: true,
  sourceLanguage: true,
  postDate: true,
  modifiedAt: true,
  version: true,
} as const;

/** The columns of POST_COLUMNS whose JSON form (read through the raw path) is not the record's. */
export const POST_VALUE_TYPES: ValueTypes = { postDate: "date", modifiedAt: "date" };

/** The per-language text of venues and organizers (TEC's linked posts): a name, a description, a slug. */
export const LINKED_POST_TEXT_COLUMNS = { language: true, name: true, description: true, slug: true } as const;

export type LinkedPostTextField = "name" | "description" | "slug";

export const LINKED_POST_TEXT: RowsSpec<LinkedPostTextField> = {
  fields: ["name", "description", "slug"],
  nameField: "name",
  searchFields: ["name", "description"],
};
