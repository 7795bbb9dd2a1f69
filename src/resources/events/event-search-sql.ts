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
  for (;;) {
    const ids = (
      await sql.all(`SELECT "id" FROM "Event" WHERE "id" > ${after} ORDER BY "id" LIMIT ${REBUILD_BATCH}`, [last])
    ).map((row) => Number(row.id));
    if (ids.length === 0) {
      // Documents written over others leave the old ones' deletions in SQLite's index until its
      // segments merge: merged now, a search reads only what it finds.
      if (sql.provider === "sqlite") await sql.run(`INSERT INTO "EventSearch" ("EventSearch") VALUES ('optimize')`, []);
      return written;
    }
    const rows = await sql.all(
      `SELECT "eventId", "language", "searchText" FROM "EventText" WHERE "eventId" IN (${ids.join(", ")})`,
      [],
    );
    const byEvent = new Map<number, LanguageSearchText[]>(ids.map((id) => [id, []]));
    for (const row of rows) {
      if (!isLanguage(row.language)) continue;
      byEvent.get(Number(row.eventId))!.push({ language: row.language, searchText: String(row.searchText) });
    }
    const documents = [...byEvent].map(([eventId, texts]) => ({ eventId, texts }));
    await sql.run(searchDocumentsSql(sql.provider, documents.length), searchDocumentsParams(documents));
    written += documents.length;
    progress("search documents", written, Math.max(written, Number(total)));
    last = ids[ids.length - 1];
  }
}
