import { Prisma } from "../../../generated/prisma/sqlite/client";
import { inList, likePatternContaining } from "../../db/row-writes";
import type { LinkedPostFilters, LinkedPostOrder } from "./linked-post-query";
import { visibleSql } from "./visibility-sql";

/**
 * The statements of a page of venues or organizers (the item aliased "i"): its ids in order, and
 * the total, sent through the driver (the records of the items not kept are read after, as an
 * event page's are). The names come from LinkedPostTables, never from a request.
 */

/** The tables a list statement names (see LinkedPostTables). */
export interface LinkedPostListTables {
  table: string;
  textTable: string;
  linkTable: string;
  key: string;
}

/** Event statuses that do not count for `has_events`. */
const NOT_COUNTED = ["draft", "pending", "trash"];

/** The conditions of a list, on the item aliased "i". */
function conditionsSql(tables: LinkedPostListTables, filters: LinkedPostFilters): Prisma.Sql {
  const texts = Prisma.raw(`"${tables.textTable}"`);
  const links = Prisma.raw(`"${tables.linkTable}"`);
  const key = Prisma.raw(`"${tables.key}"`);
  const linkedEvent = (condition: Prisma.Sql) =>
    Prisma.sql`EXISTS (SELECT 1 FROM ${links} "l" JOIN "Event" "e" ON "e"."id" = "l"."eventId" WHERE "l".${key} = "i"."id" AND ${condition})`;
  const conditions = [visibleSql("i", filters.visible)];
  const holding = (terms: string[], join: string) =>
    Prisma.join(
      terms.map((term) => Prisma.sql`"t"."searchText" LIKE ${likePatternContaining(term)} ESCAPE '\\'`),
      join,
    );
  const textOf = (condition: Prisma.Sql) =>
    Prisma.sql`EXISTS (SELECT 1 FROM ${texts} "t" WHERE "t".${key} = "i"."id" AND "t"."language" = ${filters.language} AND ${condition})`;
  if (filters.searchWords.length > 0) conditions.push(textOf(holding(filters.searchWords, " AND ")));
  if (filters.searchExcluded?.length)
    conditions.push(Prisma.sql`NOT ${textOf(Prisma.sql`(${holding(filters.searchExcluded, " OR ")})`)}`);
  if (filters.eventId !== undefined)
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM ${links} "l" WHERE "l".${key} = "i"."id" AND "l"."eventId" = ${filters.eventId})`,
    );
  if (filters.hasEvents) {
    const counted = linkedEvent(
      Prisma.sql`"e"."status" NOT IN (${Prisma.join(NOT_COUNTED)}) AND ${visibleSql("e", filters.hasEvents.visible)}`,
    );
    conditions.push(filters.hasEvents.value ? counted : Prisma.sql`NOT ${counted}`);
  }
  if (filters.upcoming)
    conditions.push(
      linkedEvent(
        Prisma.sql`"e"."startsAt" >= ${filters.upcoming.since} AND ${visibleSql("e", filters.upcoming.visible)}`,
      ),
    );
  if (filters.modified.after) conditions.push(Prisma.sql`"i"."modifiedAt" > ${filters.modified.after}`);
  if (filters.modified.before) conditions.push(Prisma.sql`"i"."modifiedAt" < ${filters.modified.before}`);
  if (filters.onlyIds) conditions.push(inList("i.id", filters.onlyIds));
  return Prisma.join(conditions, " AND ");
}

/**
 * A page's ids in `order`. The total is counted apart (linkedPostCountSql): counted in the same
 * statement, every item of the list would be read and sorted to give ten, where the status and
 * date index gives them in order.
 */
export function linkedPostPageSql(
  tables: LinkedPostListTables,
  filters: LinkedPostFilters,
  order: LinkedPostOrder,
  page: { offset: number; limit: number },
): Prisma.Sql {
  const direction = order.direction === "asc" ? "ASC" : "DESC";
  const orderBy =
    order.column === "id" ? `"i"."id" ${direction}` : `"i"."${order.column}" ${direction}, "i"."id" ${direction}`;
  return Prisma.sql`SELECT "i"."id" AS "id" FROM ${Prisma.raw(`"${tables.table}"`)} "i"
    WHERE ${conditionsSql(tables, filters)} ORDER BY ${Prisma.raw(orderBy)} LIMIT ${page.limit} OFFSET ${page.offset}`;
}

/** The total of a list. */
export function linkedPostCountSql(tables: LinkedPostListTables, filters: LinkedPostFilters): Prisma.Sql {
  return Prisma.sql`SELECT COUNT(*) AS "total" FROM ${Prisma.raw(`"${tables.table}"`)} "i" WHERE ${conditionsSql(tables, filters)}`;
}
