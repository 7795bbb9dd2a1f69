import { Prisma, type Event } from "../../../generated/prisma/sqlite/client";
import type { Database, Db, Provider } from "../../db/database";
import { insertRows, insertRowsReturning, upsertRows, type ColumnValue } from "../../db/bulk-insert";
import { inList, insertRowReturningId, instantOf, updateRows, type ColumnsOf } from "../../db/row-writes";
import { readCount } from "../../db/item-records";
import { columns, jsonSql, mergedValueTypes, revive } from "../../db/sql-json";
import { beforeEveryCommit, type Tx } from "../../db/transaction";
import { yieldToEventLoop } from "../../event-loop";
import { isItemId, type ItemRef } from "../../http/operation-types";
import type { Language } from "../../i18n/languages";
import { ORGANIZER_COLUMNS, ORGANIZER_VALUE_TYPES, organizerSelect } from "../organizers/organizer-record";
import { itemBySlugSql, slugMatchSql } from "../post-kernel/slug-sql";
import { slugLookupKeys } from "../../text/slug";
import { TERM_COLUMNS, TERM_VALUE_TYPES, termSelect } from "../terms/term-record";
import { VENUE_COLUMNS, VENUE_VALUE_TYPES, venueSelect } from "../venues/venue-record";
import {
  countSql,
  dayCountSql,
  eventListSql,
  publicSearchSql,
  searchTermsSql,
  type PublicSearchSql,
  TERMS_PER_PREFIX,
  eventOrderSql,
  type EventFilters,
  type EventOrderBy,
  type EventPageSql,
} from "./event-list-sql";
import {
  EVENT_COLUMNS,
  EVENT_TEXT_COLUMNS,
  EVENT_VALUE_TYPES,
  type EventRecord,
  type FallbackLanguages,
  type LinkIds,
} from "./event-record";
import {
  searchDocumentsOf,
  searchDocumentsParams,
  searchDocumentsSql,
  staleSearchDocumentsSql,
  type SearchDocument,
} from "./event-search-sql";

/**
 * Every statement on the event tables ("Event", "EventText", the link tables, "EventSearch"), each
 * a named function. Two techniques, each for one family of statements:
 * - reads of records and lists (an event, a page, a total, a slug) are raw statements that build
 *   the whole record as JSON in the database (one statement per page instead of Prisma's eight),
 *   sent straight through the driver (`db.direct`) outside a write, and through the transaction's
 *   `$queryRaw` inside one, so that a write reads what it wrote; their SQL is in event-list-sql.ts
 *   and below (the record's JSON);
 * - writes are Prisma calls in the write's transaction (typed by the schema), but for the bulk
 *   ones (a series' occurrences, their texts and links, search documents), which are multi-row
 *   raw INSERTs (db/bulk-insert.ts): one statement per fifty rows instead of one per row.
 */

// An event's record holds its venues', organizers' and terms' records: one map for the tree.
const RECORD_VALUE_TYPES = mergedValueTypes(
  EVENT_VALUE_TYPES,
  VENUE_VALUE_TYPES,
  ORGANIZER_VALUE_TYPES,
  TERM_VALUE_TYPES,
);

const names = (select: object) => Object.keys(select);

const recordSql = new Map<string, string>();

/** The text columns an occurrence that follows its series takes from the series' rows (its slugs are its own). */
const SHARED_TEXT_COLUMNS = ["title", "description", "excerpt"] as const;

/**
 * Which text rows an event's record holds: every language's (`shownIn` absent), or only those a
 * representation in that language can show (its own, the default language's, the item's source
 * language's: localized-text.ts's fallback order), of the linked items alone (`linkedOnly`: a
 * single event lists its own translations) or of the event too. A list's items need no more, and
 * the other languages' rows were most of what a page built, parsed and revived.
 */
export interface RecordTexts {
  shownIn?: FallbackLanguages;
  linkedOnly?: boolean;
}

/** The JSON expression of the record of the event aliased "e", with the text rows `only` says. */
function eventRecordSql(provider: Provider, only: RecordTexts = {}): string {
  const { shownIn, linkedOnly = false } = only;
  const cacheKey = shownIn ? `${provider}:${shownIn.language}:${shownIn.defaultLanguage}:${linkedOnly}` : provider;
  let sql = recordSql.get(cacheKey);
  if (sql) return sql;
  const json = jsonSql(provider);
  // The languages are the closed set of LANGUAGES (never request text), quoted as SQL literals.
  const languages = shownIn
    ? [...new Set([shownIn.language, shownIn.defaultLanguage])].map((language) => `'${language}'`).join(", ")
    : "";
  const texts = (table: string, key: string, alias: string, fields: string[]) =>
    json.array(
      json.object(columns("t", fields)),
      `"${table}" "t" WHERE "t"."${key}" = "${alias}"."id"${shownIn ? ` AND ("t"."language" IN (${languages}) OR "t"."language" = "${alias}"."sourceLanguage")` : ""}`,
      `"t"."language"`,
    );
  const linked = (
    link: string,
    key: string,
    table: string,
    name: string,
    cols: string[],
    textTable: string,
    textKey: string,
    textFields: string[],
  ) =>
    json.array(
      json.object({
        [name]: json.object({ ...columns("i", cols), texts: texts(textTable, textKey, "i", textFields) }),
      }),
      `"${link}" "l" JOIN "${table}" "i" ON "i"."id" = "l"."${key}" WHERE "l"."eventId" = "e"."id"`,
      `"l"."position"`,
    );
  // An occurrence that shows its series' texts has rows of its own for its slugs alone.
  const eventTexts = json.array(
    json.object({
      ...columns("t", names(EVENT_TEXT_COLUMNS)),
      ...Object.fromEntries(SHARED_TEXT_COLUMNS.map((name) => [name, `COALESCE("o"."${name}", "t"."${name}")`])),
    }),
    `"EventText" "t" LEFT JOIN "EventText" "o" ON "o"."eventId" = "e"."textOwnerId" AND "o"."language" = "t"."language"
      WHERE "t"."eventId" = "e"."id"${shownIn && !linkedOnly ? ` AND ("t"."language" IN (${languages}) OR "t"."language" = "e"."sourceLanguage")` : ""}`,
    `"t"."language"`,
  );
  sql = json.object({
    ...columns("e", names(EVENT_COLUMNS)),
    texts: eventTexts,
    venues: linked(
      "EventVenue",
      "venueId",
      "Venue",
      "venue",
      names(VENUE_COLUMNS),
      "VenueText",
      "venueId",
      names(venueSelect.texts.select),
    ),
    organizers: linked(
      "EventOrganizer",
      "organizerId",
      "Organizer",
      "organizer",
      names(ORGANIZER_COLUMNS),
      "OrganizerText",
      "organizerId",
      names(organizerSelect.texts.select),
    ),
    terms: linked(
      "EventTerm",
      "termId",
      "Term",
      "term",
      names(TERM_COLUMNS),
      "TermText",
      "termId",
      names(termSelect.texts.select),
    ),
  });
  recordSql.set(cacheKey, sql);
  return sql;
}

type Client = Db | Tx;

function reviveRecord(value: unknown): EventRecord {
  return revive<EventRecord>(value, RECORD_VALUE_TYPES);
}

function recordsSql(provider: Provider, rest: Prisma.Sql, only: RecordTexts = {}): Prisma.Sql {
  return Prisma.sql`SELECT ${Prisma.raw(eventRecordSql(provider, only))} AS "record" FROM ${rest}`;
}

/** The records of the events that `rest` (FROM ... WHERE ..., the event aliased "e") selects, in a transaction. */
async function readRecords(client: Client, provider: Provider, rest: Prisma.Sql): Promise<EventRecord[]> {
  const rows = await client.$queryRaw<Array<{ record: unknown }>>(recordsSql(provider, rest));
  return rows.map((row) => reviveRecord(row.record));
}

/** The same, outside a write: straight through the driver; with the text rows `only` says. */
async function readCommittedRecords(db: Database, rest: Prisma.Sql, only?: RecordTexts): Promise<EventRecord[]> {
  const rows = await db.direct.rows<{ record: unknown }>(recordsSql(db.provider, rest, only));
  return rows.map((row) => reviveRecord(row.record));
}

/** One event by id, through `client` (a transaction's, to read what it wrote). */
export async function readEvent(provider: Provider, client: Client, id: number): Promise<EventRecord | null> {
  const [record] = await readRecords(client, provider, Prisma.sql`"Event" "e" WHERE "e"."id" = ${id}`);
  return record ?? null;
}

/** One event by id, as committed; with the text rows `only` says (all, unless told). */
export async function readCommittedEvent(db: Database, id: number, only?: RecordTexts): Promise<EventRecord | null> {
  const [record] = await readCommittedRecords(db, Prisma.sql`"Event" "e" WHERE "e"."id" = ${id}`, only);
  return record ?? null;
}

/** The event whose slug `named` (a statement selecting one "eventId") finds. */
export async function readEventNamed(db: Database, named: Prisma.Sql, only?: RecordTexts): Promise<EventRecord | null> {
  const [record] = await readCommittedRecords(db, Prisma.sql`"Event" "e" WHERE "e"."id" = (${named})`, only);
  return record ?? null;
}

/**
 * A list of ids as one parameter, so that the statement is the same whatever their number: one
 * compiled statement kept, not one per length (each holds a compiled copy of the record's JSON).
 */
function idList(provider: Provider, ids: number[]): Prisma.Sql {
  return provider === "postgresql"
    ? Prisma.sql`SELECT unnest(${ids}::integer[])`
    : Prisma.sql`SELECT "value" FROM json_each(${JSON.stringify(ids)})`;
}

/**
 * A page of the events that `from` and `where` select, in `order`: their ids, in order, and the
 * records of those `needed` (all, unless told; a representation kept before needs none). The
 * page's ids are found first and the records built for them only: built in the same query, they
 * would be built for every event the database sorts, not just for those it returns. With
 * `countAll`, the same statement counts every event selected (a window function over the rows it
 * sorts anyway), so that a list the day counts cannot total does not go through its events
 * twice; the total is null when the page is empty (past the last one). An event deleted between
 * the two statements is left out of `records`.
 */
const RECORDS_PER_READ = 100;

export async function readEventPage(
  db: Database,
  parts: EventPageSql,
  page: { limit: number; offset: number; countAll: boolean; needed?: (id: number) => boolean },
): Promise<{ ids: number[]; records: EventRecord[]; total: number | null }> {
  const { keys, direction, join } = parts.order;
  const total = page.countAll ? Prisma.sql`, COUNT(*) OVER () AS "total"` : Prisma.empty;
  const rows = await db.direct.rows<{
    id: number | string;
    total?: number | bigint | string;
  }>(Prisma.sql`SELECT "e"."id" AS "id"${total} FROM ${parts.from} ${join} ${parts.where}
    ORDER BY ${keys}, "e"."id" ${Prisma.raw(direction)} LIMIT ${page.limit} OFFSET ${page.offset}`);
  const ids = rows.map((row) => Number(row.id));
  return {
    ids,
    records: await readPageRecords(db, parts.shownIn, page.needed ? ids.filter(page.needed) : ids),
    total: page.countAll && rows.length > 0 ? Number(rows[0].total) : null,
  };
}

/** The records of the events `needed` of a page, in its order. */
async function readPageRecords(db: Database, shownIn: FallbackLanguages, needed: number[]): Promise<EventRecord[]> {
  const byId = new Map<number, EventRecord>();
  // A feed's thousand records are read a hundred at a time, the event loop free in between
  // (better-sqlite3 reads synchronously: one statement would hold it for 150 ms).
  for (let first = 0; first < needed.length; first += RECORDS_PER_READ) {
    if (first > 0) await yieldToEventLoop();
    const read = await db.direct.rows<{ record: unknown }>(
      Prisma.sql`SELECT ${Prisma.raw(eventRecordSql(db.provider, { shownIn }))} AS "record" FROM "Event" "e" WHERE "e"."id" IN (${idList(db.provider, needed.slice(first, first + RECORDS_PER_READ))})`,
    );
    for (const row of read) {
      const record = reviveRecord(row.record);
      byId.set(record.id, record);
    }
  }
  return needed.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The event a request names: by id, or by slug (the one rule of slugs: the request language's,
 * then the default language's, then any). The only place an event is looked up by reference.
 * With the text rows `only` says (all, unless told: a write changes the record it reads).
 */
export async function resolveEvent(
  db: Database,
  ref: ItemRef,
  order: { language: Language; defaultLanguage: Language },
  only?: RecordTexts,
): Promise<EventRecord | null> {
  if ("slug" in ref)
    return readEventNamed(db, itemBySlugSql("EventText", ref.slug, order.language, order.defaultLanguage), only);
  return isItemId(ref.id) ? readCommittedEvent(db, ref.id, only) : null;
}

/**
 * The id of the event a request names (the same rule), without reading the event; for a slug,
 * with whether it is the event's slug in the request language itself (see slugMatchSql).
 */
export async function resolveEventId(
  db: Database,
  ref: ItemRef,
  order: { language: Language; defaultLanguage: Language },
): Promise<{ id: number; ownSlug: boolean } | null> {
  if (!("slug" in ref)) return isItemId(ref.id) ? { id: ref.id, ownSlug: false } : null;
  const [row] = await db.direct.rows<{ eventId: number | string; language: string; slug: string }>(
    slugMatchSql("EventText", ref.slug, order.language, order.defaultLanguage),
  );
  if (row === undefined) return null;
  return {
    id: Number(row.eventId),
    ownSlug: row.language === order.language && row.slug === slugLookupKeys(ref.slug)[0],
  };
}

export interface EventPage {
  /** The language the page is shown in, and the site's default language it falls back to. */
  shownIn: { language: Language; defaultLanguage: Language };
  filters: EventFilters;
  orderBy: EventOrderBy;
  order: "asc" | "desc";
  offset: number;
  limit: number;
}

/**
 * A page of events and the total: one statement for the page's ids, one that builds the records
 * of those `needed` (all, unless told), and one that counts from the day counts; or, when those
 * cannot answer, the count in the page's statement. `items` are the records read, in page order.
 *
 * A list filtered only by status (for everyone's events), the hidden flag and a start/end window
 * (the default list, and any `start_date`/`end_date` one) is counted from "EventDayCount", which
 * database triggers keep: whole days are read as one row per day and status instead of one index
 * entry per event, so the cost does not grow with the number of events. A search everyone may
 * make is paged and counted by the search index (publicSearchSql). Any other list is counted with
 * COUNT(*) over its conditions.
 */
export async function listEvents(
  db: Database,
  page: EventPage,
  needed?: (id: number) => boolean,
): Promise<{ ids: number[]; items: EventRecord[]; total: number }> {
  const filters = await withSearchTerms(db, page.filters);
  const publicSearch = publicSearchSql(db.provider, filters, page.orderBy, page.order);
  if (publicSearch) return listPublicSearch(db, page, publicSearch, needed);
  const list = eventListSql(filters, db.provider);
  const order = eventOrderSql(page.orderBy, page.order, page.shownIn, filters.searchWords);
  const parts = { ...list, shownIn: page.shownIn, order };
  const fromDays = dayCountSql(db.provider, filters);
  const request = { limit: page.limit, offset: page.offset, needed };
  if (fromDays) {
    const [{ ids, records }, total] = await Promise.all([
      readEventPage(db, parts, { ...request, countAll: false }),
      readCount(db, fromDays),
    ]);
    return { ids, items: records, total };
  }
  const { ids, records, total } = await readEventPage(db, parts, { ...request, countAll: true });
  return { ids, items: records, total: await totalBesidePage(db, total, page.offset, countSql(list)) };
}

/**
 * The total of a list that its page's statement counted (null when the page was empty): an empty
 * first page means none at all; past the last page, the total takes a count of its own.
 */
async function totalBesidePage(
  db: Database,
  counted: number | null,
  offset: number,
  count: Prisma.Sql,
): Promise<number> {
  return counted ?? (offset === 0 ? 0 : await readCount(db, count));
}

/** A page of a search everyone may make (see publicSearchSql), and its total. */
async function listPublicSearch(
  db: Database,
  page: EventPage,
  search: PublicSearchSql,
  needed?: (id: number) => boolean,
): Promise<{ ids: number[]; items: EventRecord[]; total: number }> {
  const [rows, counted] = await Promise.all([
    db.direct.rows<{ id: number | bigint; total?: number | bigint | string }>(search.page(page.offset, page.limit)),
    search.totalInPage ? null : readCount(db, search.count),
  ]);
  const total =
    counted ?? (await totalBesidePage(db, rows.length > 0 ? Number(rows[0].total) : null, page.offset, search.count));
  const ids = rows.map((row) => Number(row.id));
  return { ids, items: await readPageRecords(db, page.shownIn, needed ? ids.filter(needed) : ids), total };
}

/**
 * The filters, on SQLite with the index's terms that each search word's prefixes begin, for the
 * words whose every prefix begins few enough (see searchMatch).
 */
async function withSearchTerms(db: Database, filters: EventFilters): Promise<EventFilters> {
  if (db.provider !== "sqlite" || filters.searchWords.length === 0) return filters;
  const rows = await db.direct.rows<{ word: number; prefix: number; term: string }>(
    searchTermsSql(filters.language, filters.searchWords),
  );
  const perPrefix = new Map<string, number>();
  const searchTerms: Array<string[] | null> = filters.searchWords.map(() => []);
  for (const { word, prefix, term } of rows) {
    const seen = (perPrefix.get(`${word}:${prefix}`) ?? 0) + 1;
    perPrefix.set(`${word}:${prefix}`, seen);
    if (seen > TERMS_PER_PREFIX) searchTerms[word] = null;
    else searchTerms[word]?.push(term);
  }
  return { ...filters, searchTerms };
}

/** Of `ids`, the events a list with these filters shows (in no particular order): a sync's changed items. */
export async function eventsAmong(
  db: Database,
  shownIn: EventPage["shownIn"],
  filters: EventFilters,
  ids: number[],
): Promise<EventRecord[]> {
  const list = eventListSql({ ...(await withSearchTerms(db, filters)), onlyIds: ids }, db.provider);
  const { records } = await readEventPage(
    db,
    { ...list, shownIn, order: eventOrderSql("id", "asc", shownIn) },
    { limit: ids.length, offset: 0, countAll: false },
  );
  return records;
}

/**
 * The events of an iCalendar feed: those the list with these filters shows, in date order, at
 * most `limit` (`truncated` when there were more); then, as cancellations, the events in its
 * window that are in the trash now and were published once (subscribed apps remove them).
 */
export async function feedEvents(
  db: Database,
  shownIn: EventPage["shownIn"],
  filters: EventFilters,
  limit: number,
): Promise<{ events: Array<{ record: EventRecord; cancelled: boolean }>; truncated: boolean }> {
  const page: EventPage = { shownIn, filters, orderBy: "start_date", order: "asc", offset: 0, limit: limit + 1 };
  const { items } = await listEvents(db, page);
  const trashed =
    filters.visible.length > 0
      ? (
          await listEvents(db, {
            ...page,
            filters: { ...filters, visible: [{ status: "trash" }], oncePublished: true },
            limit,
          })
        ).items
      : [];
  const events = items.slice(0, limit).map((record) => ({ record, cancelled: false }));
  return {
    events: [...events, ...trashed.map((record) => ({ record, cancelled: true }))],
    truncated: items.length > limit,
  };
}

/** Of `ids`, the events that exist, with what says who may see them (the list filters' check). */
export async function eventOwners(db: Database, ids: number[]): Promise<Array<{ status: string; authorId: number }>> {
  const rows = await db.direct.rows<{ status: string; authorId: number | bigint }>(
    Prisma.sql`SELECT "status", "authorId" FROM "Event" WHERE ${inList("id", ids)}`,
  );
  return rows.map((row) => ({ status: row.status, authorId: Number(row.authorId) }));
}

/** Prisma refuses a statement with more than 999 parameters on SQLite: long lists go in parts. */
const IDS_PER_STATEMENT = 300;

function inParts<T>(items: T[], size = IDS_PER_STATEMENT): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** Of `candidates`, the slugs events other than `exceptEventId` have in `language`. */
export async function takenEventSlugs(
  tx: Tx,
  language: string,
  candidates: string[],
  exceptEventId: number | null = null,
): Promise<string[]> {
  const taken: string[] = [];
  const other = exceptEventId !== null ? Prisma.sql` AND "eventId" <> ${exceptEventId}` : Prisma.empty;
  for (const part of inParts(candidates)) {
    const rows = await tx.$queryRaw<Array<{ slug: string }>>(
      Prisma.sql`SELECT "slug" FROM "EventText" WHERE "language" = ${language} AND ${inList("slug", part)}${other}`,
    );
    taken.push(...rows.map((row) => row.slug));
  }
  return taken;
}

/** Columns of an event's row, as writes give them. */
export type EventColumns = ColumnsOf<Event>;

/** Makes an event's row (made now: `createdAt`); its id. */
export function insertEvent(tx: Tx, columns: EventColumns & { createdAt: Date }): Promise<number> {
  return insertRowReturningId(tx, "Event", columns);
}

/** Writes an event's columns, and counts the write (its version). */
export async function saveEvent(tx: Tx, id: number, columns: EventColumns): Promise<void> {
  await updateRows(tx, "Event", Prisma.sql`"id" = ${id}`, columns, { countVersion: true });
}

/** Writes an event's columns that no reader keeps a version of (the series' own bookkeeping). */
export async function saveSeriesColumns(
  tx: Tx,
  id: number,
  columns: Pick<EventColumns, "recurrence" | "recurrenceUntil" | "recurrenceId">,
): Promise<void> {
  await updateRows(tx, "Event", Prisma.sql`"id" = ${id}`, columns);
}

/** The stored rule of an event (null: none, or no such event). */
export async function storedRecurrenceOf(tx: Tx, id: number): Promise<string | null> {
  const [row] = await tx.$queryRaw<
    Array<{ recurrence: string | null }>
  >`SELECT "recurrence" FROM "Event" WHERE "id" = ${id}`;
  return row?.recurrence ?? null;
}

export interface EventTextRow {
  title: string | null;
  description: string | null;
  excerpt: string | null;
  slug?: string | null;
  searchText: string;
  sortKey: string;
}

/**
 * Writes an event's text rows (made, or replaced), one statement for the rows that give the same
 * columns (a write gives every language's row: each language's search text follows the others').
 */
export async function saveEventTexts(
  tx: Tx,
  eventId: number,
  rows: Array<{ language: string } & EventTextRow>,
): Promise<void> {
  const byColumns = new Map<string, Array<Record<string, ColumnValue>>>();
  for (const row of rows) {
    const given = Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
    const key = Object.keys(given).join(",");
    byColumns.set(key, [...(byColumns.get(key) ?? []), { eventId, ...given }]);
  }
  for (const group of byColumns.values()) await upsertRows(tx, "EventText", ["eventId", "language"], group);
}

/** Writes (or replaces) the search documents of these events, from their search texts (every language's). */
export async function writeSearchDocuments(provider: Provider, tx: Tx, documents: SearchDocument[]): Promise<void> {
  for (const part of inParts(documents)) {
    await tx.$executeRawUnsafe(searchDocumentsSql(provider, part.length), ...searchDocumentsParams(part));
  }
}

/** Writes the search documents of `ids` again from their texts (an id without an event is skipped). */
async function writeSearchDocumentsOf(provider: Provider, tx: Tx, ids: number[]): Promise<void> {
  const texts = await tx.rows<Record<string, unknown>>(
    Prisma.sql`SELECT "eventId", "language", "searchText" FROM "EventText" WHERE ${inList("eventId", ids)}`,
  );
  const existing = await tx.rows<{ id: number | bigint }>(
    Prisma.sql`SELECT "id" FROM "Event" WHERE ${inList("id", ids)}`,
  );
  await writeSearchDocuments(
    provider,
    tx,
    searchDocumentsOf(
      existing.map((row) => Number(row.id)),
      texts,
    ),
  );
}

/**
 * Writes again, from their texts, up to `limit` search documents an earlier version wrote (see
 * staleSearchDocumentsSql), and on SQLite those of the events moved outside the service's
 * transactions (see writeMovedSearchDocuments); how many. On PostgreSQL the documents are locked first, so that an
 * earlier version's write of the same event waits and is found by the next call. On SQLite the
 * earlier version's document is under the event's id, not its key: it is taken out first.
 */
export async function reindexStaleSearchDocuments(db: Database, limit = 500): Promise<number> {
  const found = await db.direct.rows<{ id: number | bigint }>(Prisma.raw(staleSearchDocumentsSql(db.provider, limit)));
  const moved =
    db.provider === "sqlite" ? await db.direct.rows(Prisma.sql`SELECT 1 FROM "EventSearchMoved" LIMIT 1`) : [];
  if (found.length === 0 && moved.length === 0) return 0;
  const candidates = found.map((row) => Number(row.id));
  return db.transact(async (tx) => {
    if (candidates.length > 0) {
      if (db.provider === "postgresql")
        await tx.$queryRaw`SELECT "eventId" FROM "EventSearch" WHERE ${inList("eventId", candidates)} FOR UPDATE`;
      else await tx.$executeRaw`DELETE FROM "EventSearch" WHERE ${inList("rowid", candidates)}`;
      await writeSearchDocumentsOf(db.provider, tx, candidates);
    }
    // Events moved by writes outside the service's transactions (an earlier version's, or by hand).
    return candidates.length + (await writeMovedSearchDocuments(db, tx));
  });
}

/**
 * On SQLite, writes the documents of the events whose key a statement of this transaction
 * changed (its start, its status, its listing or its password): the database's trigger took the
 * old ones out and noted the events in "EventSearchMoved" (see the event_search_by_start
 * migration); how many. Run by every write transaction before it commits, whatever it wrote,
 * and every minute for the writes made outside the service's transactions.
 */
export async function writeMovedSearchDocuments(db: Database, tx: Tx): Promise<number> {
  if (db.provider !== "sqlite") return 0;
  const moved = await tx.rows<{ eventId: number | bigint }>(Prisma.sql`SELECT "eventId" FROM "EventSearchMoved"`);
  if (moved.length === 0) return 0;
  for (const part of inParts(moved.map((row) => Number(row.eventId)))) await writeSearchDocumentsOf("sqlite", tx, part);
  await tx.$executeRaw`DELETE FROM "EventSearchMoved"`;
  return moved.length;
}
beforeEveryCommit(writeMovedSearchDocuments);

/** Deletes events for good (their texts and links go with them: cascades). */
export async function deleteEvents(tx: Tx, ids: number[]): Promise<void> {
  for (const part of inParts(ids)) await tx.$executeRaw`DELETE FROM "Event" WHERE ${inList("id", part)}`;
}

/** The occurrences of a series, with what keeping them in step needs. */
export async function occurrencesOfSeries(tx: Tx, seriesId: number): Promise<SeriesOccurrence[]> {
  const rows = await tx.$queryRaw<Array<Record<keyof SeriesOccurrence, unknown>>>`
    SELECT "id", "recurrenceId", "detached", "status", "startsAt", "startLocal", "endLocal" FROM "Event"
    WHERE "parentId" = ${seriesId} AND "recurrenceId" IS NOT NULL`;
  return rows.map((row) => ({
    id: Number(row.id),
    recurrenceId: instantOf(row.recurrenceId)!,
    detached: Boolean(row.detached),
    status: String(row.status),
    startsAt: instantOf(row.startsAt)!,
    startLocal: String(row.startLocal),
    endLocal: String(row.endLocal),
  }));
}

/** An occurrence of a series, with what keeping it in step needs. */
export interface SeriesOccurrence {
  id: number;
  recurrenceId: Date;
  detached: boolean;
  status: string;
  startsAt: Date;
  startLocal: string;
  endLocal: string;
}

/** Series whose occurrences are made up to before `before`, earliest first, at most `limit`. */
export async function seriesShortOf(db: Database, before: Date, limit: number): Promise<number[]> {
  const rows = await db.direct.rows<{ id: number | bigint }>(
    Prisma.sql`SELECT "id" FROM "Event" WHERE "recurrence" IS NOT NULL AND "status" <> 'trash' AND "recurrenceUntil" < ${before}
      ORDER BY "recurrenceUntil", "id" LIMIT ${limit}`,
  );
  return rows.map((row) => Number(row.id));
}

/** Moves a series' occurrences to the trash, or deletes them for good (`destroy`). */
export async function removeOccurrencesOf(tx: Tx, seriesId: number, destroy: boolean, now: Date): Promise<void> {
  const occurrences = Prisma.sql`"parentId" = ${seriesId} AND "recurrenceId" IS NOT NULL`;
  if (destroy) await tx.$executeRaw`DELETE FROM "Event" WHERE ${occurrences}`;
  else
    await updateRows(
      tx,
      "Event",
      Prisma.sql`${occurrences} AND "status" <> 'trash'`,
      { status: "trash", modifiedAt: now },
      { countVersion: true },
    );
}

/** The series' text rows, whole (search text and sort key included). */
export function eventTextRows(tx: Tx, eventId: number): Promise<StoredEventText[]> {
  return tx.$queryRaw<
    StoredEventText[]
  >`SELECT "language", ${Prisma.raw(TEXT_ROW_COLUMNS)} FROM "EventText" WHERE "eventId" = ${eventId}`;
}

/** An event's text row as stored. */
export interface StoredEventText extends EventTextRow {
  language: Language;
  slug: string | null;
}

const TEXT_ROW_COLUMNS = ["title", "description", "excerpt", "slug", "searchText", "sortKey"]
  .map((column) => `"${column}"`)
  .join(", ");

/** Occurrences `ids`, but those detached, take `columns` of their series. */
export async function followSeriesColumns(tx: Tx, ids: number[], columns: EventColumns): Promise<void> {
  for (const part of inParts(ids))
    await updateRows(tx, "Event", Prisma.sql`${inList("id", part)} AND "detached" = ${false}`, columns, {
      countVersion: true,
    });
}

/** Occurrences `ids` lose their text rows of other languages than `languages`; answers the rows they keep (event, language). */
export async function keepTextLanguages(
  tx: Tx,
  ids: number[],
  languages: string[],
): Promise<Array<{ eventId: number; language: string }>> {
  const kept: Array<{ eventId: number; language: string }> = [];
  for (const part of inParts(ids)) {
    await tx.$executeRaw`DELETE FROM "EventText" WHERE ${inList("eventId", part)} AND NOT ${inList("language", languages)}`;
    const rows = await tx.$queryRaw<Array<{ eventId: number | bigint; language: string }>>`
      SELECT "eventId", "language" FROM "EventText" WHERE ${inList("eventId", part)}`;
    kept.push(...rows.map((row) => ({ eventId: Number(row.eventId), language: row.language })));
  }
  return kept;
}

/** Occurrences `ids` take a text row of their series (their own slugs stay). */
export async function copyTextToEvents(
  tx: Tx,
  ids: number[],
  text: EventTextRow & { language: string },
): Promise<void> {
  const { title, description, excerpt, searchText, sortKey } = text;
  for (const part of inParts(ids))
    await updateRows(tx, "EventText", Prisma.sql`${inList("eventId", part)} AND "language" = ${text.language}`, {
      title,
      description,
      excerpt,
      searchText,
      sortKey,
    });
}

/**
 * Occurrences `ids` show their series' texts from now on: those not detached that held copies of
 * them (an earlier version's, or a migration's that found them different) lose the copies (their
 * slugs stay) and their search documents. Answers those that held copies.
 */
export async function shareSeriesTexts(provider: Provider, tx: Tx, seriesId: number, ids: number[]): Promise<number[]> {
  const copied: number[] = [];
  for (const part of inParts(ids)) {
    const rows = await tx.$queryRaw<Array<{ id: number | bigint }>>`
      SELECT "id" FROM "Event" WHERE ${inList("id", part)} AND "detached" = ${false}
        AND ("textOwnerId" IS NULL OR "textOwnerId" <> ${seriesId})`;
    copied.push(...rows.map((row) => Number(row.id)));
  }
  for (const part of inParts(copied)) {
    await updateRows(tx, "Event", inList("id", part), { textOwnerId: seriesId });
    await updateRows(tx, "EventText", inList("eventId", part), {
      title: null,
      description: null,
      excerpt: null,
      searchText: "",
      sortKey: "",
    });
  }
  if (copied.length > 0)
    await writeSearchDocuments(
      provider,
      tx,
      copied.map((eventId) => ({ eventId, texts: [] })),
    );
  return copied;
}

/**
 * Occurrences `ids`, which showed the texts of `ownerId`, take a copy of them as they are now and
 * keep it (their slugs stay): an occurrence edited on its own, and past ones before their series'
 * texts change (they are history).
 */
export async function takeOwnTexts(provider: Provider, tx: Tx, ownerId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const texts = await eventTextRows(tx, ownerId);
  for (const text of texts) await copyTextToEvents(tx, ids, text);
  for (const part of inParts(ids)) await updateRows(tx, "Event", inList("id", part), { textOwnerId: null });
  await writeSearchDocuments(
    provider,
    tx,
    ids.map((eventId) => ({ eventId, texts })),
  );
}

/** The occurrences that show the texts of series `seriesId` and start before `before`. */
export async function textSharersBefore(tx: Tx, seriesId: number, before: Date): Promise<number[]> {
  const rows = await tx.$queryRaw<Array<{ id: number | bigint }>>`
    SELECT "id" FROM "Event" WHERE "textOwnerId" = ${seriesId} AND "startsAt" < ${before}`;
  return rows.map((row) => Number(row.id));
}

/** The wall-clock starts of events `ids`. */
export async function startsOf(tx: Tx, ids: number[]): Promise<Array<{ id: number; startLocal: string }>> {
  const starts: Array<{ id: number; startLocal: string }> = [];
  for (const part of inParts(ids)) {
    const rows = await tx.$queryRaw<Array<{ id: number | bigint; startLocal: string }>>`
      SELECT "id", "startLocal" FROM "Event" WHERE ${inList("id", part)}`;
    starts.push(...rows.map((row) => ({ id: Number(row.id), startLocal: row.startLocal })));
  }
  return starts;
}

/** Makes occurrence rows (fifty at a time is the caller's rule); their ids with their starts. */
export async function insertOccurrences(
  tx: Tx,
  rows: Array<Record<string, ColumnValue>>,
): Promise<Array<{ id: number; startLocal: string }>> {
  const made = await insertRowsReturning<{ id: number | bigint; startLocal: string }>(tx, "Event", rows, [
    "id",
    "startLocal",
  ]);
  return made.map((row) => ({ id: Number(row.id), startLocal: row.startLocal }));
}

/** Makes text rows of events, many at once. */
export async function insertEventTexts(tx: Tx, rows: Array<Record<string, ColumnValue>>): Promise<void> {
  await insertRows(tx, "EventText", rows);
}

/** An occurrence's RECURRENCE-ID and whether it was edited on its own. */
export async function detachedOccurrencesOf(
  tx: Tx,
  seriesId: number,
): Promise<Array<{ id: number; recurrenceId: Date | null }>> {
  const rows = await tx.$queryRaw<Array<{ id: number | bigint; recurrenceId: unknown }>>`
    SELECT "id", "recurrenceId" FROM "Event"
    WHERE "parentId" = ${seriesId} AND "recurrenceId" IS NOT NULL AND "detached" = ${true}`;
  return rows.map((row) => ({ id: Number(row.id), recurrenceId: instantOf(row.recurrenceId) }));
}

/** The link rows of events, per kind, each list in its position order. */
export interface LinkRows {
  venues: Array<{ eventId: number; venueId: number; position: number }>;
  organizers: Array<{ eventId: number; organizerId: number; position: number }>;
  terms: Array<{ eventId: number; termId: number; position: number }>;
}

/** Makes link rows, many at once (a series' occurrences). */
export async function insertLinkRows(tx: Tx, rows: LinkRows): Promise<void> {
  await insertRows(tx, "EventVenue", rows.venues);
  await insertRows(tx, "EventOrganizer", rows.organizers);
  await insertRows(tx, "EventTerm", rows.terms);
}

/** Deletes every link of events `ids`. */
export async function deleteLinksOf(tx: Tx, ids: number[]): Promise<void> {
  for (const part of inParts(ids))
    for (const table of ["EventVenue", "EventOrganizer", "EventTerm"])
      await tx.$executeRaw`DELETE FROM ${Prisma.raw(`"${table}"`)} WHERE ${inList("eventId", part)}`;
}

/** Replaces the links of an event that changed, keeping the order given (`made`: the event is new, it has none yet). */
export async function replaceLinks(tx: Tx, eventId: number, changes: LinkIds, { made = false } = {}): Promise<void> {
  if (changes.venue) {
    if (!made) await tx.$executeRaw`DELETE FROM "EventVenue" WHERE "eventId" = ${eventId}`;
    await insertRows(
      tx,
      "EventVenue",
      changes.venue.map((venueId, position) => ({ eventId, venueId, position })),
    );
  }
  if (changes.organizer) {
    if (!made) await tx.$executeRaw`DELETE FROM "EventOrganizer" WHERE "eventId" = ${eventId}`;
    await insertRows(
      tx,
      "EventOrganizer",
      changes.organizer.map((organizerId, position) => ({ eventId, organizerId, position })),
    );
  }
  for (const [taxonomy, termIds] of [
    ["category", changes.categories],
    ["tag", changes.tags],
  ] as const) {
    if (!termIds) continue;
    if (!made)
      await tx.$executeRaw`DELETE FROM "EventTerm" WHERE "eventId" = ${eventId}
      AND "termId" IN (SELECT "id" FROM "Term" WHERE "taxonomy" = ${taxonomy})`;
    await insertRows(
      tx,
      "EventTerm",
      termIds.map((termId, position) => ({ eventId, termId, position })),
    );
  }
}

/** The occurrence of a series whose RECURRENCE-ID is `recurrenceId`, as committed (null: none). */
export async function occurrenceIdAt(db: Database, seriesId: number, recurrenceId: Date): Promise<number | null> {
  const [row] = await db.direct.rows<{ id: number | bigint }>(
    Prisma.sql`SELECT "id" FROM "Event" WHERE "parentId" = ${seriesId} AND "recurrenceId" = ${recurrenceId}`,
  );
  return row ? Number(row.id) : null;
}

/** The status of each of these events that exists, as committed. */
export async function eventStatuses(db: Database, ids: number[]): Promise<Map<number, string>> {
  const statuses = new Map<number, string>();
  for (const part of inParts(ids)) {
    const rows = await db.direct.rows<{ id: number | bigint; status: string }>(
      Prisma.sql`SELECT "id", "status" FROM "Event" WHERE ${inList("id", part)}`,
    );
    for (const row of rows) statuses.set(Number(row.id), row.status);
  }
  return statuses;
}

/** When an event is over: its end, or a series' last occurrence's (of those made so far); null if it is gone. */
export async function lastEndOf(db: Database, id: number): Promise<Date | null> {
  const [row] = await db.direct.rows<{ lastEnd: unknown }>(
    Prisma.sql`SELECT MAX("endsAt") AS "lastEnd" FROM "Event" WHERE "id" = ${id} OR "parentId" = ${id}`,
  );
  return row?.lastEnd === null || row?.lastEnd === undefined ? null : new Date(row.lastEnd as string | number | Date);
}
