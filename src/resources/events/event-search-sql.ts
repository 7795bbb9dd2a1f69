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
 * The statement that writes (or replaces) the documents of `count` events; its parameters are,
 * for each event, its id and its tokens joined by spaces.
 */
export function searchDocumentsSql(provider: Provider, count: number): string {
  if (provider === "postgresql") {
    const rows = Array.from(
      { length: count },
      (_, i) => `($${2 * i + 1}::integer, array_to_tsvector(string_to_array($${2 * i + 2}, ' ')))`,
    );
    return `INSERT INTO "EventSearch" ("eventId", "tokens") VALUES ${rows.join(", ")} ON CONFLICT ("eventId") DO UPDATE SET "tokens" = EXCLUDED."tokens"`;
  }
  return `INSERT OR REPLACE INTO "EventSearch" ("rowid", "tokens") VALUES ${Array.from({ length: count }, () => "(?, ?)").join(", ")}`;
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
 * Up to `limit` events whose document is still in the form before tokens carried their languages
 * (tokens that start with a hexadecimal digit): written by an instance of an earlier version still
 * running beside this one during an upgrade. The service writes them again (reindexStaleSearchDocuments).
 */
export function staleSearchDocumentsSql(provider: Provider, limit: number): string {
  const digits = [..."0123456789abcdef"];
  if (provider === "postgresql") {
    const query = digits.map((digit) => `${digit}:*`).join(" | ");
    return `SELECT "eventId" AS "id" FROM "EventSearch" WHERE "tokens" @@ '${query}'::tsquery LIMIT ${limit}`;
  }
  const match = digits.map((digit) => `"${digit}"*`).join(" OR ");
  return `SELECT "rowid" AS "id" FROM "EventSearch" WHERE "EventSearch" MATCH '${match}' LIMIT ${limit}`;
}

/** Plain SQL access, for the migrator's own connection as for Prisma's (placeholders as the dialect's). */
export interface SqlRunner {
  provider: Provider;
  all(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>>;
  run(sql: string, params: unknown[]): Promise<void>;
}

const REBUILD_BATCH = 500;

/** Writes every event's search document again, from its texts, in batches of events by id. */
export async function rebuildEventSearch(sql: SqlRunner, progress: Progress = silent): Promise<number> {
  const after = sql.provider === "postgresql" ? "$1" : "?";
  const [{ total }] = await sql.all(`SELECT COUNT(*) AS "total" FROM "Event"`, []);
  let last = 0;
  let written = 0;
  progress("search documents", 0, Number(total));
  // GIN takes documents one by one, each into its place in the index (3 min 53 s for 100,000);
  // with its pending list on, they are merged into it in bulk as the list fills.
  if (sql.provider === "postgresql") await sql.run(`ALTER INDEX "EventSearch_tokens_idx" SET (fastupdate = on)`, []);
  for (;;) {
    const ids = (
      await sql.all(`SELECT "id" FROM "Event" WHERE "id" > ${after} ORDER BY "id" LIMIT ${REBUILD_BATCH}`, [last])
    ).map((row) => Number(row.id));
    if (ids.length === 0) {
      // Documents written over others leave the old ones' deletions in SQLite's index until its
      // segments merge: merged now, a search reads only what it finds.
      if (sql.provider === "sqlite") await sql.run(`INSERT INTO "EventSearch" ("EventSearch") VALUES ('optimize')`, []);
      else {
        // The service's writes go straight into the index (see the event_search migration): the list is emptied now.
        await sql.all(`SELECT gin_clean_pending_list('"EventSearch_tokens_idx"'::regclass)`, []);
        await sql.run(`ALTER INDEX "EventSearch_tokens_idx" SET (fastupdate = off)`, []);
      }
      return written;
    }
    const rows = await sql.all(
      `SELECT "eventId", "language", "searchText" FROM "EventText" WHERE "eventId" IN (${ids.join(", ")})`,
      [],
    );
    const documents = searchDocumentsOf(ids, rows);
    await sql.run(searchDocumentsSql(sql.provider, documents.length), searchDocumentsParams(documents));
    written += documents.length;
    progress("search documents", written, Math.max(written, Number(total)));
    last = ids[ids.length - 1];
  }
}
