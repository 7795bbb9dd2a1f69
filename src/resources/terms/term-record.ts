import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { RowsSpec } from "../../i18n/localized-rows";

/**
 * A category or tag as stored: its own columns and its text in every language. One source for
 * the Prisma select and for the columns of the JSON statement that embeds terms in events.
 */
export const TERM_COLUMNS = {
  id: true,
  taxonomy: true,
  parentId: true,
  count: true,
  sourceLanguage: true,
  version: true,
} as const satisfies Prisma.TermSelect;

export const TERM_TEXT_FIELDS = ["name", "description", "slug"] as const;
export type TermTextField = (typeof TERM_TEXT_FIELDS)[number];

export const termSelect = {
  ...TERM_COLUMNS,
  texts: { select: { language: true, name: true, description: true, slug: true } },
} as const satisfies Prisma.TermSelect;

export type TermRecord = Prisma.TermGetPayload<{ select: typeof termSelect }>;

export const TERM_TEXT: RowsSpec<TermTextField> = { fields: TERM_TEXT_FIELDS, nameField: "name", searchFields: ["name", "slug"] };
