import { createHash } from "node:crypto";
import type { Prisma } from "../../generated/prisma/sqlite/client";
import type { Database } from "./database";

export type Tx = Prisma.TransactionClient;

// Writes queue for the SQLite write connection (one transaction at a time), so a burst of
// them can wait far longer than Prisma's 2 s default before theirs starts.
const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 30_000 };

export function inTransaction<T>(db: Database, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.write.$transaction(work, TRANSACTION_OPTIONS);
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
