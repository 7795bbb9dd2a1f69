import { Prisma } from "../../../generated/prisma/sqlite/client";
import { inList } from "../../db/row-writes";
import { visibleSql } from "../post-kernel/visibility-sql";
import type { Provider } from "../../db/database";
import type { Language } from "../../i18n/languages";
import { indexedWhole, searchPrefixes } from "../../text/search-tokens";
import type { EditableCondition, StatusCondition } from "../../auth/post-permissions";
import type { QueryOf } from "../../http/operation-types";
import type { ModifiedWindow } from "../../sync/modified-window";
import type { EventWindow } from "./event-dates";
import type { FallbackLanguages } from "./event-record";

/**
 * The statements of event lists: which events a list's filters select (FROM and WHERE, the event
 * aliased "e"), in which order, how many there are (COUNT or the day counts), and where a search
 * starts. Built with Prisma.sql fragments and sent straight through the driver by the event
 * repository (db.direct): these are the hot reads, where Prisma's per-statement cost outweighs
 * the statement's own.
 */

/** The filters of `GET /events`, resolved (ids, instants); combined with AND. */
export interface EventFilters {
  language: Language;
  /** Which events the caller may see (and asked for), as an OR-list. */
  visible: StatusCondition[];
  window: EventWindow;
  searchWords: string[];
  categoryIds?: number[];
  tagIds?: number[];
  /** Events at any of these venues. */
  venueIds?: number[];
  /** Events at any of these venues: those within the `geoloc` circle. */
  nearVenueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  ticketed?: boolean;
  parentId?: number;
  includeIds?: number[];
  /** Events last written in this window (`modified_after`, `modified_before`). */
  modified: ModifiedWindow;
  /** Only these events (the changed ones, in a sync). */
  onlyIds?: number[];
  /** Only events that were published at some time (the sync log says so): the cancellations of a feed. */
  oncePublished?: boolean;
  /**
   * What a search may find of password-protected events: those the request's password opens (its
   * stored form), and those the caller may edit. WordPress keeps protected posts out of visitors'
   * searches: their text is what the password protects.
   */
  protectedOpen: { passwordHash: string | null; editable: EditableCondition };
}

export type EventOrderBy = NonNullable<QueryOf<"listEvents">["orderby"]>;

/** How a page is ordered: by `key` (an SQL expression), ties broken by id, in `direction`. */
export interface EventOrderSql {
  /** What `key` needs joined. */
  join: Prisma.Sql;
  key: string;
  direction: "ASC" | "DESC";
}

export interface EventPageSql {
  /** The language the page is shown in: its records hold the texts that language shows only. */
  shownIn: FallbackLanguages;
  from: Prisma.Sql;
  where: Prisma.Sql;
  order: EventOrderSql;
}

const NOTHING = Prisma.sql`1 = 0`;

/**
 * Events linked to any of `ids`. The first link filter of a list (`driving`) is an IN list, from
 * which the planners can start: the filter's links, each event then looked up by id. The others
 * are EXISTS, tested on each event so found. SQLite starts from the first IN list it is given and
 * reads every other one in full, so the filters come most selective first (see eventListSql).
 * At 1,000,000 events, a venue (42 events) with a category (46,255): EXISTS everywhere walked the
 * date window, 1.6 s; IN everywhere read the category's links, 80 ms; this, 0.2 ms.
 */
function linkedTo(table: string, key: string, ids: number[], driving: boolean): Prisma.Sql {
  if (ids.length === 0) return NOTHING;
  const links = Prisma.raw(`"${table}" "x"`);
  const column = Prisma.raw(`"x"."${key}"`);
  return driving
    ? Prisma.sql`"e"."id" IN (SELECT "x"."eventId" FROM ${links} WHERE ${column} IN (${Prisma.join(ids)}))`
    : Prisma.sql`EXISTS (SELECT 1 FROM ${links} WHERE "x"."eventId" = "e"."id" AND ${column} IN (${Prisma.join(ids)}))`;
}

/** Events without a password, or whose password the request gives, or that the caller may edit. */
function protectedOpenSql({ passwordHash, editable }: EventFilters["protectedOpen"]): Prisma.Sql {
  if ("all" in editable) return Prisma.sql`1 = 1`;
  const open = [Prisma.sql`"e"."passwordHash" IS NULL`];
  if (passwordHash !== null) open.push(Prisma.sql`"e"."passwordHash" = ${passwordHash}`);
  if ("authorId" in editable) {
    open.push(
      editable.unpublishedOnly
        ? Prisma.sql`("e"."authorId" = ${editable.authorId} AND "e"."status" NOT IN ('publish', 'future'))`
        : Prisma.sql`"e"."authorId" = ${editable.authorId}`,
    );
  }
  return Prisma.sql`(${Prisma.join(open, " OR ")})`;
}

/** The rows (FROM) and conditions (WHERE) of a list of events, the event table aliased "e". */
export function eventListSql(filters: EventFilters, provider: Provider): { from: Prisma.Sql; where: Prisma.Sql } {
  const { window } = filters;
  const conditions: Prisma.Sql[] = [];
  conditions.push(visibleSql("e", filters.visible));
  conditions.push(Prisma.sql`"e"."hideFromListings" = ${false}`);
  if (window.startsFrom) conditions.push(Prisma.sql`"e"."startsAt" >= ${window.startsFrom}`);
  if (window.startsBefore) conditions.push(Prisma.sql`"e"."startsAt" < ${window.startsBefore}`);
  if (window.startsAfter) conditions.push(Prisma.sql`"e"."startsAt" > ${window.startsAfter}`);
  if (window.endsUntil) conditions.push(Prisma.sql`"e"."endsAt" <= ${window.endsUntil}`);
  if (window.endsBefore) conditions.push(Prisma.sql`"e"."endsAt" < ${window.endsBefore}`);
  if (window.endsAfter) conditions.push(Prisma.sql`"e"."endsAt" > ${window.endsAfter}`);
  const searching = filters.searchWords.length > 0;
  if (searching) {
    const recheck = searchRecheckSql(filters.language, filters.searchWords);
    if (recheck) conditions.push(recheck);
    conditions.push(protectedOpenSql(filters.protectedOpen));
  }
  // Most selective first, as calendars go: a venue or an organizer has few events, a tag more,
  // a category the most. A search drives the list itself (FROM), so no link filter does.
  const links: Array<[string, string, number[] | undefined]> = [
    ["EventVenue", "venueId", filters.venueIds],
    ["EventOrganizer", "organizerId", filters.organizerIds],
    ["EventVenue", "venueId", filters.nearVenueIds],
    ["EventTerm", "termId", filters.tagIds],
    ["EventTerm", "termId", filters.categoryIds],
  ];
  let driving = !searching;
  for (const [table, key, ids] of links) {
    if (!ids) continue;
    conditions.push(linkedTo(table, key, ids, driving));
    driving = false;
  }
  if (filters.featured !== undefined) conditions.push(Prisma.sql`"e"."featured" = ${filters.featured}`);
  if (filters.ticketed !== undefined) conditions.push(Prisma.sql`"e"."ticketed" = ${filters.ticketed}`);
  if (filters.parentId !== undefined) conditions.push(Prisma.sql`"e"."parentId" = ${filters.parentId}`);
  if (filters.includeIds) conditions.push(inList("e.id", filters.includeIds));
  if (filters.onlyIds) conditions.push(inList("e.id", filters.onlyIds));
  if (filters.oncePublished) {
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "SyncChange" "s" WHERE "s"."resource" = 'events' AND "s"."itemId" = "e"."id" AND "s"."everPublic" = ${true})`,
    );
  }
  if (filters.modified.after) conditions.push(Prisma.sql`"e"."modifiedAt" > ${filters.modified.after}`);
  if (filters.modified.before) conditions.push(Prisma.sql`"e"."modifiedAt" < ${filters.modified.before}`);
  return {
    from: searching ? searchSourceSql(provider, filters.language, filters.searchWords) : Prisma.sql`"Event" "e"`,
    where: Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`,
  };
}

const ORDER_COLUMNS: Record<Exclude<EventOrderBy, "title">, string> = {
  start_date: `"e"."startsAt"`,
  end_date: `"e"."endsAt"`,
  date: `"e"."postDate"`,
  modified: `"e"."modifiedAt"`,
  id: `"e"."id"`,
};

/** How a list is ordered; titles in the request language. */
export function eventOrderSql(orderBy: EventOrderBy, direction: "asc" | "desc", language: Language): EventOrderSql {
  const dir = direction === "desc" ? "DESC" : "ASC";
  if (orderBy === "title") {
    return {
      join: Prisma.sql`LEFT JOIN "EventText" "o" ON "o"."eventId" = "e"."id" AND "o"."language" = ${language}`,
      key: `"o"."sortKey"`,
      direction: dir,
    };
  }
  return { join: Prisma.empty, key: ORDER_COLUMNS[orderBy], direction: dir };
}

const DAY_MS = 86_400_000;

export function countSql(list: { from: Prisma.Sql; where: Prisma.Sql }): Prisma.Sql {
  return Prisma.sql`SELECT COUNT(*) AS "total" FROM ${list.from} ${list.where}`;
}

function onlyDateWindow(
  filters: EventFilters,
): filters is EventFilters & { window: { startsFrom: Date; endsUntil: Date } } {
  const { window } = filters;
  return (
    window.startsFrom !== undefined &&
    window.endsUntil !== undefined &&
    window.startsBefore === undefined &&
    window.startsAfter === undefined &&
    window.endsBefore === undefined &&
    window.endsAfter === undefined &&
    filters.visible.length > 0 &&
    filters.visible.every((condition) => condition.authorId === undefined) &&
    filters.searchWords.length === 0 &&
    filters.categoryIds === undefined &&
    filters.tagIds === undefined &&
    filters.venueIds === undefined &&
    filters.nearVenueIds === undefined &&
    filters.organizerIds === undefined &&
    filters.featured === undefined &&
    filters.ticketed === undefined &&
    filters.parentId === undefined &&
    filters.includeIds === undefined &&
    filters.onlyIds === undefined &&
    filters.oncePublished === undefined &&
    filters.modified.after === undefined &&
    filters.modified.before === undefined
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
  return provider === "postgresql"
    ? Prisma.sql`GREATEST(${instant}::timestamp, ${other})`
    : Prisma.sql`max(${instant}, ${other})`;
}

/**
 * The rows a search starts from: the ids (column "id" of alias "m") of the events whose document
 * has, for every word, one of its token prefixes in `language`, joined to the event (alias "e"). On SQLite, CROSS
 * JOIN keeps that order: its planner would otherwise walk the date index and probe the search
 * for each event, which is slower by orders of magnitude. PostgreSQL's planner made that choice
 * too (1 s for two words at 100k, against 20 ms), or, the matches found first, joined them to the
 * events by comparing every pair (63 s for "festival"): each OFFSET 0 keeps its subquery as it is
 * written, so the matches are found first and each is looked up by id.
 */
export function searchSourceSql(provider: Provider, language: Language, words: string[]): Prisma.Sql {
  const alternatives = words.map((word) => searchPrefixes(language, word));
  if (provider === "postgresql") {
    const query = alternatives.map((prefixes) => `(${prefixes.map((p) => `'${p}':*`).join(" | ")})`).join(" & ");
    return Prisma.sql`(SELECT "eventId" AS "id" FROM "EventSearch" WHERE "tokens" @@ ${query}::tsquery OFFSET 0) "m"
      CROSS JOIN LATERAL (SELECT * FROM "Event" "x" WHERE "x"."id" = "m"."id" OFFSET 0) "e"`;
  }
  const match = alternatives.map((prefixes) => `(${prefixes.map((p) => `"${p}"*`).join(" OR ")})`).join(" AND ");
  return Prisma.sql`(SELECT "rowid" AS "id" FROM "EventSearch" WHERE "EventSearch" MATCH ${match}) "m" CROSS JOIN "Event" "e" ON "e"."id" = "m"."id"`;
}

/**
 * What the index cannot tell of a search: that its text in `language` has the words longer than
 * the index's tokens (which it matched on their first characters). Null when it can tell it all.
 */
export function searchRecheckSql(language: Language, words: string[]): Prisma.Sql | null {
  const long = words.filter((word) => !indexedWhole(word));
  if (long.length === 0) return null;
  const likes = long.map((word) => Prisma.sql`"s"."searchText" LIKE ${`%${word}%`}`);
  return Prisma.sql`EXISTS (SELECT 1 FROM "EventText" "s" WHERE "s"."eventId" = "e"."id" AND "s"."language" = ${language} AND ${Prisma.join(likes, " AND ")})`;
}
