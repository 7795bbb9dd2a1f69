import type { Provider } from "../../db/database";
import { isLanguage } from "../../i18n/languages";
import { silent, type Progress } from "../../logging/progress";
import { searchTokens, type LanguageSearchText } from "../../text/search-tokens";

/**
 * The event search index ("EventSearch", created by hand in the event_search migrations): one
 * document of search tokens per event, each token marked with the languages whose text holds it.
 * See search-tokens.ts.
 */

/**
 * On SQLite, a document's rowid is its key in the index's order (the event_search_by_start
 * migration): `(unlisted << 62) | (minute << 31) | id`, where unlisted is 0 for an event that
 * everyone's lists show (published, not hidden, no password) and minute the minute it starts,
 * counted from 0000-01-01T00:00Z. A search then reads its matches in date order and within a date
 * window by rowid alone, as FTS5 keeps every document list in rowid order (see publicSearchSql
 * in event-list-sql.ts).
 * A series' document is under -id instead (the shared_occurrence_texts migration): it stands for
 * the series and every occurrence that shows its texts, whose dates the events' own index gives.
 * The migration's triggers compute the same key to take a document out when its event changes.
 */
const MINUTES_BEFORE_1970 = 1_036_120_320;
/** The last minute a key holds (in the year 4083); later events share it, and searches past it go the general way. */
export const LAST_KEY_MINUTE = 2 ** 31 - 1;
/** The id bits of a key. */
export const KEY_ID_MASK = 2 ** 31 - 1;

function documentKeySql(event: string): string {
  const listed = `${event}."status" = 'publish' AND ${event}."hideFromListings" = 0 AND ${event}."passwordHash" IS NULL`;
  const minute = `min(max(COALESCE((unixepoch(substr(${event}."startsAt", 1, 16)) + 62167219200) / 60, 0), 0), ${LAST_KEY_MINUTE})`;
  return `CASE WHEN ${event}."recurrence" IS NOT NULL THEN -${event}."id" ELSE ((CASE WHEN ${listed} THEN 0 ELSE 1 END) << 62) | (${minute} << 31) | ${event}."id" END`;
}

/** The minute of a key that `instant` falls in. */
export function keyMinute(instant: Date): number {
  return Math.floor(instant.getTime() / 60_000) + MINUTES_BEFORE_1970;
}

/** The first key of a listed event's document that starts in `minute`. */
export function listedKey(minute: number): bigint {
  return BigInt(minute) << 31n;
}

/**
 * The statement that writes (or replaces) the documents of `count` events; its parameters are,
 * for each event, its id and its tokens joined by spaces. On SQLite, the event's row gives the key,
 * and the documents go in key order: FTS5 writes out what it holds of a transaction whenever a
 * rowid comes that is not above the last one (keys in id order made a 100,000-event seed crawl).
 */
export function searchDocumentsSql(provider: Provider, count: number): string {
  if (provider === "postgresql") {
    const rows = Array.from(
      { length: count },
      (_, i) => `($${2 * i + 1}::integer, array_to_tsvector(string_to_array($${2 * i + 2}, ' ')))`,
    );
    return `INSERT INTO "EventSearch" ("eventId", "tokens") VALUES ${rows.join(", ")} ON CONFLICT ("eventId") DO UPDATE SET "tokens" = EXCLUDED."tokens"`;
  }
  const values = Array.from({ length: count }, () => "(?, ?)").join(", ");
  return `INSERT OR REPLACE INTO "EventSearch" ("rowid", "tokens")
    SELECT ${documentKeySql(`"e"`)} AS "key", "d"."column2" FROM (VALUES ${values}) "d" JOIN "Event" "e" ON "e"."id" = "d"."column1"
    ORDER BY "key"`;
}

/** An event's search texts, one per language it has. */
export interface SearchDocument {
  eventId: number;
  texts: LanguageSearchText[];
}

/** The parameters of `searchDocumentsSql` for these events' search texts (all languages). */
export function searchDocumentsParams(events: SearchDocument[]): Array<number | string> {
  return events.flatMap(({ eventId, texts }) => [eventId, searchTokens(texts).join(" ")]);
}

/** The search documents of `ids`, from their text rows (events without any get an empty document). */
export function searchDocumentsOf(ids: number[], textRows: Array<Record<string, unknown>>): SearchDocument[] {
  const byEvent = new Map<number, LanguageSearchText[]>(ids.map((id) => [id, []]));
  for (const row of textRows) {
    if (!isLanguage(row.language)) continue;
    byEvent.get(Number(row.eventId))?.push({ language: row.language, searchText: String(row.searchText) });
  }
  return [...byEvent].map(([eventId, texts]) => ({ eventId, texts }));
}

/**
 * Up to `limit` documents an instance of an earlier version wrote, still running beside this one
 * during an upgrade; the service writes them again (reindexStaleSearchDocuments). On PostgreSQL:
 * documents in the form before tokens carried their languages (tokens that start with a
 * hexadecimal digit). On SQLite: documents under their event's id instead of their key (an
 * earlier version's documents are all so), but for an event whose key is its id (a listed event
 * of the first minute of the year 0). `id` is the document's rowid on SQLite, which is the event's id.
 */
export function staleSearchDocumentsSql(provider: Provider, limit: number): string {
  if (provider === "postgresql") {
    const query = [..."0123456789abcdef"].map((digit) => `${digit}:*`).join(" | ");
    return `SELECT "eventId" AS "id" FROM "EventSearch" WHERE "tokens" @@ '${query}'::tsquery LIMIT ${limit}`;
  }
  return `SELECT "s"."rowid" AS "id" FROM "EventSearch" "s" WHERE "s"."rowid" BETWEEN 0 AND ${KEY_ID_MASK}
    AND NOT EXISTS (SELECT 1 FROM "Event" "e" WHERE "e"."id" = "s"."rowid" AND ${documentKeySql(`"e"`)} = "s"."rowid") LIMIT ${limit}`;
}

/** Plain SQL access, for the migrator's own connection as for Prisma's (placeholders as the dialect's). */
export interface SqlRunner {
  provider: Provider;
  all(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>>;
  run(sql: string, params: unknown[]): Promise<void>;
}

const REBUILD_BATCH = 500;

/**
 * Writes every event's search document again, from its texts, in batches of events: on SQLite in
 * the documents' key order, so that FTS5 appends them (see searchDocumentsSql), on PostgreSQL by
 * id, with the events' words.
 */
export async function rebuildEventSearch(sql: SqlRunner, progress: Progress = silent): Promise<number> {
  const [{ total }] = await sql.all(`SELECT COUNT(*) AS "total" FROM "Event"`, []);
  let written = 0;
  progress("search documents", 0, Number(total));
  // GIN takes documents one by one, each into its place in the index (3 min 53 s for 100,000);
  // with its pending list on, they are merged into it in bulk as the list fills.
  if (sql.provider === "postgresql") await sql.run(`ALTER INDEX "EventSearch_tokens_idx" SET (fastupdate = on)`, []);
  for await (const ids of rebuildBatches(sql)) {
    written += await writeDocumentsOf(sql, ids);
    progress("search documents", written, Math.max(written, Number(total)));
  }
  if (sql.provider === "sqlite") {
    // Documents under a key no event has now (an earlier version's, or one moved outside the
    // service's transactions) go; every event's is written.
    await sql.run(
      `DELETE FROM "EventSearch" WHERE "rowid" NOT IN (SELECT ${documentKeySql(`"e"`)} FROM "Event" "e")`,
      [],
    );
    await sql.run(`DELETE FROM "EventSearchMoved"`, []);
    // Documents written over others leave the old ones' deletions in SQLite's index until its
    // segments merge: merged now, a search reads only what it finds.
    await sql.run(`INSERT INTO "EventSearch" ("EventSearch") VALUES ('optimize')`, []);
  } else {
    // The service's writes go straight into the index (see the event_search migration): the list is emptied now.
    await sql.all(`SELECT gin_clean_pending_list('"EventSearch_tokens_idx"'::regclass)`, []);
    await sql.run(`ALTER INDEX "EventSearch_tokens_idx" SET (fastupdate = off)`, []);
  }
  return written;
}

/** Writes the search documents of events `ids` from their texts (and, on PostgreSQL, their words); how many. */
async function writeDocumentsOf(sql: SqlRunner, ids: number[]): Promise<number> {
  const rows = await sql.all(
    `SELECT "eventId", "language", "searchText" FROM "EventText" WHERE "eventId" IN (${ids.join(", ")})`,
    [],
  );
  const documents = searchDocumentsOf(ids, rows);
  await sql.run(searchDocumentsSql(sql.provider, documents.length), searchDocumentsParams(documents));
  // PostgreSQL's words, which its texts' triggers keep (the event_search_words migration).
  if (sql.provider === "postgresql")
    await sql.all(`SELECT 1 FROM "event_search_words"(ARRAY[${ids.join(", ")}]::integer[])`, []);
  return documents.length;
}

/**
 * SQLite: writes the documents a migration took out of the index and noted in "EventSearchMoved"
 * (as the service does before each commit: writeMovedSearchDocuments); how many.
 */
export async function writeMovedDocuments(sql: SqlRunner): Promise<number> {
  if (sql.provider !== "sqlite") return 0;
  const moved = (await sql.all(`SELECT "eventId" FROM "EventSearchMoved" ORDER BY "eventId"`, [])).map((row) =>
    Number(row.eventId),
  );
  for (let first = 0; first < moved.length; first += REBUILD_BATCH)
    await writeDocumentsOf(sql, moved.slice(first, first + REBUILD_BATCH));
  await sql.run(`DELETE FROM "EventSearchMoved"`, []);
  return moved.length;
}

/** The ids of every event, REBUILD_BATCH at a time: on SQLite in their documents' key order, on PostgreSQL by id. */
async function* rebuildBatches(sql: SqlRunner): AsyncGenerator<number[]> {
  if (sql.provider === "sqlite") {
    // Every key at once (8 bytes an event), then the events in that order.
    const ordered = await sql.all(`SELECT "id" FROM "Event" "e" ORDER BY ${documentKeySql(`"e"`)}`, []);
    for (let first = 0; first < ordered.length; first += REBUILD_BATCH)
      yield ordered.slice(first, first + REBUILD_BATCH).map((row) => Number(row.id));
    return;
  }
  for (let last = 0; ;) {
    const ids = (
      await sql.all(`SELECT "id" FROM "Event" WHERE "id" > $1 ORDER BY "id" LIMIT ${REBUILD_BATCH}`, [last])
    ).map((row) => Number(row.id));
    if (ids.length === 0) return;
    yield ids;
    last = ids[ids.length - 1];
  }
}
