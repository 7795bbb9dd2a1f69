import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Config } from "../../config";
import type { Database } from "../../db/database";
import { inTransaction, lockFor, type Tx } from "../../db/transaction";
import type { Language } from "../../i18n/languages";
import { logPosition, type SyncResource } from "../../sync/change-log-repository";
import { SyncTokens } from "../../sync/sync-token";
import type { ItemSnapshot } from "./webhook-record";
import { newMessageId } from "./webhook-signature";
import {
  deleteDeliveries,
  deleteOutboxChanges,
  deleteToldStatesOfGoneItems,
  insertDeliveries,
  insertDelivery,
  oldestWaitingOtherThan,
  outboxChanges,
  outboxHasChanges,
  saveDeliveryPayload,
  saveToldStates,
  subscriptionRows,
  toldStateRows,
  waitingCounts,
  waitingOfType,
  type OutboxRow,
} from "./webhook-repository";
import {
  ITEM_NAMES,
  passesFilter,
  subscriptionOf,
  type ChangeKind,
  type ItemTerms,
  type Subscription,
} from "./webhook-subscriptions";

/**
 * The fan-out: turns the outbox's changes (written by the writes' own transactions) into one
 * delivery per subscription that wants each, in the order of the change log, and deletes them
 * from the outbox in the same transaction. One instance at a time does it (a lock on
 * PostgreSQL; SQLite has one writer), so every change becomes its deliveries exactly once.
 */

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
  return {
    categories: terms.filter((term) => term.taxonomy === "category").map((term) => term.id),
    tags: terms.filter((term) => term.taxonomy === "tag").map((term) => term.id),
  };
}

/** What a change is to a subscription: it wanted the item before, after, or both. */
function kindFor(
  subscription: Subscription,
  resource: SyncResource,
  before: ToldState | null,
  after: ToldState,
): ChangeKind | null {
  const wanted = (state: ToldState | null) =>
    state !== null && state.visible && passesFilter(subscription, resource, state.terms);
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
    for (const state of await toldStateRows(tx, resource, ids)) {
      told.set(itemKey(resource, state.itemId), {
        visible: state.visible,
        terms: JSON.parse(state.terms) as ItemTerms,
      });
    }
  }
  return told;
}

/** Makes the deliveries of up to BATCH changes; returns how many changes it took from the outbox. */
export async function fanOut(db: Database, config: Config, now: number): Promise<number> {
  // Most polls find nothing: a read says so without taking the write lock.
  if (!(await outboxHasChanges(db))) return 0;
  return inTransaction(db, async (tx) => {
    await lockFor(db, tx, "webhook-fanout");
    const rows = await outboxChanges(tx, BATCH);
    if (rows.length === 0) return 0;
    const subscriptions = (await subscriptionRows(tx)).map(subscriptionOf);
    const told = await toldStates(tx, rows);
    const timestamp = new Date(now).toISOString();
    const deliveries: Prisma.WebhookDeliveryCreateManyInput[] = [];
    for (const { seq, resource, itemId, visible, created, everPublic, terms } of rows) {
      const key = itemKey(resource, itemId);
      // As the change committed (the item may have changed again since: it is sent as it is then).
      const after: ToldState = { visible: Boolean(visible), terms: termsOf(terms) };
      // Never told of (it predates every subscription): as it was before, as far as the change says.
      const before = told.get(key) ?? (created ? null : { visible: Boolean(everPublic), terms: after.terms });
      for (const subscription of subscriptions) {
        const kind = kindFor(subscription, resource, before, after);
        const type = kind && `${ITEM_NAMES[resource]}.${kind}`;
        if (!type || !subscription.eventTypes.includes(type)) continue;
        deliveries.push({
          messageId: newMessageId(),
          subscriptionId: subscription.id,
          type,
          resource,
          itemId,
          seq: Number(seq),
          payload: notificationBody(type, timestamp, resource, itemId, null, subscription.language),
          status: "pending",
          createdAt: now,
          nextAttemptAt: now,
          giveUpAt: now + config.webhooks.retryPeriodMs,
        });
      }
      told.set(key, after);
    }
    for (let start = 0; start < deliveries.length; start += DELIVERY_ROWS_PER_INSERT) {
      await insertDeliveries(tx, deliveries.slice(start, start + DELIVERY_ROWS_PER_INSERT));
    }
    await rememberTold(tx, rows, told);
    await deleteOutboxChanges(
      tx,
      rows.map((row) => row.id),
    );
    const touched = [...new Set(deliveries.map((delivery) => delivery.subscriptionId))];
    if (touched.length > 0) await keepWaitingBounded(db, tx, config, touched, now);
    return rows.length;
  });
}

const GAP = "webhook.gap";

/** What a gap notice says: how many notifications were dropped, and where to resync each collection from. */
interface GapData {
  dropped: number;
  since: Partial<Record<SyncResource, { seq: number; itemId: number }>>;
}

/**
 * A subscription keeps at most `maxWaiting` notifications waiting (a receiver that is down, or a
 * subscription paused or inactive, would otherwise queue one per write without end): past it, the
 * oldest waiting notifications not being sent are dropped, and one `webhook.gap` notice takes
 * their place, with how many were dropped and, for each collection they were about, a sync token
 * from just before the first of them, so that the receiver reads what it missed from the lists.
 */
async function keepWaitingBounded(
  db: Database,
  tx: Tx,
  config: Config,
  subscriptionIds: number[],
  now: number,
): Promise<void> {
  for (const { subscriptionId, waiting } of await waitingCounts(tx, subscriptionIds)) {
    const excess = waiting - config.webhooks.maxWaiting;
    if (excess <= 0) continue;
    const gap = await waitingOfType(tx, subscriptionId, GAP);
    const dropped = await oldestWaitingOtherThan(tx, subscriptionId, GAP, now, excess + (gap ? 0 : 1));
    if (dropped.length === 0) continue;
    await deleteDeliveries(
      tx,
      dropped.map((row) => row.id),
    );
    const data: GapData = gap
      ? (JSON.parse(gap.payload) as { data: GapData & Record<string, unknown> }).data
      : { dropped: 0, since: {} };
    data.dropped += dropped.length;
    for (const row of dropped) {
      const resource = row.resource as SyncResource;
      const earlier = data.since[resource];
      // Just before the change: every change up to its position but it and those after.
      if (!earlier || row.seq < earlier.seq || (row.seq === earlier.seq && row.itemId - 1 < earlier.itemId))
        data.since[resource] = { seq: row.seq, itemId: row.itemId - 1 };
    }
    const payload = await gapBody(db, subscriptionId, new Date(now).toISOString(), data);
    if (gap) await saveDeliveryPayload(tx, gap.id, payload);
    else {
      const giveUpAt = now + config.webhooks.retryPeriodMs;
      await insertDelivery(tx, {
        messageId: newMessageId(),
        subscriptionId,
        type: GAP,
        resource: "webhooks",
        itemId: subscriptionId,
        payload,
        status: "pending",
        createdAt: now,
        nextAttemptAt: now,
        giveUpAt,
      });
    }
  }
}

/** A gap notice's body: its data, and the sync token of each collection (for the unfiltered list) from where the receiver missed changes. */
async function gapBody(db: Database, subscriptionId: number, timestamp: string, data: GapData): Promise<string> {
  const tokens = new SyncTokens(db);
  const { epoch } = await logPosition(db);
  const syncTokens: Record<string, string> = {};
  for (const [resource, position] of Object.entries(data.since) as Array<
    [SyncResource, { seq: number; itemId: number }]
  >) {
    syncTokens[resource] = await tokens.encode({ resource, position, epoch, filters: {} });
  }
  return JSON.stringify({
    type: GAP,
    timestamp,
    data: {
      resource: "webhooks",
      id: subscriptionId,
      dropped: data.dropped,
      since: data.since,
      sync_tokens: syncTokens,
    },
  });
}

/**
 * Forgets what subscribers were told of items that are gone for good (deleted, not trashed), and
 * of every item when no subscription is left: nothing will be said of them again (a change not
 * yet fanned out keeps its item's state). How many were forgotten.
 */
export async function pruneToldStates(db: Database): Promise<number> {
  return deleteToldStatesOfGoneItems(db);
}

async function rememberTold(tx: Tx, rows: OutboxRow[], told: Map<string, ToldState>): Promise<void> {
  for (const [resource, ids] of idsByResource(rows)) {
    const states = ids.map((itemId) => {
      const state = told.get(itemKey(resource, itemId))!;
      return { itemId, visible: state.visible, terms: JSON.stringify(state.terms) };
    });
    await saveToldStates(tx, resource, states);
  }
}

/** A notification as Standard Webhooks lays it out: type, timestamp, data (the item, but for a deletion or a ping). */
export function notificationBody(
  type: string,
  timestamp: string,
  resource: string,
  id: number,
  item: ItemSnapshot | null,
  language: Language,
): string {
  return JSON.stringify({ type, timestamp, data: { resource, id, ...(item ? { item: item.show(language) } : {}) } });
}
