import { Prisma } from "../../../generated/prisma/sqlite/client";
import { inList } from "../../db/row-writes";
import { visibleSql } from "../post-kernel/visibility-sql";
import type { Provider } from "../../db/database";
import type { Language } from "../../i18n/languages";
import { indexedWhole, marksWith, searchPrefixes } from "../../text/search-tokens";
import { KEY_ID_MASK, LAST_KEY_MINUTE, keyMinute, listedKey } from "./event-search-sql";
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
  /** A search's words, that the index looks for (see searchOf in search-text.ts). */
  searchWords: string[];
  /** A search's phrases, checked on the text as written; and the terms the text must not hold. */
  searchPhrases?: string[];
  searchExcluded?: string[];
  /**
   * SQLite: for each search word, the index's terms its token prefixes begin, when there are few
   * enough to be looked up one by one (searchTermsSql); null for a word with more. Unset: prefixes.
   */
  searchTerms?: Array<string[] | null>;
  categoryIds?: number[];
  tagIds?: number[];
  /** Events at any of these venues. */
  venueIds?: number[];
  /** Events at any of these venues: those within the `geoloc` circle. */
  nearVenueIds?: number[];
  /** Events at a venue that has coordinates (`geoloc` without a point, as Events Calendar Pro reads it). */
  atLocatedVenue?: boolean;
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

/** How a page is ordered: by `keys` (SQL expressions with their directions), ties broken by id, in `direction`. */
export interface EventOrderSql {
  /** What `keys` need joined. */
  join: Prisma.Sql;
  /** What to order by, each with its direction, before the id (in `direction`) breaks ties. */
  keys: Prisma.Sql;
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

/** The event whose texts the event "e" shows: its own, or its series' (an occurrence that follows it). */
const TEXT_OWNER = Prisma.raw(`COALESCE("e"."textOwnerId", "e"."id")`);

/** Whether a list is a search (of words, phrases or terms to leave out). */
export function isSearch(filters: EventFilters): boolean {
  return filters.searchWords.length + (filters.searchPhrases?.length ?? 0) + (filters.searchExcluded?.length ?? 0) > 0;
}

/**
 * A search's terms to leave out: events whose text in the list's language holds one of them
 * (`-music`), as WordPress's `NOT LIKE` on each searched field.
 */
function searchExclusionSql(language: Language, excluded: string[]): Prisma.Sql {
  const likes = excluded.map((term) => Prisma.sql`"s"."searchText" LIKE ${`%${term}%`}`);
  return Prisma.sql`NOT EXISTS (SELECT 1 FROM "EventText" "s" WHERE "s"."eventId" = ${TEXT_OWNER} AND "s"."language" = ${language} AND (${Prisma.join(likes, " OR ")}))`;
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
  if (isSearch(filters)) {
    const recheck = searchRecheckSql(filters.language, filters.searchWords, filters.searchPhrases);
    if (recheck) conditions.push(recheck);
    if (filters.searchExcluded?.length) conditions.push(searchExclusionSql(filters.language, filters.searchExcluded));
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
  if (filters.atLocatedVenue) {
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "EventVenue" "x" JOIN "Venue" "v" ON "v"."id" = "x"."venueId" WHERE "x"."eventId" = "e"."id" AND "v"."geoLat" IS NOT NULL AND "v"."geoLng" IS NOT NULL)`,
    );
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
    from: searching ? searchSourceSql(provider, filters) : Prisma.sql`"Event" "e"`,
    where: Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`,
  };
}

const ORDER_COLUMNS: Record<Exclude<EventOrderBy, "title" | "relevance">, string> = {
  start_date: `"e"."startsAt"`,
  end_date: `"e"."endsAt"`,
  date: `"e"."postDate"`,
  modified: `"e"."modifiedAt"`,
  id: `"e"."id"`,
};

/**
 * How a list is ordered; titles in the request language (the default language's where an event
 * has none). By relevance (a search's), as WordPress ranks its searches: first the events whose
 * title holds the whole search as written, then every word of it, then one word, then the rest,
 * each group in start order. Titles are compared as normalized (the sort key, as search texts are,
 * so that a word is found in a title as the search finds it).
 */
export function eventOrderSql(
  orderBy: EventOrderBy,
  direction: "asc" | "desc",
  shownIn: { language: Language; defaultLanguage: Language },
  searchWords: string[] = [],
): EventOrderSql {
  const keyword = direction === "desc" ? "DESC" : "ASC";
  const dir = Prisma.raw(keyword);
  const titles = Prisma.sql`LEFT JOIN "EventText" "o" ON "o"."eventId" = ${TEXT_OWNER} AND "o"."language" = ${shownIn.language}`;
  if (orderBy === "title") return { join: titles, keys: Prisma.sql`"o"."sortKey" ${dir}`, direction: keyword };
  if (orderBy === "relevance" && searchWords.length > 0) {
    const title = Prisma.sql`COALESCE("o"."sortKey", "d"."sortKey", '')`;
    const holds = (text: string) => Prisma.sql`${title} LIKE ${`%${text}%`}`;
    const eachWord = searchWords.map(holds);
    const tier = Prisma.sql`CASE WHEN ${holds(searchWords.join(" "))} THEN 0
      WHEN ${Prisma.join(eachWord, " AND ")} THEN 1
      WHEN ${Prisma.join(eachWord, " OR ")} THEN 2 ELSE 3 END`;
    return {
      join: Prisma.sql`${titles} LEFT JOIN "EventText" "d" ON "d"."eventId" = ${TEXT_OWNER} AND "d"."language" = ${shownIn.defaultLanguage}`,
      keys: Prisma.sql`${tier} ASC, "e"."startsAt" ${dir}`,
      direction: keyword,
    };
  }
  // Relevance without words cannot be asked (eventFiltersOf refuses it): the list order, then.
  const column = orderBy === "relevance" ? ORDER_COLUMNS.start_date : ORDER_COLUMNS[orderBy];
  return { join: Prisma.empty, keys: Prisma.sql`${Prisma.raw(column)} ${dir}`, direction: keyword };
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
    !isSearch(filters) &&
    filters.categoryIds === undefined &&
    filters.tagIds === undefined &&
    filters.venueIds === undefined &&
    filters.nearVenueIds === undefined &&
    filters.atLocatedVenue === undefined &&
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
export function searchSourceSql(provider: Provider, filters: EventFilters): Prisma.Sql {
  // A document found stands for its event and for the occurrences that show its texts.
  if (provider === "postgresql") {
    return Prisma.sql`(SELECT "eventId" AS "id" FROM "EventSearch" WHERE "tokens" @@ ${tsQuery(filters)}::tsquery OFFSET 0) "m"
      CROSS JOIN LATERAL (SELECT * FROM "Event" "x" WHERE "x"."id" = "m"."id"
        UNION ALL SELECT * FROM "Event" "x" WHERE "x"."textOwnerId" = "m"."id" OFFSET 0) "e"`;
  }
  const found = Prisma.sql`SELECT "rowid" AS "k" FROM "EventSearch" WHERE "EventSearch" MATCH ${searchMatch(filters)}`;
  return Prisma.sql`(SELECT "k" & ${KEY_ID_MASK} AS "id" FROM (${found}) WHERE "k" >= 0
      UNION ALL SELECT "x"."id" FROM (${found}) "s" CROSS JOIN "Event" "x" ON "x"."id" = -"s"."k" OR "x"."textOwnerId" = -"s"."k"
      WHERE "s"."k" < 0) "m"
    CROSS JOIN "Event" "e" ON "e"."id" = "m"."id"`;
}

/** PostgreSQL: the text search query of the documents with, for every word, one of its token prefixes in the list's language. */
function tsQuery({ language, searchWords }: EventFilters): string {
  return searchWords
    .map(
      (word) =>
        `(${searchPrefixes(language, word)
          .map((prefix) => `'${prefix}':*`)
          .join(" | ")})`,
    )
    .join(" & ");
}

/**
 * SQLite: the FTS5 query of the documents with, for every word, one of its token prefixes in the
 * list's language: as the terms they begin, where the list knows them, else as prefixes. FTS5
 * reads a term's documents as it goes, seeking by rowid, while it gathers every document of every
 * term a prefix begins before it gives the first one: a word of a few terms, looked up as terms,
 * costs a tenth as much to count and next to nothing to page through.
 */
function searchMatch({ language, searchWords, searchTerms }: EventFilters): string {
  return searchWords
    .map((word, i) => {
      const terms = searchTerms?.[i];
      return terms && terms.length > 0
        ? `(${terms.map((term) => `"${term}"`).join(" OR ")})`
        : `(${searchPrefixes(language, word)
            .map((prefix) => `"${prefix}"*`)
            .join(" OR ")})`;
    })
    .join(" AND ");
}

/** The most terms of one prefix a search looks up one by one (see searchMatch). */
export const TERMS_PER_PREFIX = 64;

/**
 * SQLite: the index's terms that the token prefixes of each word begin, at most TERMS_PER_PREFIX
 * + 1 of each prefix (one more says there are too many), with the positions of the word and of
 * the prefix among the word's.
 * Tokens are a mark and hexadecimal digits, so the terms a prefix begins sort before the prefix
 * followed by "g". "EventSearchVocab" is FTS5's view of the index's terms (the event_search_by_start migration).
 */
export function searchTermsSql(language: Language, words: string[]): Prisma.Sql {
  const lookups = words.flatMap((word, i) =>
    searchPrefixes(language, word).map(
      (prefix, j) =>
        Prisma.sql`SELECT ${i} AS "word", ${j} AS "prefix", "term" FROM (SELECT "term" FROM "EventSearchVocab" WHERE "term" >= ${prefix} AND "term" < ${`${prefix}g`} LIMIT ${TERMS_PER_PREFIX + 1})`,
    ),
  );
  return Prisma.join(lookups, " UNION ALL ", "", "");
}

/**
 * What the index cannot tell of a search: that its text in `language` has the words longer than
 * the index's tokens (which it matched on their first characters), and its phrases as written
 * (the index finds their words anywhere). Null when it can tell it all.
 */
export function searchRecheckSql(language: Language, words: string[], phrases: string[] = []): Prisma.Sql | null {
  const long = [...words.filter((word) => !indexedWhole(word)), ...phrases];
  if (long.length === 0) return null;
  const likes = long.map((word) => Prisma.sql`"s"."searchText" LIKE ${`%${word}%`}`);
  return Prisma.sql`EXISTS (SELECT 1 FROM "EventText" "s" WHERE "s"."eventId" = ${TEXT_OWNER} AND "s"."language" = ${language} AND ${Prisma.join(likes, " AND ")})`;
}

/** The statements of a search everyone may make, answered by the index (see publicSearchSql). */
export interface PublicSearchSql {
  /** The ids of a page, in order; with `totalInPage`, each row has the total too ("total"). */
  page(offset: number, limit: number): Prisma.Sql;
  totalInPage: boolean;
  /** How many events the search finds. */
  count: Prisma.Sql;
}

/**
 * A search everyone may make (published events only, no other filter than the date window), in
 * start date order, answered by the index without looking up every match's event. Null for any
 * other list, which goes the general way.
 */
export function publicSearchSql(
  provider: Provider,
  filters: EventFilters,
  orderBy: EventOrderBy,
  direction: "asc" | "desc",
): PublicSearchSql | null {
  if (orderBy !== "start_date" || !publicSearchInWindow(filters)) return null;
  return provider === "postgresql" ? postgresPublicSearch(filters, direction) : sqlitePublicSearch(filters, direction);
}

type PublicSearch = EventFilters & { window: { startsFrom: Date; endsUntil: Date } };

/**
 * PostgreSQL: the words of events' texts, each under the mark of the languages whose text holds
 * it, with its events' start and end, in start order ("EventSearchWord", the event_search_words
 * migration); and the pieces of every word ("EventSearchWordPart"), by which a search word
 * becomes the words that contain it. A word's events in the window are read from its index entries
 * alone, in date order, counted there: no event, and no document, is read but those of the page.
 * Reading each match's GIN document row to learn its window took seconds at 1,000,000 events
 * (issue 46). A word found in many events' texts costs what it finds: an index entry each.
 */
function postgresPublicSearch(filters: PublicSearch, direction: "asc" | "desc"): PublicSearchSql {
  const { startsFrom: from, endsUntil: until } = filters.window;
  const dir = Prisma.raw(direction === "asc" ? "ASC" : "DESC");
  const listedInWindow = Prisma.sql`"listed" AND "startsAt" >= ${from} AND "endsAt" <= ${until}`;
  const termsOf = (word: string) =>
    Prisma.sql`ARRAY(SELECT "mark" || "p"."word" FROM "EventSearchWordPart" "p" CROSS JOIN unnest(${marksWith(filters.language)}::text[]) AS "mark"
      WHERE "p"."part" >= ${word} AND "p"."part" < ${`${word}\u{10FFFF}`})`;
  // A series' words are apart ("series"): they find the series, whose events in the window (the
  // series and the occurrences that show its texts) the events' index gives.
  const seriesFound = Prisma.join(
    filters.searchWords.map(
      (word) => Prisma.sql`SELECT "eventId" FROM "EventSearchWord" WHERE "term" = ANY(${termsOf(word)}) AND "series"`,
    ),
    " INTERSECT ",
  );
  const seriesEvents = Prisma.sql`SELECT "e"."id" AS "eventId", "e"."startsAt" FROM (${seriesFound}) "f"
    CROSS JOIN LATERAL (SELECT "id", "startsAt" FROM "Event" "x" WHERE ("x"."id" = "f"."eventId" OR "x"."textOwnerId" = "f"."eventId")
      AND ${listedEventSql("x")} AND "x"."startsAt" >= ${from} AND "x"."endsAt" <= ${until}) "e"`;
  if (filters.searchWords.length === 1) {
    // One word: a page is the first of each of its terms' events in order (an event of the page
    // is among the first offset + limit of any term that finds it), counted apart.
    const terms = termsOf(filters.searchWords[0]);
    return {
      page: (offset, limit) => Prisma.sql`SELECT DISTINCT "m"."eventId" AS "id", "m"."startsAt"
        FROM (SELECT "m"."eventId", "m"."startsAt" FROM unnest(${terms}) AS "t"("term") CROSS JOIN LATERAL (SELECT "eventId", "startsAt" FROM "EventSearchWord"
          WHERE "term" = "t"."term" AND ${listedInWindow} ORDER BY "startsAt" ${dir}, "eventId" ${dir} LIMIT ${offset + limit}) "m"
          UNION ALL (${seriesEvents} ORDER BY "e"."startsAt" ${dir}, "e"."id" ${dir} LIMIT ${offset + limit})) "m"
        ORDER BY "m"."startsAt" ${dir}, "m"."eventId" ${dir} LIMIT ${limit} OFFSET ${offset}`,
      totalInPage: false,
      count: Prisma.sql`SELECT (SELECT COUNT(DISTINCT "eventId") FROM "EventSearchWord" WHERE "term" = ANY(${terms}) AND ${listedInWindow})
        + (SELECT COUNT(*) FROM (${seriesEvents}) "s") AS "total"`,
    };
  }
  const eventsWith = (word: string) =>
    Prisma.sql`SELECT "eventId", "startsAt" FROM "EventSearchWord" WHERE "term" = ANY(${termsOf(word)}) AND ${listedInWindow}`;
  // INTERSECT keeps each event once, whichever of a word's terms found it.
  const found = Prisma.sql`FROM (${Prisma.join(filters.searchWords.map(eventsWith), " INTERSECT ")} UNION ALL ${seriesEvents}) "m"`;
  return {
    page: (offset, limit) => Prisma.sql`SELECT "m"."eventId" AS "id", COUNT(*) OVER () AS "total" ${found}
      ORDER BY "m"."startsAt" ${dir}, "m"."eventId" ${dir} LIMIT ${limit} OFFSET ${offset}`,
    totalInPage: true,
    count: Prisma.sql`SELECT COUNT(*) AS "total" ${found}`,
  };
}

/**
 * SQLite: the index's keys (see event-search-sql.ts) read its documents in date order, within the
 * window, listed events only, so that a page reads the matches it shows (and those of the last
 * minute it reaches, which the key orders by id, not by second) instead of sorting every match,
 * and the total is counted from the index, every event looked up only where the window's edges
 * cut through: in the first minute, and among those that start late enough to end after the
 * window (within the longest duration, "EventStat"). Null past the keys' last minute.
 */
function sqlitePublicSearch(filters: PublicSearch, direction: "asc" | "desc"): PublicSearchSql | null {
  const { startsFrom: from, endsUntil: until } = filters.window;
  const [first, last] = [keyMinute(from), keyMinute(until)];
  if (first < 0 || last >= LAST_KEY_MINUTE) return null;
  const match = searchMatch(filters);
  const [lo, hi] = [listedKey(first), listedKey(last + 1)];
  /** The documents that match, keyed from `lowest` to before `beyond`, as "m"."k"; and with their events, "e". */
  const documents = (lowest: Prisma.Sql | bigint, beyond: Prisma.Sql | bigint) =>
    Prisma.sql`(SELECT "rowid" AS "k" FROM "EventSearch" WHERE "EventSearch" MATCH ${match} AND "rowid" >= ${lowest} AND "rowid" < ${beyond}) "m"`;
  const matches = (lowest: Prisma.Sql | bigint, beyond: Prisma.Sql | bigint) =>
    Prisma.sql`${documents(lowest, beyond)} CROSS JOIN "Event" "e" ON "e"."id" = "m"."k" & ${KEY_ID_MASK}`;
  const inWindow = Prisma.sql`"e"."startsAt" >= ${from} AND "e"."endsAt" <= ${until}`;
  // Ascending, the page is among the first offset + limit matches and the rest of the last one's
  // minute ("c"); descending, among the last ones and the rest of the first one's minute.
  const ascending = direction === "asc";
  const dir = Prisma.raw(ascending ? "ASC" : "DESC");
  const candidates = ascending
    ? matches(lo, Prisma.sql`((SELECT max("k") FROM "c") >> 31) + 1 << 31`)
    : matches(Prisma.sql`(SELECT min("k") FROM "c") >> 31 << 31`, hi);
  const page = (offset: number, limit: number) => Prisma.sql`WITH "c" AS (
      SELECT "m"."k" AS "k" FROM ${matches(lo, hi)} WHERE ${inWindow} ORDER BY "m"."k" ${dir} LIMIT ${offset + limit})
    SELECT "e"."id" AS "id" FROM ${candidates} WHERE ${inWindow}
    ORDER BY "e"."startsAt" ${dir}, "e"."id" ${dir} LIMIT ${limit} OFFSET ${offset}`;
  // An event of a minute before `last` less the longest duration (in minutes, rounded up) ends before `until`.
  const longest = Prisma.sql`(SELECT ("maxDurationSeconds" + 59) / 60 FROM "EventStat" WHERE "id" = 1)`;
  const certain = Prisma.sql`"m"."k" >= ${listedKey(first + 1)} AND "m"."k" < (${last} - ${longest}) << 31`;
  const standaloneCount = Prisma.sql`SELECT COALESCE(SUM(CASE WHEN ${certain} THEN 1
      ELSE (SELECT COUNT(*) FROM "Event" "e" WHERE "e"."id" = "m"."k" & ${KEY_ID_MASK} AND ${inWindow}) END), 0)
    FROM ${documents(lo, hi)}`;
  // A series' document (under -id) finds the series, whose events in the window (the series and
  // the occurrences that show its texts) the events' index gives.
  const seriesEvents = Prisma.sql`SELECT "e"."id", "e"."startsAt"
    FROM (SELECT -"rowid" AS "owner" FROM "EventSearch" WHERE "EventSearch" MATCH ${match} AND "rowid" < 0) "f"
    CROSS JOIN "Event" "e" ON "e"."id" = "f"."owner" OR "e"."textOwnerId" = "f"."owner"
    WHERE ${listedEventSql("e")} AND ${inWindow}`;
  return {
    page: (offset, limit) => Prisma.sql`SELECT "id" FROM (
        SELECT "e"."id", "e"."startsAt" FROM "Event" "e" WHERE "e"."id" IN (${page(0, offset + limit)})
        UNION ALL SELECT * FROM (${seriesEvents} ORDER BY "e"."startsAt" ${dir}, "e"."id" ${dir} LIMIT ${offset + limit}))
      ORDER BY "startsAt" ${dir}, "id" ${dir} LIMIT ${limit} OFFSET ${offset}`,
    totalInPage: false,
    count: Prisma.sql`SELECT (${standaloneCount}) + (SELECT COUNT(*) FROM (${seriesEvents})) AS "total"`,
  };
}

/** Whether everyone's lists show the event aliased `alias`: published, not hidden, no password. */
function listedEventSql(alias: string): Prisma.Sql {
  const e = Prisma.raw(`"${alias}"`);
  return Prisma.sql`${e}."status" = 'publish' AND ${e}."hideFromListings" = ${false} AND ${e}."passwordHash" IS NULL`;
}

/** Whether a list is a search of published events everyone may see, within a start and end window, and nothing else. */
function publicSearchInWindow(filters: EventFilters): filters is PublicSearch {
  const { visible, protectedOpen } = filters;
  return (
    filters.searchWords.length > 0 &&
    filters.searchWords.every(indexedWhole) &&
    !filters.searchPhrases?.length &&
    !filters.searchExcluded?.length &&
    visible.length === 1 &&
    visible[0].status === "publish" &&
    visible[0].authorId === undefined &&
    protectedOpen.passwordHash === null &&
    "none" in protectedOpen.editable &&
    onlyDateWindow({ ...filters, searchWords: [] })
  );
}
