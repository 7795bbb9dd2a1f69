import BetterSqlite3 from "better-sqlite3";
import type { CustomTypesConfig, Pool, PoolClient } from "pg";
import { Prisma } from "../../generated/prisma/sqlite/client";
import type { Provider } from "./provider";
import { postgresQuery, preparedStatements, sqliteValue } from "./direct-reads";
import { pgDriver } from "./pg-driver";

/**
 * The one door writes go through: a transaction of the driver itself (better-sqlite3, pg), its
 * statements the `Prisma.sql` fragments the data layer builds. Prisma's interactive transaction
 * costs 0.3 ms of CPU per statement (its query compiler, its transaction manager's promise chain),
 * an ORM statement up to 1.4 ms; a write of ten statements spent 3.3 ms (raw) or 14 ms (ORM) there
 * against 0.6 ms on the driver, fsync included. The methods keep the names and forms of Prisma's
 * raw ones (a tagged template, or a `Prisma.Sql`), so a statement reads the same whichever client
 * runs it. Rows come back as the driver gives them: SQLite's integers as numbers, booleans as 0/1
 * and instants as ISO text; PostgreSQL's counts as text and instants as Dates (UTC, below).
 */
export interface Tx {
  readonly provider: Provider;
  /** The rows of a statement (as `db.direct` reads them outside a write: see item-records.ts). */
  rows<T>(query: Prisma.Sql): Promise<T[]>;
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
  /** A statement written with the dialect's own placeholders (`?` on SQLite, `$1` on PostgreSQL). */
  $queryRawUnsafe<T = unknown>(sql: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>;
}

/**
 * Runs `work` in one transaction of the write connection, then `closing` (statements without
 * parameters that end it: the change log's, see db/transaction.ts), and commits; or rolls it all
 * back when one throws. PostgreSQL gets the closing statements and COMMIT in one round trip, so a
 * row they lock (the sync clock's) stays locked only while the transaction commits.
 */
export type Transact = <T>(work: (tx: Tx) => Promise<T>, closing?: readonly string[]) => Promise<T>;

export interface DriverWriter {
  transact: Transact;
  /** Runs `work` when no transaction of this writer runs, none starting until it ends (SQLite; PostgreSQL's connections need no turns). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function sqlOf(query: TemplateStringsArray | Prisma.Sql, values: unknown[]): Prisma.Sql {
  return query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
}

/** A transaction's statements, from how one runs a statement and answers its rows or its count. */
function txOf(
  provider: Provider,
  rows: (sql: string, values: unknown[]) => Promise<unknown[]>,
  count: (sql: string, values: unknown[]) => Promise<number>,
): Tx {
  const text = (query: Prisma.Sql) => (provider === "postgresql" ? query.text : query.sql);
  return {
    provider,
    rows: async <T>(query: Prisma.Sql) => (await rows(text(query), query.values)) as T[],
    $queryRaw: async <T>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
      const sql = sqlOf(query, values);
      return (await rows(text(sql), sql.values)) as T;
    },
    $executeRaw: (query, ...values) => {
      const sql = sqlOf(query, values);
      return count(text(sql), sql.values);
    },
    $queryRawUnsafe: async <T>(sql: string, ...values: unknown[]) => (await rows(sql, values)) as T,
    $executeRawUnsafe: (sql, ...values) => count(sql, values),
  };
}

/** How many waiting transactions one SQLite commit takes at most (see sqliteWriter). */
const GROUP_COMMIT_LIMIT = 16;

interface WaitingTransaction {
  work: (tx: Tx) => Promise<unknown>;
  closing: readonly string[];
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * SQLite: the process's one write connection (WAL, with `pragmas`), its prepared statements kept.
 * Transactions run one at a time, in the order asked. Those that wait while one runs are run
 * together as a group, each in a savepoint of one transaction, and committed at once (group
 * commit): a commit's fsync costs as much as a create's statements (1.1 ms for 41 pages), and
 * the group pays it once. A transaction that throws rolls back to its savepoint and fails alone;
 * none is answered before the commit that makes it durable. The transaction begins `IMMEDIATE`
 * (it takes the write lock at once, waiting for another process's up to the busy timeout,
 * instead of failing when that one commits between its reads and its writes). Every statement
 * runs synchronously to its end, so a group holds the thread only for its own statements.
 */
export function sqliteWriter(path: string, busyTimeoutMs: number, pragmas: string): DriverWriter {
  const connection = new BetterSqlite3(path, { timeout: busyTimeoutMs });
  connection.exec(pragmas);
  const statementOf = preparedStatements(connection);
  const tx = txOf(
    "sqlite",
    async (sql, values) => {
      const statement = statementOf(sql);
      const bound = values.map(sqliteValue);
      if (statement.reader) return statement.all(...bound);
      statement.run(...bound);
      return [];
    },
    async (sql, values) => {
      const statement = statementOf(sql);
      const bound = values.map(sqliteValue);
      if (statement.reader) return statement.all(...bound).length;
      return statement.run(...bound).changes;
    },
  );
  const [begin, commit, rollback, savepoint, release, rollbackToSavepoint] = [
    "BEGIN IMMEDIATE",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT one_write",
    "RELEASE one_write",
    "ROLLBACK TO one_write",
  ].map((sql) => connection.prepare(sql));
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };
  const waiting: WaitingTransaction[] = [];
  let groupQueued = false;
  const runGroup = async () => {
    const group = waiting.splice(0, GROUP_COMMIT_LIMIT);
    groupQueued = false;
    queueGroup();
    let done: Array<{ transaction: WaitingTransaction; result: unknown }> = [];
    const failAll = (error: unknown) => {
      for (const { transaction } of done) transaction.reject(error);
      done = [];
    };
    for (const transaction of group) {
      try {
        if (!connection.inTransaction) begin.run();
        savepoint.run();
        const result = await transaction.work(tx);
        for (const statement of transaction.closing) statementOf(statement).run();
        release.run();
        done.push({ transaction, result });
      } catch (error) {
        transaction.reject(error);
        if (connection.inTransaction) {
          rollbackToSavepoint.run();
          release.run();
        } else {
          // SQLite ended the whole transaction itself (a full disk, an I/O error): what the group
          // did before is gone too.
          failAll(error);
        }
      }
    }
    if (!connection.inTransaction) return;
    try {
      commit.run();
    } catch (error) {
      if (connection.inTransaction) rollback.run();
      failAll(error);
    }
    for (const { transaction, result } of done) transaction.resolve(result);
  };
  // A group starts on the event loop's next turn, so that the requests read in this one join it.
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  const queueGroup = () => {
    if (groupQueued || waiting.length === 0) return;
    groupQueued = true;
    void exclusive(() => nextTurn().then(runGroup));
  };
  return {
    transact: <T>(work: (tx: Tx) => Promise<T>, closing: readonly string[] = []) =>
      new Promise<T>((resolve, reject) => {
        waiting.push({ work, closing, resolve: resolve as (result: unknown) => void, reject });
        queueGroup();
      }),
    exclusive,
    close: async () => {
      await queue;
      connection.close();
    },
  };
}

// PostgreSQL's `timestamp` (without time zone), as Prisma stores instants: UTC wall clock. The pg
// driver would read it in the process's time zone.
const TIMESTAMP_OID = 1114;
const utcTimestamps: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP_OID
      ? (value: string) => new Date(`${value.replace(" ", "T")}Z`)
      : pgDriver().types.getTypeParser(oid, format)) as CustomTypesConfig["getTypeParser"],
};

/**
 * PostgreSQL: a connection of the pool Prisma's adapter uses too (they share its size and its
 * statement limit), held for the transaction. A connection whose BEGIN or ROLLBACK fails is not
 * returned to the pool.
 */
export function postgresWriter(pool: Pool, prepared: boolean): DriverWriter {
  const statementsOn = (client: PoolClient) => {
    const query = (text: string, values: unknown[]) =>
      client.query({ ...postgresQuery(text, values, prepared), types: utcTimestamps });
    return txOf(
      "postgresql",
      async (text, values) => (await query(text, values)).rows,
      async (text, values) => {
        const result = await query(text, values);
        return result.command === "SELECT" ? result.rows.length : (result.rowCount ?? 0);
      },
    );
  };
  return {
    transact: async <T>(work: (tx: Tx) => Promise<T>, closing: readonly string[] = []) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      try {
        const result = await work(statementsOn(client));
        // Without parameters, pg sends them as one simple query: all run, or none after a failing one.
        await client.query([...closing, "COMMIT"].join(";\n"));
        client.release();
        return result;
      } catch (error) {
        let broken: Error | undefined;
        await client.query("ROLLBACK").catch((failed: Error) => (broken = failed));
        client.release(broken);
        throw error;
      }
    },
    exclusive: (work) => work(),
    // The pool is Prisma's adapter's too: whoever opened it ends it.
    close: async () => undefined,
  };
}
