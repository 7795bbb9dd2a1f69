import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Database } from "../../db/database";
import type { Tx } from "../../db/transaction";

/**
 * Every statement on the webhook tables ("WebhookSubscription", "WebhookDelivery",
 * "WebhookOutbox", "WebhookItemState"). Prisma calls for rows of one table; raw statements where
 * Prisma has no form for them: the claim of due deliveries (UPDATE ... RETURNING with SKIP LOCKED),
 * reading and emptying the outbox (written by database triggers), and the pruning of told states
 * (NOT EXISTS over other tables).
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

export function insertSubscription(db: Database, data: Prisma.WebhookSubscriptionUncheckedCreateInput) {
  return db.write.webhookSubscription.create({ data });
}

/**
 * Writes a subscription's columns; when `resume` is given (it was paused and is made active), its
 * waiting deliveries become due now, each with a whole retry period ahead. Null: no such subscription.
 */
export function saveSubscription(
  db: Database,
  id: number,
  data: Prisma.WebhookSubscriptionUncheckedUpdateInput,
  resume: (before: { active: boolean }) => { now: number; giveUpAt: number } | null,
) {
  return db.write.$transaction(async (tx) => {
    const before = await tx.webhookSubscription.findUnique({ where: { id } });
    if (!before) return null;
    const resumed = resume(before);
    const row = await tx.webhookSubscription.update({ where: { id }, data });
    if (resumed) {
      await tx.webhookDelivery.updateMany({
        where: { subscriptionId: id, status: "pending" },
        data: { nextAttemptAt: resumed.now, giveUpAt: resumed.giveUpAt, leaseUntil: null },
      });
    }
    return row;
  });
}

export function subscriptionRow(db: Database, id: number) {
  return db.read.webhookSubscription.findUnique({ where: { id } });
}

export function subscriptionRows(client: Database["read"] | Tx, ids?: number[]) {
  return client.webhookSubscription.findMany({ where: ids ? { id: { in: ids } } : {}, orderBy: { id: "asc" } });
}

export async function subscriptionPage(db: Database, offset: number, limit: number) {
  const [rows, total] = await Promise.all([
    db.read.webhookSubscription.findMany({ orderBy: { id: "asc" }, skip: offset, take: limit }),
    db.read.webhookSubscription.count(),
  ]);
  return { rows, total };
}

/** Deletes a subscription, and with it (the foreign key cascades) its deliveries; whether there was one. */
export async function deleteSubscriptionRow(db: Database, id: number): Promise<boolean> {
  return (await db.write.webhookSubscription.deleteMany({ where: { id } })).count > 0;
}

/** Pauses a subscription whose delivery failed for its whole retry period, and records the failure. */
export async function failDeliveryAndPause(
  db: Database,
  delivery: { id: number; attempts: number; subscriptionId: number },
  data: Prisma.WebhookDeliveryUpdateManyMutationInput,
  now: number,
): Promise<void> {
  await db.write.$transaction([
    db.write.webhookDelivery.updateMany({ where: { id: delivery.id, attempts: delivery.attempts }, data }),
    db.write.webhookSubscription.updateMany({
      where: { id: delivery.subscriptionId },
      data: { active: false, pausedReason: "failing", modifiedAt: new Date(now) },
    }),
  ]);
}

/** Records an attempt of a delivery, when the attempt still holds the claim (same attempt count). */
export async function recordAttempt(
  db: Database,
  delivery: { id: number; attempts: number },
  data: Prisma.WebhookDeliveryUpdateManyMutationInput,
): Promise<void> {
  await db.write.webhookDelivery.updateMany({ where: { id: delivery.id, attempts: delivery.attempts }, data });
}

/** A page of a subscription's deliveries, newest first, and their number. */
export async function deliveryPage(
  db: Database,
  subscriptionId: number,
  status: string | undefined,
  offset: number,
  limit: number,
) {
  const where = { subscriptionId, ...(status ? { status } : {}) };
  const [rows, total] = await Promise.all([
    db.read.webhookDelivery.findMany({ where, orderBy: { id: "desc" }, skip: offset, take: limit }),
    db.read.webhookDelivery.count({ where }),
  ]);
  return { rows, total };
}

/** Deletes sent and failed deliveries completed before `before`; how many. */
export async function deleteCompletedDeliveries(db: Database, before: number): Promise<number> {
  return (
    await db.write.webhookDelivery.deleteMany({
      where: { status: { in: ["delivered", "failed"] }, completedAt: { lt: before } },
    })
  ).count;
}

/**
 * Claims up to `limit` due deliveries. On PostgreSQL, rows another worker is claiming are
 * skipped (FOR UPDATE SKIP LOCKED) rather than waited for; SQLite has one writer at a time.
 */
export async function claimDue(db: Database, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
  const lock = db.provider === "postgresql" ? Prisma.sql`FOR UPDATE OF "d" SKIP LOCKED` : Prisma.empty;
  const rows = await db.write.$queryRaw<ClaimedDelivery[]>`
    UPDATE "WebhookDelivery" SET "leaseUntil" = ${now + leaseMs}, "attempts" = "attempts" + 1
    WHERE "id" IN (
      SELECT "d"."id" FROM "WebhookDelivery" "d" JOIN "WebhookSubscription" "s" ON "s"."id" = "d"."subscriptionId" AND "s"."active" = ${true}
      WHERE "d"."status" = 'pending' AND "d"."nextAttemptAt" <= ${now} AND ("d"."leaseUntil" IS NULL OR "d"."leaseUntil" < ${now})
        AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" "e" WHERE "e"."subscriptionId" = "d"."subscriptionId" AND "e"."resource" = "d"."resource"
          AND "e"."itemId" = "d"."itemId" AND "e"."status" = 'pending' AND "e"."id" < "d"."id")
      ORDER BY "d"."id" LIMIT ${limit} ${lock})
    RETURNING "id", "messageId", "subscriptionId", "payload", "attempts", "giveUpAt"`;
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    subscriptionId: Number(row.subscriptionId),
    attempts: Number(row.attempts),
    giveUpAt: Number(row.giveUpAt),
  }));
}

/** Whether any change waits in the outbox (a read, without the write lock). */
export async function outboxHasChanges(db: Database): Promise<boolean> {
  return (await db.read.$queryRaw<unknown[]>`SELECT 1 FROM "WebhookOutbox" LIMIT 1`).length > 0;
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
export function toldStateRows(tx: Tx, resource: string, ids: number[]) {
  return tx.webhookItemState.findMany({ where: { resource, itemId: { in: ids } } });
}

/** Replaces what subscribers were told of items of a collection. */
export async function saveToldStates(
  tx: Tx,
  resource: string,
  rows: Array<{ itemId: number; visible: boolean; terms: string }>,
): Promise<void> {
  await tx.webhookItemState.deleteMany({ where: { resource, itemId: { in: rows.map((row) => row.itemId) } } });
  await tx.webhookItemState.createMany({ data: rows.map((row) => ({ resource, ...row })) });
}

/** Makes deliveries, many at once. */
export async function insertDeliveries(tx: Tx, rows: Prisma.WebhookDeliveryCreateManyInput[]): Promise<void> {
  await tx.webhookDelivery.createMany({ data: rows });
}

/** The number of waiting deliveries of each of these subscriptions. */
export async function waitingCounts(
  tx: Tx,
  subscriptionIds: number[],
): Promise<Array<{ subscriptionId: number; waiting: number }>> {
  const counts = await tx.webhookDelivery.groupBy({
    by: ["subscriptionId"],
    where: { subscriptionId: { in: subscriptionIds }, status: "pending" },
    _count: { _all: true },
  });
  return counts.map((row) => ({ subscriptionId: row.subscriptionId, waiting: row._count._all }));
}

/** A subscription's waiting delivery of `type`, if any. */
export function waitingOfType(tx: Tx, subscriptionId: number, type: string) {
  return tx.webhookDelivery.findFirst({
    where: { subscriptionId, status: "pending", type },
    select: { id: true, payload: true },
  });
}

/** The oldest `limit` waiting deliveries of a subscription not of `type` and not being sent (no live lease). */
export function oldestWaitingOtherThan(tx: Tx, subscriptionId: number, type: string, now: number, limit: number) {
  return tx.webhookDelivery.findMany({
    where: {
      subscriptionId,
      status: "pending",
      type: { not: type },
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
    },
    orderBy: { id: "asc" },
    take: limit,
    select: { id: true, resource: true, itemId: true, seq: true },
  });
}

export async function deleteDeliveries(tx: Tx, ids: number[]): Promise<void> {
  await tx.webhookDelivery.deleteMany({ where: { id: { in: ids } } });
}

export async function saveDeliveryPayload(tx: Tx, id: number, payload: string): Promise<void> {
  await tx.webhookDelivery.update({ where: { id }, data: { payload } });
}

/** Makes a delivery (a ping's, in its own statement; a gap notice's, in the fan-out's transaction). */
export function insertDelivery(client: Database["write"] | Tx, data: Prisma.WebhookDeliveryUncheckedCreateInput) {
  return client.webhookDelivery.create({ data });
}

/**
 * Forgets what subscribers were told of items that are gone for good (deleted, not trashed), and
 * of every item when no subscription is left (a change not yet fanned out keeps its item's state).
 */
export function deleteToldStatesOfGoneItems(db: Database): Promise<number> {
  return db.write.$executeRaw`DELETE FROM "WebhookItemState"
    WHERE NOT EXISTS (SELECT 1 FROM "WebhookOutbox" "o" WHERE "o"."resource" = "WebhookItemState"."resource" AND "o"."itemId" = "WebhookItemState"."itemId")
      AND (NOT EXISTS (SELECT 1 FROM "WebhookSubscription")
        OR ("resource" = 'events' AND NOT EXISTS (SELECT 1 FROM "Event" "i" WHERE "i"."id" = "WebhookItemState"."itemId"))
        OR ("resource" = 'venues' AND NOT EXISTS (SELECT 1 FROM "Venue" "i" WHERE "i"."id" = "WebhookItemState"."itemId"))
        OR ("resource" = 'organizers' AND NOT EXISTS (SELECT 1 FROM "Organizer" "i" WHERE "i"."id" = "WebhookItemState"."itemId"))
        OR ("resource" IN ('categories', 'tags') AND NOT EXISTS (SELECT 1 FROM "Term" "i" WHERE "i"."id" = "WebhookItemState"."itemId")))`;
}
