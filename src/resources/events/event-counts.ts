import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Database, Provider } from "../../db/database";
import type { EventFilters } from "./event-query";

const DAY_MS = 86_400_000;

/**
 * The totals of lists of events. A list filtered only by status (for everyone's events), the
 * hidden flag and a start/end window (the default list, and any `start_date`/`end_date` one) is
 * counted from "EventDayCount", which database triggers keep: whole days are read as one row per
 * day and status instead of one index entry per event, so the cost does not grow with the number
 * of events. Any other list is counted with COUNT(*) over its conditions.
 */
export async function countEvents(db: Database, query: Prisma.Sql): Promise<number> {
  const [row] = await db.direct.rows<{ total: number | bigint | string | null }>(query);
  return Number(row.total ?? 0);
}

export function countSql(list: { from: Prisma.Sql; where: Prisma.Sql }): Prisma.Sql {
  return Prisma.sql`SELECT COUNT(*) AS "total" FROM ${list.from} ${list.where}`;
}

function onlyDateWindow(filters: EventFilters): filters is EventFilters & { window: { startsFrom: Date; endsUntil: Date } } {
  const { window } = filters;
  return (
    window.startsFrom !== undefined && window.endsUntil !== undefined &&
    window.startsBefore === undefined && window.startsAfter === undefined && window.endsBefore === undefined && window.endsAfter === undefined &&
    filters.visible.length > 0 && filters.visible.every((condition) => condition.authorId === undefined) &&
    filters.searchWords.length === 0 && filters.categoryIds === undefined && filters.tagIds === undefined && filters.venueIds === undefined &&
    filters.nearVenueIds === undefined && filters.organizerIds === undefined && filters.featured === undefined && filters.ticketed === undefined &&
    filters.parentId === undefined && filters.includeIds === undefined && filters.onlyIds === undefined && filters.oncePublished === undefined &&
    filters.modified.after === undefined && filters.modified.before === undefined
  );
}

/**
 * Events starting at or after S and ending at or before E are those starting in [S, E], less
 * those of them that end after E. The first are the counts of the whole days strictly between
 * S's day and E's day, plus the events of those two days counted one by one. The second can only
 * have started within the longest duration before E ("EventStat"), a short stretch of the index.
 */
export function dayCountSql(provider: Provider, filters: EventFilters): Prisma.Sql | null {
  if (!onlyDateWindow(filters)) return null;
  const { startsFrom: from, endsUntil: until } = filters.window;
  const firstDay = Math.floor(from.getTime() / DAY_MS);
  const lastDay = Math.floor(until.getTime() / DAY_MS);
  if (lastDay - firstDay < 2) return null;
  const statuses = Prisma.join(filters.visible.map((condition) => condition.status));
  const listed = Prisma.sql`"status" IN (${statuses}) AND "hideFromListings" = ${false}`;
  const firstDayEnd = new Date((firstDay + 1) * DAY_MS);
  const lastDayStart = new Date(lastDay * DAY_MS);
  return Prisma.sql`SELECT
    (SELECT COALESCE(SUM("count"), 0) FROM "EventDayCount" WHERE "day" > ${firstDay} AND "day" < ${lastDay} AND "status" IN (${statuses}) AND "hidden" = ${false})
    + (SELECT COUNT(*) FROM "Event" WHERE ${listed} AND "startsAt" >= ${from} AND "startsAt" < ${firstDayEnd})
    + (SELECT COUNT(*) FROM "Event" WHERE ${listed} AND "startsAt" >= ${lastDayStart} AND "startsAt" <= ${until})
    - (SELECT COUNT(*) FROM "Event" WHERE ${listed} AND "startsAt" >= ${laterOf(provider, from, longestBefore(provider, until))} AND "startsAt" <= ${until}
        AND "endsAt" > ${until}) AS "total"`;
}

/** The instant the longest event would have started to end at `instant`, as the dialect stores instants. */
function longestBefore(provider: Provider, instant: Date): Prisma.Sql {
  const longest = Prisma.sql`(SELECT "maxDurationSeconds" FROM "EventStat" WHERE "id" = 1)`;
  if (provider === "postgresql") return Prisma.sql`(${instant}::timestamp - make_interval(secs => ${longest}))`;
  // SQLite keeps instants as ISO text in Prisma's format; strftime writes the same.
  return Prisma.sql`strftime('%Y-%m-%dT%H:%M:%f+00:00', ${instant.getTime() / 1000} - ${longest}, 'unixepoch')`;
}

/**
 * The later of two instants, as one expression: the range's only lower bound. Given as two
 * conditions on the column, SQLite bounds its index scan by the first and tests the second on every
 * entry: the whole window (40,000 entries at 100,000 events, 35 ms) instead of the last 3 days.
 */
function laterOf(provider: Provider, instant: Date, other: Prisma.Sql): Prisma.Sql {
  return provider === "postgresql" ? Prisma.sql`GREATEST(${instant}::timestamp, ${other})` : Prisma.sql`max(${instant}, ${other})`;
}
