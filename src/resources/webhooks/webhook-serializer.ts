import type { Schemas } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import type { Subscription } from "./webhook-subscriptions";

/** A delivery as stored (times in milliseconds since 1970). */
type DeliveryRow = {
  messageId: string;
  type: string;
  resource: string;
  itemId: number;
  status: string;
  attempts: number;
  createdAt: number;
  nextAttemptAt: number;
  completedAt: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
};

const iso = (ms: number) => new Date(ms).toISOString();

/** A delivery as the delivery log shows it. */
export function serializeDelivery(row: DeliveryRow): Schemas["WebhookDelivery"] {
  return {
    id: row.messageId,
    type: row.type,
    resource: row.resource as Schemas["WebhookDelivery"]["resource"],
    item_id: row.itemId,
    status: row.status as Schemas["WebhookDelivery"]["status"],
    attempts: row.attempts,
    created_at: iso(row.createdAt),
    next_attempt_at: row.status === "pending" ? iso(row.nextAttemptAt) : null,
    completed_at: row.completedAt === null ? null : iso(row.completedAt),
    last_attempt:
      row.lastAttemptAt === null
        ? null
        : {
            at: iso(row.lastAttemptAt),
            status_code: row.lastStatusCode,
            duration_ms: row.lastDurationMs ?? 0,
            error: row.lastError,
          },
  };
}

/** A subscription as the API shows it; its secret only when asked (the answer to its creation). */
export function serializeSubscription(
  subscription: Subscription,
  ctx: RequestContext,
  options: { secret?: boolean } = {},
): Schemas["Webhook"] {
  return {
    id: subscription.id,
    url: subscription.url,
    description: subscription.description,
    // Written from the spec's enum only (the request was validated against it).
    event_types: subscription.eventTypes as Array<Schemas["NotificationType"]>,
    filter: subscription.filter,
    language: subscription.language,
    active: subscription.active,
    paused_reason: subscription.pausedReason === "failing" ? "failing" : null,
    created_at: subscription.createdAt.toISOString(),
    modified_at: subscription.modifiedAt.toISOString(),
    rest_url: `${ctx.apiBase}/webhooks/${subscription.id}`,
    ...(options.secret ? { secret: subscription.secret } : {}),
  };
}
