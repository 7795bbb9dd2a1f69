import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Database } from "../../db/database";
import { rowsOf, type RowSource } from "../../db/item-records";
import { updateRows } from "../../db/row-writes";
import type { Tx } from "../../db/transaction";
import type { Versioned, WriteTarget } from "../../http/operation-types";
import type { Language } from "../../i18n/languages";
import { itemBySlugSql, type SluggedTable } from "./slug-sql";

/** The tables of the items that writes lock (events, venues, organizers, terms). */
export type ItemTable = "Event" | "Venue" | "Organizer" | "Term";

/**
 * The statements every post (event, venue, organizer) and term share, on whichever of their
 * tables: row locks (raw: Prisma has no FOR UPDATE), the by-slug lookup. Raw statements through
 * the write's transaction; the table names are from closed lists, never from a request.
 */

/**
 * Locks an item's row until the write's transaction ends and returns its version, or null when
 * the item is gone. On PostgreSQL, `FOR NO KEY UPDATE`: other writes of the item wait for this one
 * (so each sees what the one before wrote, and none is lost), while writes that only link to it
 * (which take `KEY SHARE`) do not. SQLite runs one write transaction at a time (BEGIN IMMEDIATE):
 * reading is enough.
 */
export async function lockItem(db: Database, tx: Tx, table: ItemTable, id: number): Promise<number | null> {
  const sql =
    db.provider === "postgresql"
      ? `SELECT "version" FROM "${table}" WHERE "id" = $1 FOR NO KEY UPDATE`
      : `SELECT "version" FROM "${table}" WHERE "id" = ?`;
  const rows = await tx.$queryRawUnsafe<Array<{ version: number | bigint }>>(sql, id);
  return rows.length > 0 ? Number(rows[0].version) : null;
}

/**
 * The item as the write sees it under its lock. When nothing has written it since the request
 * found it (same version) and no precondition needs it read, that is the record the request found,
 * and what was checked then still holds; otherwise it is read again and checked again.
 */
export async function lockTarget<R extends Versioned>(
  db: Database,
  tx: Tx,
  table: ItemTable,
  target: WriteTarget<R>,
  read: () => Promise<R | null>,
): Promise<R> {
  const version = await lockItem(db, tx, table, target.record.id);
  if (version === target.record.version && !target.conditional) return target.record;
  const current = version === null ? null : await read();
  target.verify(current);
  return current;
}

/** How rows an item links to are held: against deletion (`key share`), or against any change (`share`). */
export type LinkLock = "share" | "key share";

/**
 * The rows of `table` among `ids` that exist (outside the trash, if told), their `id`, `status` and
 * `authorId`, locked until the write's transaction ends, in id order (so that writers locking the
 * same rows queue instead of deadlocking). SQLite's single writer needs no lock.
 */
export async function lockRows(
  db: Database,
  tx: Tx,
  table: "Venue" | "Organizer" | "Event",
  ids: number[],
  mode: LinkLock,
  only: { outsideTrash?: boolean } = {},
): Promise<OwnedRow[]> {
  if (ids.length === 0) return [];
  const lock = db.provider === "postgresql" ? Prisma.raw(` FOR ${mode.toUpperCase()}`) : Prisma.empty;
  const extra = only.outsideTrash ? Prisma.sql` AND "status" <> 'trash'` : Prisma.empty;
  const rows = await tx.$queryRaw<Array<{ id: number | bigint; status: string; authorId: number | bigint }>>(
    Prisma.sql`SELECT "id", "status", "authorId" FROM ${Prisma.raw(`"${table}"`)} WHERE "id" IN (${Prisma.join([...new Set(ids)])})${extra} ORDER BY "id"${lock}`,
  );
  return rows.map((row) => ({ id: Number(row.id), status: row.status, authorId: Number(row.authorId) }));
}

export interface OwnedRow {
  id: number;
  status: string;
  authorId: number;
}

/** The id of the item `itemBySlugSql` finds, or null. */
export async function itemIdBySlug(
  source: RowSource,
  table: SluggedTable,
  slug: string,
  language: Language,
  defaultLanguage: Language,
): Promise<number | null> {
  const rows = await rowsOf(source).rows<Record<string, number | bigint>>(
    itemBySlugSql(table, slug, language, defaultLanguage),
  );
  return rows.length > 0 ? Number(Object.values(rows[0])[0]) : null;
}

/**
 * Publishes up to `limit` of the items of `table` scheduled for `now` or before, the earliest
 * first; how many. The status is tested again on each row, so that two instances publishing at
 * once never publish one twice.
 */
export async function publishPostsDue(
  tx: Tx,
  table: Exclude<ItemTable, "Term">,
  now: Date,
  limit: number,
): Promise<number> {
  const quoted = Prisma.raw(`"${table}"`);
  const due = Prisma.sql`"status" = 'future' AND "id" IN (SELECT "id" FROM ${quoted}
    WHERE "status" = 'future' AND "postDate" <= ${now} ORDER BY "postDate", "id" LIMIT ${limit})`;
  // Publishing is a write of the item (its status changes), so it counts in its version.
  return updateRows(tx, table, due, { status: "publish" }, { countVersion: true });
}

/** Whether a user with this id exists (a write naming its author): the posts' one statement on users. */
export async function authorExists(tx: Tx, id: number): Promise<boolean> {
  return (await tx.$queryRaw<unknown[]>`SELECT 1 FROM "User" WHERE "id" = ${id}`).length > 0;
}
