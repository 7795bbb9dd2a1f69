import BetterSqlite3 from "better-sqlite3";
import type { Client } from "pg";
import type { Database } from "./database";
import type { Progress } from "../logging/progress";
import { rebuildEventSearch, writeMovedDocuments, type SqlRunner } from "../resources/events/event-search-sql";
import { restApiOf } from "../resources/imports/rest-source";

/**
 * Work a migration needs done in code: filling what its SQL created from data that only the
 * service knows how to compute. The migrator runs it right after the migration, in the same
 * transaction. Keyed by migration name.
 */
export const DATA_MIGRATIONS: Record<string, (sql: SqlRunner, progress: Progress) => Promise<unknown>> = {
  // A later migration makes the index again, empty, and its data migration writes every document:
  // on a database that takes both in one upgrade, the earlier one's would be written for nothing.
  "20261121030000_event_search": async () => 0,
  "20261126010000_event_search_by_language": async (sql, progress) =>
    sql.provider === "postgresql" ? rebuildEventSearch(sql, progress) : 0,
  "20261126100000_event_search_by_start": rebuildEventSearch,
  "20261207182442_import_origin": scopeImportedEvents,
  "20261208002719_shared_occurrence_texts": writeMovedDocuments,
};

/**
 * The events REST sources brought, each in the scope of the site of the first source that holds
 * it (provenance.ts): from then on, only that site's sources write it. The digests are the rows'
 * own, in their sources' languages, so that the next run writes nothing that did not change.
 */
async function scopeImportedEvents(sql: SqlRunner): Promise<number> {
  const rows = await sql.all(
    `SELECT "i"."origin", "i"."eventId", "i"."digest", "s"."url", "s"."language" FROM "ImportedItem" "i"
     JOIN "ImportSource" "s" ON "s"."id" = "i"."sourceId"
     WHERE "i"."origin" IS NOT NULL AND "i"."eventId" IS NOT NULL AND "i"."recurrenceId" = ''
     ORDER BY "i"."sourceId"`,
    [],
  );
  const scoped = new Map<string, { scope: string; origin: string; itemId: number; digests: Record<string, string> }>();
  // An event two sites' sources held (it reached this site by two paths) is the first one's.
  const scopeOfEvent = new Map<number, string>();
  for (const row of rows) {
    const scope = restApiOf(String(row.url))?.site;
    if (scope === undefined) continue;
    if ((scopeOfEvent.get(Number(row.eventId)) ?? scope) !== scope) continue;
    scopeOfEvent.set(Number(row.eventId), scope);
    const key = JSON.stringify([scope, row.origin]);
    const entry = scoped.get(key) ?? { scope, origin: String(row.origin), itemId: Number(row.eventId), digests: {} };
    entry.digests[String(row.language)] ??= String(row.digest);
    scoped.set(key, entry);
  }
  const insert =
    sql.provider === "postgresql"
      ? `INSERT INTO "ImportOrigin" ("scope", "kind", "origin", "itemId", "owned", "digests") VALUES ($1, 'event', $2, $3, true, $4) ON CONFLICT DO NOTHING`
      : `INSERT OR IGNORE INTO "ImportOrigin" ("scope", "kind", "origin", "itemId", "owned", "digests") VALUES (?, 'event', ?, ?, 1, ?)`;
  for (const entry of scoped.values())
    await sql.run(insert, [entry.scope, entry.origin, entry.itemId, JSON.stringify(entry.digests)]);
  return scoped.size;
}

export function sqliteRunner(db: BetterSqlite3.Database): SqlRunner {
  return {
    provider: "sqlite",
    all: async (sql, params) => db.prepare(sql).all(...params) as Array<Record<string, unknown>>,
    run: async (sql, params) => {
      db.prepare(sql).run(...params);
    },
  };
}

export function postgresRunner(client: Client): SqlRunner {
  return {
    provider: "postgresql",
    all: async (sql, params) => (await client.query(sql, params)).rows,
    run: async (sql, params) => {
      await client.query(sql, params);
    },
  };
}

export function prismaRunner(db: Database): SqlRunner {
  return {
    provider: db.provider,
    all: (sql, params) => db.write.$queryRawUnsafe<Array<Record<string, unknown>>>(sql, ...params),
    run: async (sql, params) => {
      await db.write.$executeRawUnsafe(sql, ...params);
    },
  };
}
