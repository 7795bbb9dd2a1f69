import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Config } from "../../config";
import type { Database } from "../../db/database";
import { inTransaction, lockFor, type Tx } from "../../db/transaction";
import type { Language } from "../../i18n/languages";
import type { SyncResource } from "../sync/sync-log";
import { itemSnapshot, type ItemSnapshot } from "./webhook-items";
import { newMessageId } from "./webhook-signature";
import { ITEM_NAMES, passesFilter, subscriptionOf, type ChangeKind, type ItemTerms, type Subscription } from "./webhook-subscriptions";

/**
 * The fan-out: turns the outbox's changes (written by the writes' own transactions) into one
 * delivery per subscription that wants each, in the order of the change log, and deletes them
 * from the outbox in the same transaction. One instance at a time does it (a lock on
 * PostgreSQL; SQLite has one writer), so every change becomes its deliveries exactly once.
 */

interface OutboxRow {
  id: number;
  resource: SyncResource;
  itemId: number;
  visible: unknown;
  created: unknown;
  everPublic: unknown;
  terms: string;
}

/** What subscribers were last told of an item (null: nothing, or that it was gone). */
interface ToldState {
  visible: boolean;
  terms: ItemTerms;
}

const BATCH = 200;
// Rows of deliveries per statement: Prisma refuses more than 999 parameters on SQLite.
const DELIVERY_ROWS_PER_INSERT = 60;

const itemKey = (resource: string, itemId: number) => `${resource}:${itemId}`;

/** The outbox's terms of an event ([{"taxonomy", "id"}]), by taxonomy. */
function termsOf(json: string): ItemTerms {
  const terms = JSON.parse(json) as Array<{ taxonomy: string; id: number }>;
  return { categories: terms.filter((term) => term.taxonomy === "category").map((term) => term.id), tags: terms.filter((term) => term.taxonomy === "tag").map((term) => term.id) };
}

/** What a change is to a subscription: it wanted the item before, after, or both. */
function kindFor(subscription: Subscription, resource: SyncResource, before: ToldState | null, after: ToldState): ChangeKind | null {
  const wanted = (state: ToldState | null) => state !== null && state.visible && passesFilter(subscription, resource, state.terms);
  const was = wanted(before);
  if (wanted(after)) return was ? "updated" : "created";
  return was ? "deleted" : null;
}

/** The rows' items, by collection. */
function idsByResource(rows: OutboxRow[]): Map<SyncResource, number[]> {
  const ids = new Map<SyncResource, Set<number>>();
  for (const row of rows) ids.set(row.resource, (ids.get(row.resource) ?? new Set()).add(row.itemId));
  return new Map([...ids].map(([resource, set]) => [resource, [...set]]));
}

async function toldStates(tx: Tx, rows: OutboxRow[]): Promise<Map<string, ToldState>> {
  const told = new Map<string, ToldState>();
  for (const [resource, ids] of idsByResource(rows)) {
    for (const state of await tx.webhookItemState.findMany({ where: { resource, itemId: { in: ids } } })) {
      told.set(itemKey(resource, state.itemId), { visible: state.visible, terms: JSON.parse(state.terms) as ItemTerms });
    }
  }
  return told;
}

/** Makes the deliveries of up to BATCH changes; returns how many changes it took from the outbox. */
export async function fanOut(db: Database, config: Config, now: number): Promise<number> {
  // Most polls find nothing: a read says so without taking the write lock.
  const waiting = await db.read.$queryRaw<unknown[]>`SELECT 1 FROM "WebhookOutbox" LIMIT 1`;
  if (waiting.length === 0) return 0;
  return inTransaction(db, async (tx) => {
    await lockFor(db, tx, "webhook-fanout");
    const rows = await tx.$queryRaw<OutboxRow[]>`SELECT "id", "resource", "itemId", "visible", "created", "everPublic", "terms" FROM "WebhookOutbox" ORDER BY "seq", "id" LIMIT ${BATCH}`;
    if (rows.length === 0) return 0;
    const subscriptions = (await tx.webhookSubscription.findMany({ orderBy: { id: "asc" } })).map(subscriptionOf);
    const told = await toldStates(tx, rows);
    const snapshots = new Map<string, ItemSnapshot>();
    const timestamp = new Date(now).toISOString();
    const deliveries: Prisma.WebhookDeliveryCreateManyInput[] = [];
    for (const { resource, itemId, visible, created, everPublic, terms } of rows) {
      const key = itemKey(resource, itemId);
      let current = snapshots.get(key);
      if (!current) snapshots.set(key, (current = await itemSnapshot(db, config, resource, itemId)));
      // As the change committed (the item may have changed again since: its payload shows it as it is now).
      const after: ToldState = { visible: Boolean(visible), terms: termsOf(terms) };
      // Never told of (it predates every subscription): as it was before, as far as the change says.
      const before = told.get(key) ?? (created ? null : { visible: Boolean(everPublic), terms: after.terms });
      // The item as it is now: gone since, it is not shown (its deletion follows).
      const shown = after.visible && current.visible ? current : null;
      const payloads = new Map<string, string>();
      for (const subscription of subscriptions) {
        const kind = kindFor(subscription, resource, before, after);
        const type = kind && `${ITEM_NAMES[resource]}.${kind}`;
        if (!type || !subscription.eventTypes.includes(type)) continue;
        const variant = `${type}|${subscription.language}`;
        let payload = payloads.get(variant);
        if (payload === undefined) payloads.set(variant, (payload = notificationBody(type, timestamp, resource, itemId, kind === "deleted" ? null : shown, subscription.language)));
        deliveries.push({
          messageId: newMessageId(),
          subscriptionId: subscription.id,
          type,
          resource,
          itemId,
          payload,
          status: "pending",
          createdAt: now,
          nextAttemptAt: now,
          giveUpAt: now + config.webhooks.retryPeriodMs,
        });
      }
      told.set(key, after);
    }
    for (let start = 0; start < deliveries.length; start += DELIVERY_ROWS_PER_INSERT) {
      await tx.webhookDelivery.createMany({ data: deliveries.slice(start, start + DELIVERY_ROWS_PER_INSERT) });
    }
    await rememberTold(tx, rows, told);
    await tx.$executeRaw`DELETE FROM "WebhookOutbox" WHERE "id" IN (${Prisma.join(rows.map((row) => row.id))})`;
    return rows.length;
  });
}

async function rememberTold(tx: Tx, rows: OutboxRow[], told: Map<string, ToldState>): Promise<void> {
  for (const [resource, ids] of idsByResource(rows)) {
    await tx.webhookItemState.deleteMany({ where: { resource, itemId: { in: ids } } });
    await tx.webhookItemState.createMany({
      data: ids.map((itemId) => {
        const state = told.get(itemKey(resource, itemId))!;
        return { resource, itemId, visible: state.visible, terms: JSON.stringify(state.terms) };
      }),
    });
  }
}

/** A notification as Standard Webhooks lays it out: type, timestamp, data (the item, but for a deletion or a ping). */
export function notificationBody(type: string, timestamp: string, resource: string, id: number, item: ItemSnapshot | null, language: Language): string {
  return JSON.stringify({ type, timestamp, data: { resource, id, ...(item ? { item: item.show(language) } : {}) } });
}
