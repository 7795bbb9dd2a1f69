import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Language } from "../../i18n/languages";
import { slugLookupKeys } from "../../text/slug";

/** The text tables with per-language slugs, and the column that names their item. */
const SLUGGED = {
  EventText: "eventId",
  VenueText: "venueId",
  OrganizerText: "organizerId",
} as const;

export type SluggedTable = keyof typeof SLUGGED;

/**
 * The one rule every by-slug route follows: the item whose slug, in the request language, is
 * `slug` as WordPress reads a slug asked for (whatever its case, percent-encoded or not: see
 * slugLookupKeys); else the one whose slug in the default language is; else any whose slug in
 * another language is (the first language in order). A statement selecting that item's id.
 */
export function itemBySlugSql(
  table: SluggedTable,
  slug: string,
  language: Language,
  defaultLanguage: Language,
): Prisma.Sql {
  return slugMatchSql(table, slug, language, defaultLanguage, Prisma.empty);
}

/**
 * The same, with the language whose slug matched ("language") and the slug ("slug"): a match of
 * the lookup's most exact key in the request language is the item's for as long as the item keeps
 * that slug (slugs are unique per language); one in another language, or of a looser key, can be
 * overtaken by an item given that slug in the request language.
 */
export function slugMatchSql(
  table: SluggedTable,
  slug: string,
  language: Language,
  defaultLanguage: Language,
  extraColumns = Prisma.sql`, "t"."language" AS "language", "t"."slug" AS "slug"`,
): Prisma.Sql {
  const key = Prisma.raw(`"t"."${SLUGGED[table]}"`);
  const keys = slugLookupKeys(slug);
  const slugColumn = Prisma.raw(`"t"."slug"`);
  // Most exact first, when more than one is some item's slug.
  const exactness =
    keys.length > 1
      ? Prisma.sql`, CASE ${slugColumn} ${Prisma.join(
          keys.map((candidate, rank) => Prisma.sql`WHEN ${candidate} THEN ${rank}`),
          " ",
        )} END`
      : Prisma.empty;
  return Prisma.sql`SELECT ${key}${extraColumns} FROM ${Prisma.raw(`"${table}"`)} "t" WHERE ${slugIn(slugColumn, keys)}
    ORDER BY ${languageOrderSql(Prisma.raw(`"t"."language"`), language, defaultLanguage)}${exactness} LIMIT 1`;
}

/**
 * The order of languages every lookup by slug follows (items' and terms'): the request language,
 * then the default language, then the others by name. An ORDER BY list over `column`.
 */
export function languageOrderSql(column: Prisma.Sql, language: Language, defaultLanguage: Language): Prisma.Sql {
  return Prisma.sql`CASE ${column} WHEN ${language} THEN 0 WHEN ${defaultLanguage} THEN 1 ELSE 2 END, ${column}`;
}

/** `column` is one of `keys` (a slug lookup's keys: never none, for nothing matches `""`). */
export function slugIn(column: Prisma.Sql, keys: string[]): Prisma.Sql {
  if (keys.length === 0) return Prisma.sql`1 = 0`;
  return keys.length === 1 ? Prisma.sql`${column} = ${keys[0]}` : Prisma.sql`${column} IN (${Prisma.join(keys)})`;
}
