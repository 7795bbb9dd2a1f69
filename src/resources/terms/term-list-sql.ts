import { Prisma } from "../../../generated/prisma/sqlite/client";
import { inList, likePatternContaining } from "../../db/row-writes";
import { slugLookupKeys } from "../../text/slug";
import { slugIn } from "../post-kernel/slug-sql";
import type { TermListQuery } from "./term-record";

/**
 * The statement of a page of terms: terms are listed through their text row in the request
 * language (aliased "x"), joined to the term (aliased "i"). One statement gives the page's ids in
 * order and the total (a window over the rows sorted anyway).
 */

function conditionsSql(query: TermListQuery): Prisma.Sql {
  const conditions = [Prisma.sql`"x"."language" = ${query.language}`, Prisma.sql`"i"."taxonomy" = ${query.taxonomy}`];
  if (query.hideEmpty) conditions.push(Prisma.sql`"i"."count" > 0`);
  if (query.includeIds) conditions.push(inList("i.id", query.includeIds));
  if (query.excludeIds) conditions.push(Prisma.sql`NOT ${inList("i.id", query.excludeIds)}`);
  if (query.onlyIds) conditions.push(inList("i.id", query.onlyIds));
  if (query.parentId !== undefined)
    conditions.push(
      query.parentId === 0 ? Prisma.sql`"i"."parentId" IS NULL` : Prisma.sql`"i"."parentId" = ${query.parentId}`,
    );
  if (query.eventId !== undefined)
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "EventTerm" "l" WHERE "l"."termId" = "i"."id" AND "l"."eventId" = ${query.eventId})`,
    );
  if (query.modified.after) conditions.push(Prisma.sql`"i"."modifiedAt" > ${query.modified.after}`);
  if (query.modified.before) conditions.push(Prisma.sql`"i"."modifiedAt" < ${query.modified.before}`);
  for (const word of query.searchWords)
    conditions.push(Prisma.sql`"x"."searchText" LIKE ${likePatternContaining(word)} ESCAPE '\\'`);
  // A slug names the term by its slug in the request language, or in the default one.
  if (query.slug !== undefined) {
    const keys = slugLookupKeys(query.slug);
    conditions.push(
      Prisma.sql`(${slugIn(Prisma.raw(`"x"."slug"`), keys)} OR EXISTS (SELECT 1 FROM "TermText" "d" WHERE "d"."termId" = "i"."id" AND "d"."language" = ${query.defaultLanguage} AND ${slugIn(Prisma.raw(`"d"."slug"`), keys)}))`,
    );
  }
  return Prisma.join(conditions, " AND ");
}

/** ORDER BY of a list: the asked column, ties by id in the same direction. */
function orderSql(query: TermListQuery): string {
  const dir = query.order === "desc" ? "DESC" : "ASC";
  const then = (column: string) => `${column} ${dir}, "x"."termId" ${dir}`;
  switch (query.orderBy) {
    case "id":
    case "term_id":
      return `"x"."termId" ${dir}`;
    case "slug":
      return then(`"x"."slugKey"`);
    case "count":
      return then(`"i"."count"`);
    case "modified":
      return then(`"i"."modifiedAt"`);
    case "parent":
      // Top-level terms (no parent) first going up, last going down, as WordPress sorts them.
      return `"i"."parentId" ${dir} ${dir === "ASC" ? "NULLS FIRST" : "NULLS LAST"}, "x"."termId" ${dir}`;
    case "none":
    case "include":
      return `"x"."termId" ASC`;
    case "name":
      return then(`"x"."sortKey"`);
  }
}

/** A page's term ids in order, each row with the list's total; `whole`: every row (to be ordered by the caller). */
export function termPageSql(query: TermListQuery, { whole = false } = {}): Prisma.Sql {
  const page = whole ? Prisma.empty : Prisma.sql` LIMIT ${query.limit} OFFSET ${query.offset}`;
  return Prisma.sql`SELECT "x"."termId" AS "id", COUNT(*) OVER () AS "total"
    FROM "TermText" "x" JOIN "Term" "i" ON "i"."id" = "x"."termId"
    WHERE ${conditionsSql(query)} ORDER BY ${Prisma.raw(orderSql(query))}${page}`;
}

/** The total of a list (asked for a page past the last one, which the page's statement cannot total). */
export function termCountSql(query: TermListQuery): Prisma.Sql {
  return Prisma.sql`SELECT COUNT(*) AS "total" FROM "TermText" "x" JOIN "Term" "i" ON "i"."id" = "x"."termId" WHERE ${conditionsSql(query)}`;
}
