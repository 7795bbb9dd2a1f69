import { Prisma } from "../../generated/prisma/sqlite/client";
import type { Database } from "../db/database";
import { inTransaction } from "../db/transaction";

/**
 * Every statement on the change log ("SyncChange", "SyncClock"; database triggers write it, see
 * src/db/transaction.ts for positions): raw statements, the clock and the cache's catch-up straight
 * through the driver (read on every request), the rest through Prisma's raw calls.
 */

/** The collections that can be kept in sync, named as their paths and the sync log name them. */
export type SyncResource = "events" | "venues" | "organizers" | "categories" | "tags";

/**
 * A place in the change log: after every change up to position `seq` whose item id is at most
 * `itemId` (the changes of one transaction share a position, and are ordered by item id).
 */
export interface LogPosition {
  seq: number;
  itemId: number;
}

/** What the log says of one item: its last change, and who may see that it is gone. */
export interface LoggedChange {
  itemId: number;
  seq: number;
  deleted: boolean;
  everPublic: boolean;
  authorId: number | null;
  /** The position it stopped being public at, while it is not (null: public, or never was). */
  hiddenAt: number | null;
}

const LAST_ITEM_ID = 2_147_483_647;

/**
 * Where the log stands now: a listing read after this sees every change up to it (positions are
 * given as transactions commit, see src/db/transaction.ts), so its token starts here. `horizon`:
 * the oldest position a token may still start from.
 */
export async function logPosition(db: Database): Promise<{ position: LogPosition; horizon: number; epoch: number }> {
  const [clock] = await db.direct.rows<{
    seq: number | bigint | string;
    horizon: number | bigint | string;
    epoch: number | bigint | string;
  }>(Prisma.sql`SELECT "seq", "horizon", "epoch" FROM "SyncClock" WHERE "id" = 1`);
  return {
    position: { seq: Number(clock.seq), itemId: LAST_ITEM_ID },
    horizon: Number(clock.horizon),
    epoch: Number(clock.epoch),
  };
}

/**
 * Moves the log's history on from `seen` (a restore took the clock back: see SyncClock.epoch),
 * unless another instance did already. Every sync token of an earlier epoch is refused from then on.
 */
export async function nextEpoch(db: Database, seen: number): Promise<void> {
  await db.transact(
    (tx) => tx.$executeRaw`UPDATE "SyncClock" SET "epoch" = "epoch" + 1 WHERE "id" = 1 AND "epoch" = ${seen}`,
  );
}

/** The oldest position a token may still start from. */
export async function logHorizon(db: Database): Promise<number> {
  return (await logPosition(db)).horizon;
}

/**
 * The next `limit` changes of a collection after `after`, in log order: one range of the
 * (resource, seq, itemId) index. Changes still under way (no position yet) are not among them.
 */
export async function changesAfter(
  db: Database,
  resource: SyncResource,
  after: LogPosition,
  limit: number,
): Promise<LoggedChange[]> {
  const rows = await db.direct.rows<{
    itemId: number | bigint;
    seq: number | bigint;
    deleted: unknown;
    everPublic: unknown;
    authorId: number | bigint | null;
    hiddenAt: number | bigint | null;
  }>(Prisma.sql`
    SELECT "itemId", "seq", "deleted", "everPublic", "authorId", "hiddenAt" FROM "SyncChange"
      WHERE "resource" = ${resource} AND ("seq", "itemId") > (${after.seq}, ${after.itemId}) ORDER BY "seq", "itemId" LIMIT ${limit}`);
  return rows.map((row) => ({
    itemId: Number(row.itemId),
    seq: Number(row.seq),
    deleted: Boolean(row.deleted),
    everPublic: Boolean(row.everPublic),
    authorId: row.authorId === null ? null : Number(row.authorId),
    hiddenAt: row.hiddenAt === null ? null : Number(row.hiddenAt),
  }));
}

/**
 * Forgets the tombstones of items deleted more than `retentionDays` ago, and moves the horizon
 * past them: a token from before then could no longer learn of those deletions, so it expires.
 * Safe to run from every instance at once.
 */
export async function pruneTombstones(db: Database, now: Date, retentionDays: number): Promise<number> {
  const cutoff = Math.floor(now.getTime() / 1000) - retentionDays * 86_400;
  return inTransaction(db, async (tx) => {
    const [oldest] = await tx.$queryRaw<Array<{ seq: number | bigint | null }>>`
      SELECT MAX("seq") AS "seq" FROM "SyncChange" WHERE "deleted" = ${true} AND "changedAt" < ${cutoff} AND "seq" IS NOT NULL`;
    if (oldest.seq === null) return 0;
    const seq = Number(oldest.seq);
    await tx.$executeRaw`UPDATE "SyncClock" SET "horizon" = ${seq} WHERE "id" = 1 AND "horizon" < ${seq}`;
    return tx.$executeRaw`DELETE FROM "SyncChange" WHERE "deleted" = ${true} AND "seq" <= ${seq}`;
  });
}

/** The items changed after position `seq` (resource and id, in log order), at most `limit`. */
export function changedItemsAfter(
  db: Database,
  seq: number,
  limit: number,
): Promise<Array<{ resource: string; itemId: number }>> {
  return db.direct.rows(
    Prisma.sql`SELECT "resource", "itemId" FROM "SyncChange" WHERE "seq" > ${seq} ORDER BY "seq" LIMIT ${limit}`,
  );
}
