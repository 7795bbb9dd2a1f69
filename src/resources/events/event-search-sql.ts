import type { Provider } from "../../db/database";
import { silent, type Progress } from "../../logging/progress";
import { searchTokens } from "../../text/search-tokens";

/**
 * The event search index ("EventSearch", created by hand in the event_search migrations): one
 * document of search tokens per event, over all its languages. See search-tokens.ts.
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

/** The parameters of `searchDocumentsSql` for these events' search texts (all languages). */
export function searchDocumentsParams(
  events: Array<{ eventId: number; searchTexts: Iterable<string> }>,
): Array<number | string> {
  return events.flatMap(({ eventId, searchTexts }) => [eventId, searchTokens(searchTexts).join(" ")]);
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
    if (ids.length === 0) return written;
    const texts = await sql.all(
      `SELECT "eventId", "searchText" FROM "EventText" WHERE "eventId" IN (${ids.join(", ")})`,
      [],
    );
    const byEvent = new Map<number, string[]>(ids.map((id) => [id, []]));
    for (const row of texts) byEvent.get(Number(row.eventId))!.push(String(row.searchText));
    const documents = [...byEvent].map(([eventId, searchTexts]) => ({ eventId, searchTexts }));
    await sql.run(searchDocumentsSql(sql.provider, documents.length), searchDocumentsParams(documents));
    written += documents.length;
    progress("search documents", written, Math.max(written, Number(total)));
    last = ids[ids.length - 1];
  }
}
