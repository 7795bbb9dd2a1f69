import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { Prisma } from "../../generated/prisma/postgresql/client";
import { keepNativeHandles } from "./native-handles";
import { PrismaClient as SqliteClient } from "../../generated/prisma/sqlite/client";
import { postgresDirectReads, sqliteDirectReads, type DirectReads } from "./direct-reads";
import { pgAdapter, pgDriver } from "./pg-driver";
import { postgresWriter, sqliteWriter, type DriverWriter, type Transact } from "./driver-transaction";
import type { Provider } from "./provider";
import type { Pool, PoolClient } from "pg";

/**
 * The Prisma client type the data layer is written against. The PostgreSQL client is generated
 * from the same models; its model and query types are the same, only `$transaction` isolation
 * level names differ, which this code does not use.
 */
export type Db = SqliteClient;

export type { Provider } from "./provider";

export interface Database {
  provider: Provider;
  /**
   * Prisma's client for reads outside a write (on SQLite, a separate read-only connection: see
   * openSqlite), made on first use: the service reads through `direct`, and a Prisma client made
   * at start cost the service 35 MB (idle 156 MB against 120); the seeder, the command line and
   * tests still use it.
   */
  read: Db;
  /**
   * The service's writes: one driver transaction each (driver-transaction.ts), through
   * `inTransaction` (db/transaction.ts), which logs their changes.
   */
  transact: Transact;
  /**
   * Prisma's client for writes outside the service's requests (seeding, data migrations, tests'
   * fixtures). On SQLite each of its statements waits for the service's transaction under way, as
   * transactions wait for one another.
   */
  write: Db;
  /** The hot reads outside a write, straight through the driver (see direct-reads.ts). */
  direct: DirectReads;
  /** How the PostgreSQL pool is used now (for /metrics); null on SQLite, which has no pool. */
  poolUse(): PoolUse | null;
  /**
   * What keeps the service from using the database as it is set (found at start, before anything
   * is migrated): a role without the session settings, a pooler that loses prepared statements;
   * null when nothing does. SQLite: always null.
   */
  startupProblem(): Promise<string | null>;
  close(): Promise<void>;
}

export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface DatabaseOptions {
  databaseUrl: string;
  databasePoolSize: number;
  /**
   * Longest a PostgreSQL statement may run, default 30 s (0: no limit, for bulk jobs). A request's
   * client has given up long before: without a limit, a query that outlives its request (a broad
   * search over a million events) keeps a connection of the pool and a server process busy for
   * minutes, and the requests after it wait.
   */
  statementTimeoutMs?: number;
  /**
   * PostgreSQL: whether the service's statements are prepared once per connection (default), or
   * sent unnamed, for a connection pooler that does not keep prepared statements (PgBouncer in
   * transaction mode before 1.21, or without `max_prepared_statements`).
   */
  databasePreparedStatements?: boolean;
  /**
   * PostgreSQL: how the service's session settings (SESSION_SETTINGS) reach its connections:
   * `startup`, sent when each connection opens (default); `role`, set on the database role
   * (ALTER ROLE ... SET), for a pooler in transaction mode that refuses startup parameters
   * (PgBouncer): the service then checks at start that they are there (sessionSettingsProblem).
   */
  databaseSessionSettings?: "startup" | "role";
}

keepNativeHandles();

const PG_STATEMENT_TIMEOUT_MS = 30_000;
const PG_WORK_MEM_MB = 32;

/**
 * What every service connection to PostgreSQL runs with. The statement limit: a request's client
 * has given up long before. JIT compilation pays off for long analytical queries; here it took
 * 25 ms to 180 ms of a broad search's 110 ms (a plan whose estimated cost passes jit_above_cost),
 * on every execution. A search's bitmap of matches outgrows the default 4 MB of work_mem at
 * 1,000,000 events ("festival", 158,000 matches): lossy, it made every row of its pages be checked
 * against the words again (4.8 s; 1.75 s with 32 MB). Each connection uses it only while it needs it.
 */
export const SESSION_SETTINGS = {
  statement_timeout: `${PG_STATEMENT_TIMEOUT_MS / 1000}s`,
  jit: "off",
  work_mem: `${PG_WORK_MEM_MB}MB`,
} as const;
const PREPARED_CONNECTION_USES = 20_000;

/**
 * How long a new connection may take, made and logged in: of the first of a start (behind
 * PgBouncer with PostgreSQL down, the pooler holds a login for its client_login_timeout, 60 s,
 * before it says so; the operator learns it in seconds instead: startup-errors.ts), and of every
 * later one of the pool (a request then gets a 503).
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/** How much longer than its statement limit the driver waits for a statement's answer (the server ends it first). */
const QUERY_TIMEOUT_MARGIN_MS = 5_000;

export function providerOf(databaseUrl: string): Provider {
  return /^postgres(ql)?:\/\//.test(databaseUrl) ? "postgresql" : "sqlite";
}

/** `file:./data/calendar.db` → absolute path of the database file. */
export function sqlitePath(databaseUrl: string): string {
  return resolve(databaseUrl.replace(/^file:/, "").replace(/\?.*$/, ""));
}

/**
 * Makes the folders an SQLite file goes in, one level at a time: Node's recursive mkdir never
 * returns for a folder that cannot be made under /proc (it tries the same level again).
 */
export function makeSqliteFolder(path: string): void {
  const missing: string[] = [];
  for (let folder = dirname(path); !existsSync(folder) && dirname(folder) !== folder; folder = dirname(folder))
    missing.unshift(folder);
  for (const folder of missing) mkdirSync(folder);
}

// Settings of the write connection. WAL lets the read connection read while a write is under
// way; synchronous=FULL makes every acknowledged commit durable, even across a power cut.
// `optimize` (with a bounded sample, so that it takes milliseconds even on a large file) gathers
// the statistics the query planner needs to pick, say, a venue's few links over a date range
// of thousands of events; SQLite keeps none unless asked. It is run again every hour, as the
// SQLite documentation advises for long-lived connections: it re-analyzes only the tables that
// changed a lot.
const SQLITE_WRITE_PRAGMAS =
  "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; PRAGMA analysis_limit = 1000; PRAGMA optimize = 0x10002;";
const SQLITE_OPTIMIZE_EVERY_MS = 3_600_000;
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

interface SqliteStatement {
  reader: boolean;
  columns(): unknown[];
  raw(on?: boolean): SqliteStatement;
  all(params: unknown[]): unknown[];
  run(params: unknown[]): unknown;
}
type DriverHandle = { prepare(sql: string): unknown };
type AdapterConnection = { executeScript(script: string): Promise<void>; client: DriverHandle };

const STATEMENT_CACHE_SIZE = 500;

/**
 * Reuses prepared statements. The adapter prepares every query from scratch (SQLite compiles
 * it each time, a tenth of a request's CPU on the event reads) and binds its parameters for
 * good. Here `prepare` returns a cached statement behind a binding that passes the parameters
 * at each run instead; better-sqlite3 runs a statement synchronously to its end, so requests
 * never share one half-way.
 *
 * With `immediate` (the write connection), transactions take the write lock when they begin
 * (`BEGIN IMMEDIATE`). The adapter begins them with a deferred `BEGIN`: a transaction that reads
 * first and writes later then fails at once (SQLITE_BUSY_SNAPSHOT) when another process (another
 * worker) committed in between, which the busy timeout does not retry; with `BEGIN IMMEDIATE` it
 * waits for the lock instead, up to the busy timeout. But the adapter (6.19) never releases its
 * transaction mutex when `BEGIN` fails, after which every write of the process waits forever: so
 * when the lock cannot be had in time, a deferred transaction is begun instead, and its first
 * statement fails with the busy error (Prisma then rolls back, which releases the mutex).
 */
function cacheStatements(client: DriverHandle, immediate = false): void {
  const prepare = client.prepare.bind(client) as (sql: string) => SqliteStatement;
  const cache = new Map<string, SqliteStatement>();
  let failedBegin: unknown;
  const cachedStatement = (sql: string): SqliteStatement => {
    let statement = cache.get(sql);
    if (statement) {
      cache.delete(sql);
    } else {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  };
  const begin = () => {
    try {
      cachedStatement("BEGIN IMMEDIATE").run([]);
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
      cachedStatement("BEGIN").run([]);
      failedBegin = error;
    }
  };
  // The first statement after a failed BEGIN IMMEDIATE reports it; the rollback does not.
  const reportFailedBegin = (sql: string) => {
    if (failedBegin === undefined) return;
    const error = failedBegin;
    failedBegin = undefined;
    if (sql !== "ROLLBACK") throw error;
  };
  client.prepare = (sql: string) => {
    const cached = cachedStatement(sql);
    return {
      // The adapter begins transactions with prepare("BEGIN").run(), without binding.
      run: () => (immediate && sql === "BEGIN" ? begin() : cached.run([])),
      bind: (params: unknown[]) => ({
        reader: cached.reader,
        columns: () => cached.columns(),
        raw: () => ({
          all: () => {
            reportFailedBegin(sql);
            return cached.raw(true).all(params);
          },
        }),
        run: () => {
          reportFailedBegin(sql);
          return cached.run(params);
        },
      }),
    };
  };
}

/**
 * Prisma's write connection: runs the connection settings; each statement waits until no driver
 * transaction (the service's writes) runs, and holds them off until it ends: two write
 * connections of one process must not wait for each other's lock (better-sqlite3 waits
 * synchronously, so the one holding it could never finish).
 */
function prismaWriteClient(path: string, writer: DriverWriter): Db {
  const factory = sqliteAdapter(path, false, async (adapter) => {
    await adapter.executeScript(SQLITE_WRITE_PRAGMAS);
    cacheStatements(adapter.client, true);
  });
  const client = new SqliteClient({ adapter: factory });
  return client.$extends({
    query: { $allOperations: ({ args, query }) => writer.exclusive(() => query(args)) },
  }) as unknown as Db;
}

function prismaReadClient(path: string): Db {
  return new SqliteClient({ adapter: sqliteAdapter(path, true, async (adapter) => cacheStatements(adapter.client)) });
}

/** Prisma's SQLite adapter for the file at `path`, each of its connections set up by `setUp` once opened. */
function sqliteAdapter(
  path: string,
  readonly: boolean,
  setUp: (adapter: AdapterConnection) => Promise<void>,
): PrismaBetterSQLite3 {
  const factory = new PrismaBetterSQLite3({ url: `file:${path}`, timeout: SQLITE_BUSY_TIMEOUT_MS, readonly });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const connection = await connect();
    await setUp(connection as unknown as AdapterConnection);
    return connection;
  };
  return factory;
}

/**
 * The SQLite adapter runs every query of a client on one connection, and an interactive
 * transaction holds that connection between its statements. A read issued by another request
 * meanwhile would see the transaction's uncommitted rows, and a write would become part of it.
 * So writes get a connection of their own (transactions on it are serialized by the adapter),
 * and reads another, read-only one, which under WAL sees only committed data.
 */
async function openSqlite(databaseUrl: string): Promise<Database> {
  const path = sqlitePath(databaseUrl);
  makeSqliteFolder(path);
  const writer = sqliteWriter(path, SQLITE_BUSY_TIMEOUT_MS, SQLITE_WRITE_PRAGMAS);
  // Made on first use: the service uses neither (two Prisma clients and connections fewer).
  let write: Db | undefined;
  let read: Db | undefined;
  const direct = sqliteDirectReads(path, SQLITE_BUSY_TIMEOUT_MS);
  const optimizer = setInterval(
    () => void writer.transact((tx) => tx.$executeRawUnsafe("PRAGMA optimize")).catch(() => undefined),
    SQLITE_OPTIMIZE_EVERY_MS,
  );
  optimizer.unref();
  return {
    provider: "sqlite",
    get read() {
      return (read ??= prismaReadClient(path));
    },
    transact: writer.transact,
    get write() {
      return (write ??= prismaWriteClient(path, writer));
    },
    direct,
    poolUse: () => null,
    startupProblem: async () => null,
    async close() {
      clearInterval(optimizer);
      await direct.close();
      await read?.$disconnect();
      await write?.$disconnect();
      await writer.close();
    },
  };
}

async function openPostgres(
  databaseUrl: string,
  poolSize: number,
  statementTimeoutMs: number,
  prepared: boolean,
  sessionSettings: "startup" | "role",
): Promise<Database> {
  // Loaded only when PostgreSQL is used: each provider has its own generated client.
  const { PrismaClient } = require("../../generated/prisma/postgresql/client") as {
    PrismaClient: new (options: unknown) => unknown;
  };
  // With `role`, the role brings SESSION_SETTINGS (checked at start); a pooler would refuse them here.
  const atStartup = sessionSettings === "startup";
  const pool = new (pgDriver().Pool)({
    connectionString: databaseUrl,
    max: poolSize,
    statement_timeout: atStartup ? statementTimeoutMs : undefined,
    options: atStartup ? `-c jit=${SESSION_SETTINGS.jit} -c work_mem=${SESSION_SETTINGS.work_mem}` : undefined,
    // A connection's prepared statements live as long as it does; replacing it now and then bounds
    // them (lists prepare one statement per length of their id lists, say).
    maxUses: prepared ? PREPARED_CONNECTION_USES : undefined,
    // A database that does not answer (a network that drops packets rather than refusing them) is
    // a 503 within these bounds, never a request left waiting: a new connection within the start's
    // connect limit, a statement within its limit and a margin (the server ends it first). A bulk
    // job's statements have no limit (0), and no margin either.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: statementTimeoutMs > 0 ? statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS : undefined,
    keepAlive: true,
  });
  // An idle connection that breaks (a server restart) is dropped by the pool; without a listener it would end the process.
  pool.on("error", () => undefined);
  // So would one that breaks while it is checked out (inside a transaction, in a migration's lock
  // wait): pg-pool takes its own listener off a client it hands out, and node-postgres emits
  // `error` on the client besides failing its query. The query's failure is what the caller sees
  // (a 503); the client, broken, is not given back to the pool.
  pool.on("connect", (client) => client.on("error", () => undefined));
  // Made on first use, as on SQLite.
  let client: Db | undefined;
  const prisma = () => (client ??= new PrismaClient({ adapter: new (pgAdapter().PrismaPg)(pool) }) as Db);
  const direct = postgresDirectReads(pool, prepared);
  return {
    provider: "postgresql",
    get read() {
      return prisma();
    },
    transact: postgresWriter(pool, prepared).transact,
    get write() {
      return prisma();
    },
    direct,
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolSize }),
    async startupProblem() {
      if (sessionSettings === "role") {
        const lacking = await sessionSettingsProblem({ direct });
        if (lacking !== null) return lacking;
      }
      return prepared ? preparedStatementsProblem(pool) : null;
    },
    async close() {
      await client?.$disconnect();
      await pool.end();
    },
  };
}

export function openDatabase(options: DatabaseOptions): Promise<Database> {
  return providerOf(options.databaseUrl) === "postgresql"
    ? openPostgres(
        options.databaseUrl,
        options.databasePoolSize,
        options.statementTimeoutMs ?? PG_STATEMENT_TIMEOUT_MS,
        options.databasePreparedStatements ?? true,
        options.databaseSessionSettings ?? "startup",
      )
    : openSqlite(options.databaseUrl);
}

/** How many times the probe looks for another server connection behind a pooler before it takes the session as stable. */
const PROBE_TRIES = 8;

/**
 * Whether the statements the service prepares survive from one transaction to the next: a pooler
 * in transaction mode (PgBouncer) gives each transaction a server connection, and before 1.21
 * (or without `max_prepared_statements`) one prepared on one server connection is unknown on
 * another (`prepared statement "…" does not exist`: a 500 for almost every request). The probe
 * prepares a statement in one transaction and runs it again in one that another client made land
 * on another server connection (their backends' pids tell); directly on PostgreSQL, or behind a
 * pooler that keeps prepared statements, it runs. Null when it does, else what to set.
 */
async function preparedStatementsProblem(pool: Pool): Promise<string | null> {
  const [prober, holder] = [await pool.connect(), await pool.connect()];
  const probe = { name: "calendar_startup_probe", text: "SELECT 1" };
  const pid = async (client: PoolClient) =>
    Number((await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid);
  try {
    await prober.query("BEGIN");
    const preparedOn = await pid(prober);
    await prober.query(probe);
    await prober.query("COMMIT");
    for (let tries = 0; tries < PROBE_TRIES; tries += 1) {
      // The holder takes a server connection in its own transaction, so that the prober's next one gets another.
      await holder.query("BEGIN");
      await pid(holder);
      await prober.query("BEGIN");
      const now = await pid(prober);
      const elsewhere = now !== preparedOn;
      const failed = elsewhere
        ? await prober.query(probe).then(
            () => null,
            (error: Error) => error,
          )
        : null;
      await prober.query("ROLLBACK").catch(() => undefined);
      await holder.query("COMMIT");
      if (failed !== null)
        return `DATABASE_PREPARED_STATEMENTS: the connection pooler does not keep prepared statements from one transaction to the next (${failed.message}): set DATABASE_PREPARED_STATEMENTS=false, or use PgBouncer 1.21 or later with max_prepared_statements`;
      if (elsewhere) return null;
    }
    return null;
  } finally {
    prober.release(true);
    holder.release(true);
  }
}

/**
 * With DATABASE_SESSION_SETTINGS=role, whether the role brings SESSION_SETTINGS to the service's
 * connections: null if so, else what to run. (A longer or shorter statement limit is the
 * operator's choice; none at all is not.)
 */
export async function sessionSettingsProblem(db: Pick<Database, "direct">): Promise<string | null> {
  const rows = await db.direct.rows<{ name: string; setting: string; role: string }>(
    Prisma.sql`SELECT "name", "setting", current_user AS "role" FROM pg_settings
      WHERE "name" IN ('statement_timeout', 'jit', 'work_mem')`,
  );
  const setting = (name: string) => rows.find((row) => row.name === name)?.setting;
  const lacking = [
    Number(setting("statement_timeout")) === 0 && "statement_timeout",
    setting("jit") !== "off" && "jit",
    // In kB.
    Number(setting("work_mem")) < PG_WORK_MEM_MB * 1024 && "work_mem",
  ].filter((name): name is keyof typeof SESSION_SETTINGS => name !== false);
  if (lacking.length === 0) return null;
  const role = rows[0]?.role.replace(/"/g, '""');
  const statements = lacking.map((name) => `ALTER ROLE "${role}" SET ${name} = '${SESSION_SETTINGS[name]}';`);
  return `DATABASE_SESSION_SETTINGS=role, and the role lacks ${lacking.join(", ")}: run ${statements.join(" ")} then have the pooler open new connections (PgBouncer: RECONNECT in its console), and start again`;
}
