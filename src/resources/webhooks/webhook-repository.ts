import { Prisma, type WebhookDelivery, type WebhookSubscription } from "../../../generated/prisma/sqlite/client";
import { insertRows } from "../../db/bulk-insert";
import type { Database } from "../../db/database";
import { readCount, rowsOf, type RowSource } from "../../db/item-records";
import {
  inList,
  insertRowReturningId,
  instantOf,
  numberOrNullOf,
  updateRows,
  type ColumnsOf,
} from "../../db/row-writes";
import type { Tx } from "../../db/transaction";

/**
 * Every statement on the webhook tables ("WebhookSubscription", "WebhookDelivery",
 * "WebhookOutbox", "WebhookItemState"). Pages for the administrators' routes are Prisma calls;
 * every write, and every read inside one, is a raw statement through the driver (its transaction:
 * db/driver-transaction.ts), as the service's writes all are: the claim of due deliveries (UPDATE
 * ... RETURNING with SKIP LOCKED), the outbox (written by database triggers), the fan-out's
 * deliveries and told states, the pruning of told states (NOT EXISTS over other tables).
 */

/** A delivery a worker has claimed (its lease taken, its attempt counted). */
export interface ClaimedDelivery {
  id: number;
  messageId: string;
  subscriptionId: number;
  payload: string;
  attempts: number;
  giveUpAt: number;
}

/** A change waiting in the outbox (the database's triggers write it with the change). */
export interface OutboxRow {
  id: number;
  seq: number;
  resource: "events" | "venues" | "organizers" | "categories" | "tags";
  itemId: number;
  visible: unknown;
  created: unknown;
  everPublic: unknown;
  terms: string;
}

/** Columns of a subscription's row, as writes give them. */
export type SubscriptionColumns = ColumnsOf<WebhookSubscription>;

/** A subscription's row, as the driver reads it (booleans and instants as the database gives them: see subscriptionRowOf). */
const SUBSCRIPTION_COLUMNS = Prisma.raw(
  `"id", "url", "description", "eventTypes", "filter", "language", "active", "pausedReason", "secret", "createdAt", "modifiedAt"`,
);

function subscriptionRowOf(row: Record<string, unknown>): WebhookSubscription {
  return {
    ...(row as unknown as WebhookSubscription),
    id: Number(row.id),
    active: Boolean(row.active),
    createdAt: instantOf(row.createdAt)!,
    modifiedAt: instantOf(row.modifiedAt)!,
  };
}

export async function insertSubscription(
  db: Database,
  columns: SubscriptionColumns & { url: string; eventTypes: string; language: string; secret: string },
  now: Date,
): Promise<WebhookSubscription> {
  return db.transact(async (tx) => {
    const id = await insertRowReturningId(tx, "WebhookSubscription", { ...columns, createdAt: now, modifiedAt: now });
    return (await subscriptionRows(tx, [id]))[0];
  });
}

/**
 * Writes a subscription's columns; when `resume` is given (it was paused and is made active), its
 * waiting deliveries become due now, each with a whole retry period ahead. Null: no such subscription.
 */
export function saveSubscription(
  db: Database,
  id: number,
  columns: SubscriptionColumns,
  resume: (before: { active: boolean }) => { now: number; giveUpAt: number } | null,
): Promise<WebhookSubscription | null> {
  return db.transact(async (tx) => {
    const [before] = await subscriptionRows(tx, [id]);
    if (!before) return null;
    const resumed = resume(before);
    await updateRows(tx, "WebhookSubscription", Prisma.sql`"id" = ${id}`, columns);
    if (resumed) {
      const { now, giveUpAt } = resumed;
      const waiting = Prisma.sql`"subscriptionId" = ${id} AND "status" = 'pending'`;
      await updateRows(tx, "WebhookDelivery", waiting, { nextAttemptAt: now, giveUpAt, leaseUntil: null });
    }
    return (await subscriptionRows(tx, [id]))[0];
  });
}

export async function subscriptionRow(db: Database, id: number): Promise<WebhookSubscription | null> {
  return (await subscriptionRows(db, [id]))[0] ?? null;
}

/** Subscriptions (all of them, or those of `ids`), by id, through the driver: outside a write (`db.direct`) or in it. */
export async function subscriptionRows(source: RowSource, ids?: number[]): Promise<WebhookSubscription[]> {
  const where = ids ? inList("id", ids) : Prisma.sql`1 = 1`;
  const rows = await rowsOf(source).rows<Record<string, unknown>>(
    Prisma.sql`SELECT ${SUBSCRIPTION_COLUMNS} FROM "WebhookSubscription" WHERE ${where} ORDER BY "id"`,
  );
  return rows.map(subscriptionRowOf);
}

export async function subscriptionPage(
  db: Database,
  offset: number,
  limit: number,
): Promise<{ rows: WebhookSubscription[]; total: number }> {
  const [rows, total] = await Promise.all([
    db.direct.rows<Record<string, unknown>>(
      Prisma.sql`SELECT ${SUBSCRIPTION_COLUMNS} FROM "WebhookSubscription" ORDER BY "id" LIMIT ${limit} OFFSET ${offset}`,
    ),
    readCount(db, Prisma.sql`SELECT COUNT(*) AS "total" FROM "WebhookSubscription"`),
  ]);
  return { rows: rows.map(subscriptionRowOf), total };
}

const DELIVERY_COLUMNS = Prisma.raw(
  `"id", "messageId", "subscriptionId", "type", "resource", "itemId", "seq", "payload", "status", "attempts", "createdAt",
  "nextAttemptAt", "leaseUntil", "giveUpAt", "completedAt", "lastAttemptAt", "lastStatusCode", "lastDurationMs", "lastError"`,
);

function deliveryRowOf(row: Record<string, unknown>): WebhookDelivery {
  return {
    ...(row as unknown as WebhookDelivery),
    id: Number(row.id),
    subscriptionId: Number(row.subscriptionId),
    itemId: Number(row.itemId),
    seq: Number(row.seq),
    attempts: Number(row.attempts),
    createdAt: Number(row.createdAt),
    nextAttemptAt: Number(row.nextAttemptAt),
    leaseUntil: numberOrNullOf(row.leaseUntil),
    giveUpAt: Number(row.giveUpAt),
    completedAt: numberOrNullOf(row.completedAt),
    lastAttemptAt: numberOrNullOf(row.lastAttemptAt),
    lastStatusCode: numberOrNullOf(row.lastStatusCode),
    lastDurationMs: numberOrNullOf(row.lastDurationMs),
  };
}

/** Deletes a subscription, and with it (the foreign key cascades) its deliveries; whether there was one. */
export async function deleteSubscriptionRow(db: Database, id: number): Promise<boolean> {
  return (await db.transact((tx) => tx.$executeRaw`DELETE FROM "WebhookSubscription" WHERE "id" = ${id}`)) > 0;
}

/** Pauses a subscription whose delivery failed for its whole retry period, and records the failure. */
export async function failDeliveryAndPause(
  db: Database,
  delivery: { id: number; attempts: number; subscriptionId: number },
  columns: DeliveryUpdate,
  now: number,
): Promise<void> {
  await db.transact(async (tx) => {
    await updateRows(tx, "WebhookDelivery", stillClaimed(delivery), columns);
    await updateRows(tx, "WebhookSubscription", Prisma.sql`"id" = ${delivery.subscriptionId}`, {
      active: false,
      pausedReason: "failing",
      modifiedAt: new Date(now),
    });
  });
}

/** What an attempt records of a delivery. */
export type DeliveryUpdate = Omit<ColumnsOf<WebhookDelivery>, "id" | "attempts">;

/** The delivery, while the attempt still holds its claim (the attempt count it claimed with). */
function stillClaimed(delivery: { id: number; attempts: number }): Prisma.Sql {
  return Prisma.sql`"id" = ${delivery.id} AND "attempts" = ${delivery.attempts}`;
}

/** Records an attempt of a delivery, when the attempt still holds the claim (same attempt count). */
export async function recordAttempt(
  db: Database,
  delivery: { id: number; attempts: number },
  columns: DeliveryUpdate,
): Promise<void> {
  await db.transact((tx) => updateRows(tx, "WebhookDelivery", stillClaimed(delivery), columns));
}

/** A page of a subscription's deliveries, newest first, and their number. */
export async function deliveryPage(
  db: Database,
  subscriptionId: number,
  status: string | undefined,
  offset: number,
  limit: number,
) {
  const where = status
    ? Prisma.sql`"subscriptionId" = ${subscriptionId} AND "status" = ${status}`
    : Prisma.sql`"subscriptionId" = ${subscriptionId}`;
  const [rows, total] = await Promise.all([
    db.direct.rows<Record<string, unknown>>(
      Prisma.sql`SELECT ${DELIVERY_COLUMNS} FROM "WebhookDelivery" WHERE ${where} ORDER BY "id" DESC LIMIT ${limit} OFFSET ${offset}`,
    ),
    readCount(db, Prisma.sql`SELECT COUNT(*) AS "total" FROM "WebhookDelivery" WHERE ${where}`),
  ]);
  return { rows: rows.map(deliveryRowOf), total };
}

/** Deletes sent and failed deliveries completed before `before`; how many. */
export async function deleteCompletedDeliveries(db: Database, before: number): Promise<number> {
  return await db.transact(
    (tx) => tx.$executeRaw`DELETE FROM "WebhookDelivery"
        WHERE "status" IN ('delivered', 'failed') AND "completedAt" < ${before}`,
  );
}

/** A delivery's row. */
export async function deliveryRow(db: Database, id: number): Promise<WebhookDelivery> {
  const [row] = await db.direct.rows<Record<string, unknown>>(
    Prisma.sql`SELECT ${DELIVERY_COLUMNS} FROM "WebhookDelivery" WHERE "id" = ${id}`,
  );
  if (!row) throw new Error(`webhook delivery ${id} is gone`);
  return deliveryRowOf(row);
}

/**
 * Claims up to `limit` due deliveries. On PostgreSQL, rows another worker is claiming are
 * skipped (FOR UPDATE SKIP LOCKED) rather than waited for; SQLite has one writer at a time.
 */
export async function claimDue(db: Database, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
  const lock = db.provider === "postgresql" ? Prisma.sql`FOR UPDATE OF "d" SKIP LOCKED` : Prisma.empty;
  const rows = await db.transact(
    (tx) => tx.$queryRaw<ClaimedDelivery[]>`
    UPDATE "WebhookDelivery" SET "leaseUntil" = ${now + leaseMs}, "attempts" = "attempts" + 1
    WHERE "id" IN (
      SELECT "d"."id" FROM "WebhookDelivery" "d" JOIN "WebhookSubscription" "s" ON "s"."id" = "d"."subscriptionId" AND "s"."active" = ${true}
      WHERE "d"."status" = 'pending' AND "d"."nextAttemptAt" <= ${now} AND ("d"."leaseUntil" IS NULL OR "d"."leaseUntil" < ${now})
        AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" "e" WHERE "e"."subscriptionId" = "d"."subscriptionId" AND "e"."resource" = "d"."resource"
          AND "e"."itemId" = "d"."itemId" AND "e"."status" = 'pending' AND "e"."id" < "d"."id")
      ORDER BY "d"."id" LIMIT ${limit} ${lock})
    RETURNING "id", "messageId", "subscriptionId", "payload", "attempts", "giveUpAt"`,
  );
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    subscriptionId: Number(row.subscriptionId),
    attempts: Number(row.attempts),
    giveUpAt: Number(row.giveUpAt),
  }));
}

/** What waits: changes in the outbox (not yet notifications) and notifications not yet delivered (for /metrics). */
export async function webhookQueueDepths(db: Database): Promise<{ changes: number; deliveries: number }> {
  const [row] = await db.direct.rows<{ changes: number | bigint; deliveries: number | bigint }>(
    Prisma.sql`SELECT (SELECT COUNT(*) FROM "WebhookOutbox") AS "changes",
      (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "status" = 'pending') AS "deliveries"`,
  );
  return { changes: Number(row.changes), deliveries: Number(row.deliveries) };
}

/** Whether any change waits in the outbox (a read, without the write lock). */
export async function outboxHasChanges(db: Database): Promise<boolean> {
  return (await db.direct.rows(Prisma.sql`SELECT 1 FROM "WebhookOutbox" LIMIT 1`)).length > 0;
}

/** The first `limit` changes of the outbox, in log order. */
export function outboxChanges(tx: Tx, limit: number): Promise<OutboxRow[]> {
  return tx.$queryRaw<
    OutboxRow[]
  >`SELECT "id", "seq", "resource", "itemId", "visible", "created", "everPublic", "terms" FROM "WebhookOutbox" ORDER BY "seq", "id" LIMIT ${limit}`;
}

export async function deleteOutboxChanges(tx: Tx, ids: number[]): Promise<void> {
  await tx.$executeRaw`DELETE FROM "WebhookOutbox" WHERE "id" IN (${Prisma.join(ids)})`;
}

/** What subscribers were last told of these items of a collection. */
export async function toldStateRows(
  tx: Tx,
  resource: string,
  ids: number[],
): Promise<Array<{ itemId: number; visible: boolean; terms: string }>> {
  const rows = await tx.$queryRaw<Array<{ itemId: number | bigint; visible: unknown; terms: string }>>`
    SELECT "itemId", "visible", "terms" FROM "WebhookItemState" WHERE "resource" = ${resource} AND ${inList("itemId", ids)}`;
  return rows.map((row) => ({ itemId: Number(row.itemId), visible: Boolean(row.visible), terms: row.terms }));
}

/** Replaces what subscribers were told of items of a collection. */
export async function saveToldStates(
  tx: Tx,
  resource: string,
  rows: Array<{ itemId: number; visible: boolean; terms: string }>,
): Promise<void> {
  await tx.$executeRaw`DELETE FROM "WebhookItemState" WHERE "resource" = ${resource} AND ${inList(
    "itemId",
    rows.map((row) => row.itemId),
  )}`;
  await insertRows(
    tx,
    "WebhookItemState",
    rows.map((row) => ({ resource, ...row })),
  );
}

/** Makes deliveries, many at once. */
export async function insertDeliveries(tx: Tx, rows: DeliveryColumns[]): Promise<void> {
  await insertRows(tx, "WebhookDelivery", rows);
}

/** The number of waiting deliveries of each of these subscriptions. */
export async function waitingCounts(
  tx: Tx,
  subscriptionIds: number[],
): Promise<Array<{ subscriptionId: number; waiting: number }>> {
  const counts = await tx.$queryRaw<Array<{ subscriptionId: number | bigint; waiting: number | bigint | string }>>`
    SELECT "subscriptionId", COUNT(*) AS "waiting" FROM "WebhookDelivery"
    WHERE ${inList("subscriptionId", subscriptionIds)} AND "status" = 'pending' GROUP BY "subscriptionId"`;
  return counts.map((row) => ({ subscriptionId: Number(row.subscriptionId), waiting: Number(row.waiting) }));
}

/** A subscription's waiting delivery of `type`, if any. */
export async function waitingOfType(
  tx: Tx,
  subscriptionId: number,
  type: string,
): Promise<{ id: number; payload: string } | null> {
  const [row] = await tx.$queryRaw<Array<{ id: number | bigint; payload: string }>>`
    SELECT "id", "payload" FROM "WebhookDelivery"
    WHERE "subscriptionId" = ${subscriptionId} AND "status" = 'pending' AND "type" = ${type} ORDER BY "id" LIMIT 1`;
  return row ? { id: Number(row.id), payload: row.payload } : null;
}

/** The oldest `limit` waiting deliveries of a subscription not of `type` and not being sent (no live lease). */
export async function oldestWaitingOtherThan(
  tx: Tx,
  subscriptionId: number,
  type: string,
  now: number,
  limit: number,
): Promise<Array<{ id: number; resource: string; itemId: number; seq: number }>> {
  const rows = await tx.$queryRaw<Array<Record<"id" | "itemId" | "seq", number | bigint> & { resource: string }>>`
    SELECT "id", "resource", "itemId", "seq" FROM "WebhookDelivery"
    WHERE "subscriptionId" = ${subscriptionId} AND "status" = 'pending' AND "type" <> ${type}
      AND ("leaseUntil" IS NULL OR "leaseUntil" < ${now})
    ORDER BY "id" LIMIT ${limit}`;
  return rows.map((row) => ({
    id: Number(row.id),
    resource: row.resource,
    itemId: Number(row.itemId),
    seq: Number(row.seq),
  }));
}

export async function deleteDeliveries(tx: Tx, ids: number[]): Promise<void> {
  await tx.$executeRaw`DELETE FROM "WebhookDelivery" WHERE ${inList("id", ids)}`;
}

export async function saveDeliveryPayload(tx: Tx, id: number, payload: string): Promise<void> {
  await updateRows(tx, "WebhookDelivery", Prisma.sql`"id" = ${id}`, { payload });
}

/** Makes a delivery (a ping's, in its own statement; a gap notice's, in the fan-out's transaction). */
export function insertDelivery(tx: Tx, columns: DeliveryColumns): Promise<number> {
  return insertRowReturningId(tx, "WebhookDelivery", columns);
}

/** Columns of a delivery's row, as writes give them. */
export type DeliveryColumns = ColumnsOf<WebhookDelivery> & {
  messageId: string;
  subscriptionId: number;
  type: string;
  resource: string;
  itemId: number;
  payload: string;
  status: string;
  createdAt: number;
  nextAttemptAt: number;
  giveUpAt: number;
};

/**
 * Forgets what subscribers were told of items that are gone for good (deleted, not trashed), and
 * of every item when no subscription is left (a change not yet fanned out keeps its item's state).
 */
export function deleteToldStatesOfGoneItems(db: Database): Promise<number> {
  return db.transact(
    (tx) => tx.$executeRaw`DELETE FROM "WebhookItemState"
    WHERE NOT EXISTS (SELECT 1 FROM "WebhookOutbox" "o" WHERE "o"."resource" = "WebhookItemState"."resource" AND "o"."itemId" = "WebhookItemState"."itemId")
      AND (NOT EXISTS (SELECT 1 FROM "WebhookSubscription")
        OR ("resource" = 'events' AND NOT EXISTS (SELECT 1 FROM "Event" "i" WHERE "i"."id" = "WebhookItemState"."itemId"))
        OR ("resource" = 'venues' AND NOT EXISTS (SELECT 1 FROM "Venue" "i" WHERE "i"."id" = "WebhookItemState"."itemId"))
        OR ("resource" = 'organizers' AND NOT EXISTS (SELECT 1 FROM "Organizer" "i" WHERE "i"."id" = "WebhookItemState"."itemId"))
        OR ("resource" IN ('categories', 'tags') AND NOT EXISTS (SELECT 1 FROM "Term" "i" WHERE "i"."id" = "WebhookItemState"."itemId")))`,
  );
}
