import type { Config } from "../../config";
import type { Database } from "../../db/database";
import { ParamProblems } from "../../http/errors";
import type { Schemas } from "../../http/operation-types";
import { isLanguage, type Language } from "../../i18n/languages";
import type { SyncResource } from "../../sync/change-log-repository";
import { allowedUrl } from "../../net/outbound-guard";
import { privateTargets } from "./webhook-sender";
import { newSigningSecret } from "./webhook-signature";
import {
  deleteSubscriptionRow,
  insertSubscription,
  saveSubscription,
  subscriptionPage,
  subscriptionRow,
} from "./webhook-repository";
import { termsExist } from "../terms/term-repository";

/** What notifications call each collection's items: `event.created`, `category.deleted`... */
export const ITEM_NAMES: Record<SyncResource, string> = {
  events: "event",
  venues: "venue",
  organizers: "organizer",
  categories: "category",
  tags: "tag",
};

export type ChangeKind = "created" | "updated" | "deleted";

export const NOTIFICATION_TYPES = Object.values(ITEM_NAMES).flatMap((item) =>
  (["created", "updated", "deleted"] as const).map((kind) => `${item}.${kind}`),
);

/** An event's categories and tags, by id: what subscriptions' filters look at. */
export interface ItemTerms {
  categories: number[];
  tags: number[];
}

export interface SubscriptionFilter {
  categories?: number[];
  tags?: number[];
}

export interface Subscription {
  id: number;
  url: string;
  description: string;
  eventTypes: string[];
  filter: SubscriptionFilter | null;
  language: Language;
  active: boolean;
  pausedReason: string | null;
  secret: string;
  createdAt: Date;
  modifiedAt: Date;
}

type SubscriptionRow = Omit<Subscription, "eventTypes" | "filter" | "language"> & {
  eventTypes: string;
  filter: string | null;
  language: string;
};

export function subscriptionOf(row: SubscriptionRow): Subscription {
  return {
    ...row,
    eventTypes: JSON.parse(row.eventTypes) as string[],
    filter: row.filter === null ? null : (JSON.parse(row.filter) as SubscriptionFilter),
    language: isLanguage(row.language) ? row.language : "en",
  };
}

/**
 * Whether an item in the state `terms` is one the subscription wants: its filter narrows events
 * (to those in one of its categories, and with one of its tags); other items all pass.
 */
export function passesFilter(subscription: Subscription, resource: SyncResource, terms: ItemTerms): boolean {
  const filter = subscription.filter;
  if (filter === null || resource !== "events") return true;
  const among = (wanted: number[] | undefined, has: number[]) =>
    wanted === undefined || wanted.length === 0 || has.some((id) => wanted.includes(id));
  return among(filter.categories, terms.categories) && among(filter.tags, terms.tags);
}

export type SubscriptionWrite = Schemas["UpdateWebhookRequest"];

/** The checks the schema cannot make: the target's address, the filter's terms. */
async function checkWrite(db: Database, config: Config, input: SubscriptionWrite): Promise<void> {
  const problems = new ParamProblems();
  if (input.url !== undefined && !allowedUrl(input.url, privateTargets(config.webhooks.allowPrivateTargets)))
    problems.add("url", "rest_invalid_webhook_target");
  for (const [field, taxonomy] of [
    ["categories", "category"],
    ["tags", "tag"],
  ] as const) {
    const ids = [...new Set(input.filter?.[field] ?? [])];
    if (ids.length === 0) continue;
    if (!(await termsExist(db, taxonomy, ids))) problems.within("filter").add(field, "rest_term_not_found");
  }
  problems.throwIfAny();
}

function columnsOf(input: SubscriptionWrite) {
  return {
    url: input.url,
    description: input.description,
    eventTypes: input.event_types === undefined ? undefined : JSON.stringify([...new Set(input.event_types)]),
    filter: input.filter === undefined ? undefined : input.filter === null ? null : JSON.stringify(input.filter),
    language: input.language,
    active: input.active,
  };
}

export async function createSubscription(
  db: Database,
  config: Config,
  input: Schemas["CreateWebhookRequest"],
  language: Language,
  now: Date,
): Promise<Subscription> {
  await checkWrite(db, config, input);
  const columns = columnsOf(input);
  const row = await insertSubscription(
    db,
    {
      ...columns,
      url: input.url,
      eventTypes: columns.eventTypes ?? JSON.stringify(NOTIFICATION_TYPES),
      language: input.language ?? language,
      secret: newSigningSecret(),
    },
    now,
  );
  return subscriptionOf(row);
}

/**
 * Changes the fields given. Resuming a paused subscription makes its waiting notifications due
 * now, each with a whole retry period ahead of it.
 */
export async function updateSubscription(
  db: Database,
  config: Config,
  id: number,
  input: SubscriptionWrite,
  now: Date,
): Promise<Subscription | null> {
  await checkWrite(db, config, input);
  const data = { ...columnsOf(input), pausedReason: input.active === undefined ? undefined : null, modifiedAt: now };
  const resumed = (before: { active: boolean }) =>
    input.active === true && !before.active
      ? { now: now.getTime(), giveUpAt: now.getTime() + config.webhooks.retryPeriodMs }
      : null;
  const row = await saveSubscription(db, id, data, resumed);
  return row && subscriptionOf(row);
}

export async function findSubscription(db: Database, id: number): Promise<Subscription | null> {
  const row = await subscriptionRow(db, id);
  return row && subscriptionOf(row);
}

export async function listSubscriptions(
  db: Database,
  offset: number,
  limit: number,
): Promise<{ items: Subscription[]; total: number }> {
  const { rows, total } = await subscriptionPage(db, offset, limit);
  return { items: rows.map(subscriptionOf), total };
}

/** Deletes a subscription, and with it (the foreign key cascades) its notifications, sent or not. */
export async function deleteSubscription(db: Database, id: number): Promise<boolean> {
  return deleteSubscriptionRow(db, id);
}
