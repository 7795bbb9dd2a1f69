import BetterSqlite3 from "better-sqlite3";
import type { Client } from "pg";
import type { Database } from "./database";
import type { Progress } from "../logging/progress";
import { rebuildEventSearch, type SqlRunner } from "../resources/events/event-search-sql";

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
};

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
