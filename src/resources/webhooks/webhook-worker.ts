import type { Config } from "../../config";
import { PollingLoop } from "../../polling-loop";
import type { Database } from "../../db/database";
import type { Logger } from "../../logging/logger";
import type { Language } from "../../i18n/languages";
import type { SyncResource } from "../../sync/change-log-repository";
import { fanOut, notificationBody, pruneToldStates } from "./webhook-fanout";
import type { ItemSnapshot, ItemSnapshots } from "./webhook-record";
import {
  claimDue,
  deleteCompletedDeliveries,
  failDeliveryAndPause,
  deliveryRow,
  insertDelivery,
  recordAttempt,
  subscriptionRows,
  type ClaimedDelivery,
} from "./webhook-repository";
import { sendNotification, type SendResult } from "./webhook-sender";
import { newMessageId, signMessage } from "./webhook-signature";
import { deleteSubscription, type Subscription } from "./webhook-subscriptions";

/**
 * The delivery worker: every process runs one (unless WEBHOOK_DELIVERY=false). Each round it
 * fans the outbox out into deliveries, claims the deliveries that are due, sends them and
 * records how it went. A delivery waits while an earlier one of the same item to the same
 * subscription is not done (order per item). Claims are leases: a worker that dies leaves its
 * deliveries to be claimed again when the lease ends, so a notification may come twice (the
 * receiver de-duplicates by `webhook-id`) but is never lost.
 */

// Beyond the receiver's time limit, what a worker may take to resolve its host and record the result.
const LEASE_MARGIN_MS = 5_000;

/** Sends one message to a subscription's URL, signed with its secret, as the Standard Webhooks headers say. */
function attemptDelivery(
  config: Config,
  subscription: Pick<Subscription, "url" | "secret">,
  messageId: string,
  payload: string,
  now: number,
): Promise<SendResult> {
  const timestamp = Math.floor(now / 1000);
  const headers = {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signMessage(subscription.secret, messageId, timestamp, payload),
  };
  return sendNotification(subscription.url, headers, payload, {
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivate: config.webhooks.allowPrivateTargets,
  });
}

const delivered = (result: SendResult) =>
  result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;

/** A receiver that answers 410 Gone no longer wants notifications: its subscription is deleted (as Eventbrite does). */
const gone = (result: SendResult) => result.statusCode === 410;

/** The wait before the next attempt: doubled each time, capped, and between half and all of it (jitter). */
function retryDelayMs(config: Config, attempts: number): number {
  const full = Math.min(
    config.webhooks.firstRetryMs * 2 ** Math.min(attempts - 1, 30),
    config.webhooks.maxRetryDelayMs,
  );
  return full / 2 + Math.random() * (full / 2);
}

function lastAttempt(result: SendResult, now: number) {
  return {
    lastAttemptAt: now,
    lastStatusCode: result.statusCode,
    lastDurationMs: result.durationMs,
    lastError: result.error?.slice(0, 500) ?? null,
  };
}

/**
 * A waiting notification's body as it is sent: created and updated ones with the item as an
 * anonymous reader sees it now (not as it was when the notification was made: a notification
 * costs a few bytes while it waits, whatever the item's size), unless it is gone since (its
 * deletion follows); deleted ones, pings and gap notices as they are.
 */
async function bodyToSend(
  payload: string,
  language: Language,
  snapshotOf: (resource: SyncResource, id: number) => Promise<ItemSnapshot>,
): Promise<string> {
  const notification = JSON.parse(payload) as {
    type: string;
    timestamp: string;
    data: { resource: string; id: number; item?: unknown };
  };
  const { type, data } = notification;
  if (type.startsWith("webhook.") || type.endsWith(".deleted") || "item" in data) return payload;
  const snapshot = await snapshotOf(data.resource as SyncResource, data.id);
  return snapshot.visible
    ? notificationBody(type, notification.timestamp, data.resource, data.id, snapshot, language)
    : payload;
}

export class WebhookWorker {
  private readonly loop = new PollingLoop(
    () => this.runRound(),
    () => this.config.webhooks.pollMs,
    (err) => this.logger.error({ err }, "delivering webhooks failed"),
  );

  constructor(
    private readonly db: Database,
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly itemSnapshot: ItemSnapshots,
    /** Told of each attempt's result (for /metrics). */
    private readonly attempted: (result: "delivered" | "gone" | "retry" | "failed") => void = () => undefined,
  ) {}

  start(): void {
    this.loop.start();
  }

  /** Stops looking for work and waits for the round under way, whose results are recorded. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One round: fan out, claim, send, record. Whether it found work (another round follows at once). */
  async runRound(): Promise<boolean> {
    const now = Date.now();
    const fannedOut = await fanOut(this.db, this.config, now);
    const claimed = await claimDue(
      this.db,
      now,
      2 * this.config.webhooks.timeoutMs + LEASE_MARGIN_MS,
      this.config.webhooks.concurrency,
    );
    if (claimed.length === 0) return fannedOut > 0;
    const subscriptions = new Map(
      (await subscriptionRows(this.db, [...new Set(claimed.map((delivery) => delivery.subscriptionId))])).map((row) => [
        row.id,
        row,
      ]),
    );
    const snapshots = new Map<string, Promise<ItemSnapshot>>();
    const snapshotOf = (resource: SyncResource, id: number) => {
      let snapshot = snapshots.get(`${resource}:${id}`);
      if (!snapshot)
        snapshots.set(`${resource}:${id}`, (snapshot = this.itemSnapshot(this.db, this.config, resource, id)));
      return snapshot;
    };
    // Bodies made in claim order (the items read one after the other), then sent at once.
    const bodies = new Map<number, string>();
    for (const delivery of claimed) {
      const subscription = subscriptions.get(delivery.subscriptionId);
      if (subscription)
        bodies.set(delivery.id, await bodyToSend(delivery.payload, subscription.language as Language, snapshotOf));
    }
    await Promise.all(
      claimed.map(async (delivery) => {
        const subscription = subscriptions.get(delivery.subscriptionId);
        if (!subscription) return;
        const result = await attemptDelivery(
          this.config,
          subscription,
          delivery.messageId,
          bodies.get(delivery.id)!,
          Date.now(),
        );
        await this.record(delivery, result, Date.now());
      }),
    );
    return true;
  }

  private async record(delivery: ClaimedDelivery, result: SendResult, now: number): Promise<void> {
    // Only the attempt that holds the claim records (a worker whose lease ran out does not).
    if (delivered(result)) {
      this.attempted("delivered");
      await recordAttempt(this.db, delivery, {
        status: "delivered",
        completedAt: now,
        leaseUntil: null,
        nextAttemptAt: now,
        ...lastAttempt(result, now),
      });
      return;
    }
    if (gone(result)) {
      this.attempted("gone");
      await deleteSubscription(this.db, delivery.subscriptionId);
      this.logger.warn(
        { subscription: delivery.subscriptionId },
        "webhook receiver answered 410 Gone: subscription deleted",
      );
      return;
    }
    const next = now + retryDelayMs(this.config, delivery.attempts);
    if (next <= delivery.giveUpAt) {
      this.attempted("retry");
      await recordAttempt(this.db, delivery, { nextAttemptAt: next, leaseUntil: null, ...lastAttempt(result, now) });
      return;
    }
    // Failing for the whole retry period: the delivery has failed, and the subscription is paused.
    this.attempted("failed");
    await failDeliveryAndPause(
      this.db,
      delivery,
      { status: "failed", completedAt: now, leaseUntil: null, ...lastAttempt(result, now) },
      now,
    );
    this.logger.warn(
      { subscription: delivery.subscriptionId, message: delivery.messageId },
      "webhook delivery failed for its whole retry period: subscription paused",
    );
  }
}

/**
 * Forgets sent and failed deliveries older than the log keeps (`retentionDays`), and what
 * subscribers were told of items that are gone (pruneToldStates); how many deliveries. Safe from
 * every instance at once.
 */
export async function pruneDeliveryLog(db: Database, now: Date, retentionDays: number): Promise<number> {
  const before = now.getTime() - retentionDays * 86_400_000;
  await pruneToldStates(db);
  return deleteCompletedDeliveries(db, before);
}

/**
 * Sends a `webhook.ping` to a subscription at once (paused or not), records it in its log, and
 * gives the delivery as recorded. Not retried: it is there to try the receiver.
 */
export async function sendPing(db: Database, config: Config, subscription: Subscription, now: number) {
  const messageId = newMessageId();
  const payload = notificationBody(
    "webhook.ping",
    new Date(now).toISOString(),
    "webhooks",
    subscription.id,
    null,
    subscription.language,
  );
  const result = await attemptDelivery(config, subscription, messageId, payload, now);
  const completedAt = Date.now();
  const id = await db.transact((tx) =>
    insertDelivery(tx, {
      messageId,
      subscriptionId: subscription.id,
      type: "webhook.ping",
      resource: "webhooks",
      itemId: subscription.id,
      payload,
      status: delivered(result) ? "delivered" : "failed",
      attempts: 1,
      createdAt: now,
      nextAttemptAt: now,
      giveUpAt: now,
      completedAt,
      ...lastAttempt(result, now),
    }),
  );
  const row = await deliveryRow(db, id);
  if (gone(result)) await deleteSubscription(db, subscription.id);
  return row;
}
