import { createHash } from "node:crypto";
import type { Database, Provider } from "./database";
import type { Tx } from "./driver-transaction";
import { jsonSql } from "./sql-json";

export type { Tx } from "./driver-transaction";

// PostgreSQL's answers to two transactions that cannot both go on: deadlock, serialization failure.
const TRANSIENT_CODES = new Set(["40P01", "40001"]);
const TRANSIENT_ATTEMPTS = 8;

/** What the database driver said, whether Prisma wrapped its error (meta) or not (cause). */
export function driverCause(error: unknown): { originalCode?: string; kind?: string } | undefined {
  const e = error as {
    cause?: { originalCode?: string; kind?: string };
    meta?: { driverAdapterError?: { cause?: { originalCode?: string; kind?: string } } };
  } | null;
  return e?.meta?.driverAdapterError?.cause ?? (e?.cause && typeof e.cause === "object" ? e.cause : undefined);
}

/** Whether an error is a conflict with a concurrent transaction, which running it again resolves. */
export function isTransientConflict(error: unknown): boolean {
  const cause = driverCause(error);
  const code = (error as { code?: string } | null)?.code;
  return (
    code === "P2034" ||
    TRANSIENT_CODES.has(code ?? "") ||
    TRANSIENT_CODES.has(cause?.originalCode ?? "") ||
    cause?.kind === "TransactionWriteConflict"
  );
}

// An event's categories and tags, for the webhooks' filters: [{"taxonomy", "id"}].
function eventTermsSql(): string {
  const json = jsonSql("sqlite");
  const terms = json.array(
    json.object({ taxonomy: '"t"."taxonomy"', id: '"t"."id"' }),
    '"EventTerm" "et" JOIN "Term" "t" ON "t"."id" = "et"."termId" WHERE "et"."eventId" = "c"."itemId"',
    '"t"."id"',
  );
  return `CASE WHEN "c"."resource" = 'events' THEN CAST(${terms} AS TEXT) ELSE '[]' END`;
}

/**
 * The statements that end every write transaction: they give the changes it logged (database
 * triggers mark the changed items' rows of the sync log pending) their position, the next one of
 * the sync clock. Last, and without parameters, so that PostgreSQL gets them with the COMMIT (see
 * driver-transaction.ts): the clock's row stays locked until the commit, so on PostgreSQL
 * concurrent transactions take positions in the order they commit, and a reader that sees
 * position N sees every change up to N. A transaction that logged nothing leaves the clock alone.
 * Webhooks' notifications of the changes are written here too (the transactional outbox).
 *
 * On PostgreSQL they are one function of the database, "close_write_transaction" (the
 * close_write_transaction migration, which also writes the counts its triggers left pending):
 * its statements are planned once per connection instead of at every commit (sent as text, they
 * were parsed and planned each time, about 2 ms, most of it with the clock's row locked). On
 * SQLite, which writes one transaction at a time and keeps its statements prepared, they are these.
 */
function sqliteClosingStatements(): string[] {
  const position = `(SELECT "seq" FROM "SyncClock" WHERE "id" = 1)`;
  return [
    `UPDATE "SyncClock" SET "seq" = "seq" + 1 WHERE "id" = 1 AND EXISTS (SELECT 1 FROM "SyncChange" WHERE "seq" IS NULL)`,
    // The webhooks' outbox (src/resources/webhooks/): the same changes, at the same position, in the
    // same transaction, while anyone subscribes; with what each item is as it commits: public or
    // not, made by this transaction (its INSERT said so: SyncChange.created) or not, an event's terms.
    `INSERT INTO "WebhookOutbox" ("seq", "resource", "itemId", "visible", "created", "everPublic", "terms")
    SELECT ${position}, "c"."resource", "c"."itemId",
        ${publicNowSql(`"c"`)}, "c"."created", "c"."everPublic", ${eventTermsSql()}
      FROM "SyncChange" "c"
      WHERE "c"."seq" IS NULL AND EXISTS (SELECT 1 FROM "WebhookSubscription")`,
    // An item not public now keeps the position it stopped being public at (see SyncChange.hiddenAt).
    `UPDATE "SyncChange" SET "seq" = ${position}, "created" = FALSE,
      "hiddenAt" = CASE WHEN ${publicNowSql(`"SyncChange"`)} THEN NULL ELSE COALESCE("hiddenAt", ${position}) END
    WHERE "seq" IS NULL`,
  ];
}
const CLOSING_STATEMENTS: Record<Provider, string[]> = {
  sqlite: sqliteClosingStatements(),
  postgresql: [`SELECT "close_write_transaction"()`],
};

/**
 * Whether the item of the change row `change` (a quoted table name or alias of "SyncChange") is
 * public as its change commits: published (a term: it exists). One rule for the change log's
 * `hiddenAt` and the outbox's `visible`.
 */
function publicNowSql(change: string): string {
  const item = (table: string, published: boolean) =>
    `EXISTS (SELECT 1 FROM "${table}" "i" WHERE "i"."id" = ${change}."itemId"${published ? ` AND "i"."status" = 'publish'` : ""})`;
  return `(CASE ${change}."resource"
  WHEN 'events' THEN ${item("Event", true)}
  WHEN 'venues' THEN ${item("Venue", true)}
  WHEN 'organizers' THEN ${item("Organizer", true)}
  ELSE ${item("Term", false)} END)`;
}

type CommitStep = (db: Database, tx: Tx) => Promise<unknown>;
const stepsBeforeCommit: CommitStep[] = [];

/**
 * Work every write transaction does after its own, before its closing statements, whatever it
 * wrote: registered by the data layer whose tables need it (the event search index, whose
 * documents a trigger takes out when their key changes).
 */
export function beforeEveryCommit(step: CommitStep): void {
  stepsBeforeCommit.push(step);
}

async function workThenSteps<T>(db: Database, tx: Tx, work: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await work(tx);
  for (const step of stepsBeforeCommit) await step(db, tx);
  return result;
}

/**
 * Runs `work` in a write transaction. When the database aborts it to break a conflict with a
 * concurrent one (a deadlock), it runs again from the start: everything it did was rolled back.
 */
export async function inTransaction<T>(db: Database, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transact((tx) => workThenSteps(db, tx, work), CLOSING_STATEMENTS[db.provider]);
    } catch (error) {
      if (attempt >= TRANSIENT_ATTEMPTS || !isTransientConflict(error)) throw error;
      // A random pause, longer each time, so that the transactions that collided do not collide again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
    }
  }
}

function lockId(key: string): string {
  return createHash("sha256").update(key).digest().readBigInt64BE(0).toString();
}

/**
 * Serializes the writes that check then insert under the same `key` (e.g. "term-names:tag").
 * On SQLite every write transaction is already alone; on PostgreSQL this takes an advisory lock
 * that the transaction holds until it ends, so concurrent instances take turns.
 */
export async function lockFor(db: Database, tx: Tx, key: string): Promise<void> {
  if (db.provider !== "postgresql") return;
  await tx.$queryRawUnsafe("SELECT pg_advisory_xact_lock($1::bigint)::text AS locked", lockId(key));
}
