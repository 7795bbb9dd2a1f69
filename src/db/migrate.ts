import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import type { Client } from "pg";
import { silent, type Progress } from "../logging/progress";
import { DATA_MIGRATIONS, postgresRunner, sqliteRunner } from "./data-migrations";
import { CONNECT_TIMEOUT_MS, makeSqliteFolder, providerOf, sqlitePath, type Provider } from "./database";
import { pgDriver } from "./pg-driver";
import { projectPath } from "../project-root";

/**
 * Applies the checked-in migrations of prisma/<provider>/migrations that the database lacks.
 *
 * It keeps Prisma's own bookkeeping table (`_prisma_migrations`, same columns, same sha256
 * checksums), so `prisma migrate status` and `prisma migrate deploy` agree with it, but it
 * needs no CLI process, which keeps the service's start-up short. Several processes may call
 * it at once: on PostgreSQL an advisory lock held by the one transaction that applies them all, on
 * SQLite an immediate transaction, lets one of them migrate while the others wait and then find
 * nothing left to do. A migration that needs
 * data computed in code (data-migrations.ts) gets it in the same transaction; `prisma migrate
 * deploy` would skip that step, so use `npm run migrate`.
 */

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationResult {
  applied: string[];
}

const MIGRATIONS_ROOT = projectPath("prisma");
// An arbitrary constant that identifies this service's migration lock among advisory locks.
export const PG_MIGRATION_LOCK_KEY = 7_317_040_417;

export function migrationsOf(provider: Provider): Migration[] {
  const folder = join(MIGRATIONS_ROOT, provider, "migrations");
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(folder, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/** What each migration applied so far left in the bookkeeping table. */
const APPLIED_SQL = `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`;

function pending(all: Migration[], applied: AppliedRow[]): Migration[] {
  const unfinished = applied.find((row) => row.finished_at === null && row.rolled_back_at === null);
  if (unfinished) {
    throw new Error(
      `migration ${unfinished.migration_name} started but did not finish; repair the database before starting`,
    );
  }
  const done = new Map(
    applied.filter((row) => row.rolled_back_at === null).map((row) => [row.migration_name, row.checksum]),
  );
  for (const migration of all) {
    const checksum = done.get(migration.name);
    if (checksum !== undefined && checksum !== migration.checksum) {
      throw new Error(`migration ${migration.name} was changed after it was applied (checksum mismatch)`);
    }
  }
  return all.filter((migration) => !done.has(migration.name));
}

async function migrateSqlite(databaseUrl: string, progress: Progress): Promise<MigrationResult> {
  const path = sqlitePath(databaseUrl);
  makeSqliteFolder(path);
  const db = new BetterSqlite3(path, { timeout: 30_000 });
  try {
    db.pragma("journal_mode = WAL");
    db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL,
      "checksum" TEXT NOT NULL,
      "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL,
      "logs" TEXT,
      "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
      "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
    )`);
    db.exec("BEGIN IMMEDIATE");
    try {
      const applied = db.prepare(APPLIED_SQL).all() as AppliedRow[];
      const todo = pending(migrationsOf("sqlite"), applied);
      const record = db.prepare(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
         VALUES (?, ?, ?, ?, ?, 1)`,
      );
      for (const [index, migration] of todo.entries()) {
        const startedAt = Date.now();
        progress(`migration ${migration.name}`, index, todo.length);
        db.exec(migration.sql);
        await DATA_MIGRATIONS[migration.name]?.(sqliteRunner(db), progress);
        progress("migrations", index + 1, todo.length);
        record.run(randomUUID(), migration.checksum, Date.now(), migration.name, startedAt);
      }
      db.exec("COMMIT");
      return { applied: todo.map((m) => m.name) };
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  } finally {
    db.close();
  }
}

function startupClient(databaseUrl: string): Client {
  const client = new (pgDriver().Client)({
    connectionString: databaseUrl,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // A connection that drops (while a migration waits for another instance's lock, say) fails the
  // statement under way, which the start reports; its `error` event must not end the process first.
  client.on("error", () => undefined);
  return client;
}

async function migratePostgres(databaseUrl: string, progress: Progress): Promise<MigrationResult> {
  const client = startupClient(databaseUrl);
  await client.connect();
  try {
    // One transaction, under a lock that ends with it: through a pooler in transaction mode
    // (PgBouncer), every statement of a session may run on another server connection, and a
    // session's lock would be left behind on one of them. A role's statement_timeout (how the
    // service's limit reaches it through such a pooler) does not cut a long data migration short.
    // The limit is lifted before the lock is asked for: waiting for another instance's migrations
    // is a statement too, and under the role's 30 s limit a start that waited longer failed.
    await client.query("BEGIN");
    try {
      await client.query("SET LOCAL statement_timeout = 0");
      await client.query("SET LOCAL lock_timeout = 0");
      await client.query("SELECT pg_advisory_xact_lock($1)", [PG_MIGRATION_LOCK_KEY]);
      await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id" VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum" VARCHAR(64) NOT NULL,
        "finished_at" TIMESTAMPTZ,
        "migration_name" VARCHAR(255) NOT NULL,
        "logs" TEXT,
        "rolled_back_at" TIMESTAMPTZ,
        "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`);
      const { rows } = await client.query<AppliedRow>(APPLIED_SQL);
      const todo = pending(migrationsOf("postgresql"), rows);
      for (const [index, migration] of todo.entries()) {
        const startedAt = new Date();
        progress(`migration ${migration.name}`, index, todo.length);
        await client.query(migration.sql);
        await DATA_MIGRATIONS[migration.name]?.(postgresRunner(client), progress);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, $4, 1)`,
          [randomUUID(), migration.checksum, migration.name, startedAt],
        );
        progress("migrations", index + 1, todo.length);
      }
      await client.query("COMMIT");
      return { applied: todo.map((m) => m.name) };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    await client.end();
  }
}

/**
 * The migrations the database lacks, read without writing anything (for a start with
 * MIGRATE_ON_START=false, which must not serve a database this version cannot use).
 */
export async function missingMigrations(databaseUrl: string): Promise<string[]> {
  const provider = providerOf(databaseUrl);
  const appliedRows = provider === "postgresql" ? await appliedOnPostgres(databaseUrl) : appliedOnSqlite(databaseUrl);
  return pending(migrationsOf(provider), appliedRows).map((migration) => migration.name);
}

function appliedOnSqlite(databaseUrl: string): AppliedRow[] {
  const path = sqlitePath(databaseUrl);
  if (!existsSync(path)) return [];
  const db = new BetterSqlite3(path, { readonly: true, timeout: 30_000 });
  try {
    const bookkept = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = '_prisma_migrations'`).get();
    return bookkept ? (db.prepare(APPLIED_SQL).all() as AppliedRow[]) : [];
  } finally {
    db.close();
  }
}

async function appliedOnPostgres(databaseUrl: string): Promise<AppliedRow[]> {
  const client = startupClient(databaseUrl);
  await client.connect();
  try {
    const { rows } = await client.query<{ bookkept: string | null }>(
      `SELECT to_regclass('"_prisma_migrations"') AS bookkept`,
    );
    if (rows[0].bookkept === null) return [];
    return (await client.query<AppliedRow>(APPLIED_SQL)).rows;
  } finally {
    await client.end();
  }
}

/** Applies the pending migrations; `progress` hears of each (the CLI shows it on a terminal). */
export async function migrate(databaseUrl: string, progress: Progress = silent): Promise<MigrationResult> {
  return providerOf(databaseUrl) === "postgresql"
    ? migratePostgres(databaseUrl, progress)
    : migrateSqlite(databaseUrl, progress);
}
