import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import type { Pool, QueryConfig } from "pg";
import type { Prisma } from "../../generated/prisma/sqlite/client";
import type { Provider } from "./provider";

/**
 * Reads that go to the driver straight, past Prisma: the hot reads of every request (an item, a
 * page, a total, the change log's clock). Prisma costs a fixed 0.2–0.3 ms of CPU per statement,
 * raw ones included (its query compiler and result mapping), several times what these statements
 * cost themselves (~15 µs on SQLite). They take the same `Prisma.sql` fragments the data layer
 * builds, and bind their values as Prisma's adapters do, so a statement reads the same rows
 * whichever way it is sent. Rows come back as the driver gives them (SQLite: numbers and text;
 * PostgreSQL: counts as text, JSON parsed).
 */
export interface DirectReads {
  readonly provider: Provider;
  rows<T>(query: Prisma.Sql): Promise<T[]>;
  close(): Promise<void>;
}

const STATEMENT_CACHE_SIZE = 500;

/** A value as the SQLite adapter binds it: booleans as 0/1, instants as ISO text (Prisma's stored form). */
export function sqliteValue(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  return value;
}

/** An instant as the PostgreSQL adapter binds it: UTC wall clock, for `timestamp` columns. */
export function postgresValue(value: unknown): unknown {
  if (!(value instanceof Date)) return value;
  return value
    .toISOString()
    .replace("T", " ")
    .replace(/\.000Z$|Z$/, "");
}

/** A connection's statements, prepared once and kept (at most STATEMENT_CACHE_SIZE, the least recently made going first). */
export function preparedStatements(connection: BetterSqlite3.Database): (sql: string) => BetterSqlite3.Statement {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      statement = connection.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
}

/**
 * A read-only connection of its own, beside Prisma's: under WAL it reads committed data only,
 * and its prepared statements are kept (SQLite compiles a statement in about as long as it runs).
 */
export function sqliteDirectReads(path: string, busyTimeoutMs: number): DirectReads {
  const connection = new BetterSqlite3(path, { readonly: true, timeout: busyTimeoutMs });
  const statementOf = preparedStatements(connection);
  return {
    provider: "sqlite",
    rows: async <T>(query: Prisma.Sql) => statementOf(query.sql).all(...query.values.map(sqliteValue)) as T[],
    close: async () => {
      connection.close();
    },
  };
}

const statementNames = new Map<string, string>();

/**
 * The name a PostgreSQL statement is prepared under on each connection, the same for the same
 * text: the server then parses and plans it once per connection (its generic plan, after a few
 * custom ones, when that plan is no costlier) instead of at each execution. Planning was 40 % of an
 * event read's time on the server (0.53 ms of 1.2 ms) and 0.8 ms of a create's read-back.
 */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    if (statementNames.size >= STATEMENT_CACHE_SIZE) statementNames.delete(statementNames.keys().next().value!);
    name = `s${createHash("sha1").update(text).digest("base64url").slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** A statement for pg: named when `prepared` (see statementName), its values bound as Prisma's adapter binds them. */
export function postgresQuery(text: string, values: unknown[], prepared: boolean): QueryConfig {
  return { name: prepared ? statementName(text) : undefined, text, values: values.map(postgresValue) };
}

/**
 * Through the pool Prisma's adapter uses too, so that the two share its connections and limit;
 * `prepared`: statements named (see statementName), or sent unnamed for a pooler that cannot keep them.
 */
export function postgresDirectReads(pool: Pool, prepared: boolean): DirectReads {
  return {
    provider: "postgresql",
    rows: async <T>(query: Prisma.Sql) =>
      (await pool.query(postgresQuery(query.text, query.values, prepared))).rows as T[],
    // The pool is Prisma's adapter's too: whoever opened it ends it.
    close: async () => undefined,
  };
}
