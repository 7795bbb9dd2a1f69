import type { Database } from "../../src/db/database";
import { KEY_ID_MASK, searchDocumentsSql } from "../../src/resources/events/event-search-sql";
import { searchTokens } from "../../src/text/search-tokens";

/**
 * Takes an event out of the search index: its document (on SQLite its rowid is its key, which
 * holds the id, or a series' -id), and on PostgreSQL its words too.
 */
export async function deleteSearchDocument(db: Database, eventId: number): Promise<void> {
  await db.write.$executeRawUnsafe(
    db.provider === "postgresql"
      ? `DELETE FROM "EventSearch" WHERE "eventId" = $1`
      : `DELETE FROM "EventSearch" WHERE "rowid" IN (SELECT "rowid" FROM "EventSearch" WHERE "rowid" >= 0 AND ("rowid" & ${KEY_ID_MASK}) = ? UNION ALL SELECT -?)`,
    ...(db.provider === "postgresql" ? [eventId] : [eventId, eventId]),
  );
  if (db.provider === "postgresql")
    await db.write.$executeRawUnsafe(`DELETE FROM "EventSearchWord" WHERE "eventId" = $1`, eventId);
}

/**
 * Writes an event's search document, of its English `words`, as an instance of the version before
 * the index's last migration wrote it while running beside this one. PostgreSQL, before
 * 20261126010000_event_search_by_language: each word's suffixes in hexadecimal, without the
 * languages' marks. SQLite, before 20261126100000_event_search_by_start: this version's tokens,
 * under the event's id instead of its key.
 */
export async function writeEarlierSearchDocument(db: Database, eventId: number, words: string[]): Promise<void> {
  if (db.provider === "postgresql") {
    const earlierTokens = words.map((word) => Buffer.from(word).toString("hex")).join(" ");
    await db.write.$executeRawUnsafe(searchDocumentsSql(db.provider, 1), eventId, earlierTokens);
    return;
  }
  await deleteSearchDocument(db, eventId);
  const tokens = searchTokens([{ language: "en", searchText: words.join(" ") }]).join(" ");
  await db.write.$executeRawUnsafe(`INSERT INTO "EventSearch" ("rowid", "tokens") VALUES (?, ?)`, eventId, tokens);
}
