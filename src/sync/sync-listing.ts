import type { Request, Response } from "express";
import type { Principal } from "../auth/principal";
import type { PostType } from "../auth/roles";
import { canReadItem } from "../auth/visibility";
import { encodeQuery, setCollectionHeaders, type CollectionLinks } from "../http/collection";
import { sendRepresentation } from "../http/conditional";
import { ApiError, invalidParam } from "../http/errors";
import type { RequestContext } from "../http/request-context";
import { declaredQuery } from "../openapi/query-normalizer";
import type { Services } from "../services";
import {
  changesAfter,
  logPosition,
  nextEpoch,
  type LoggedChange,
  type LogPosition,
  type SyncResource,
} from "./change-log-repository";

/**
 * Incremental sync of the collections (README "Keeping a copy in sync"). Every listing ends with
 * a `next_sync_token`: where the change log stood just before the listing was read, and the
 * list's filters. `GET …?sync_token=T` then answers the changes after T, in log order, a page at
 * a time: the changed items that the filters (applied now) and the caller's rights show, as the
 * list shows them; and, as tombstones, the changed items that are deleted or no longer shown,
 * when the caller could see them once. Each answer's token starts after its last change.
 */

/** Parameters that say how a list is shown, ordered or paged, not which items it holds: a token does not keep them. */
const NOT_FILTERS = new Set([
  "page",
  "per_page",
  "sync_token",
  "i18n_language",
  "password",
  "orderby",
  "order",
  "_fields",
  "_envelope",
  "_jsonp",
]);

/** The filters the request gives (not those the document defaults), validated, by name. */
function filtersOf(req: Request): Record<string, unknown> {
  const query = declaredQuery(req);
  const sent = new Set(
    [...new URL(req.originalUrl, "http://x").searchParams.keys()].map((name) => name.replace(/\[.*\]$/, "")),
  );
  return Object.fromEntries(
    Object.keys(query)
      .filter((name) => sent.has(name) && !NOT_FILTERS.has(name))
      .sort()
      .map((name) => [name, query[name]]),
  );
}

/** A sync request: the changes after `after`, through the filters of the listing that made its token. */
export interface SyncRequest {
  after: LogPosition;
  /** The log's history the token is of. */
  epoch: number;
  /** The token's filters, which the next token keeps. */
  filters: Record<string, unknown>;
  /** The request's query as the handler reads it: the token's filters, with the request's own presentation parameters. */
  query: Record<string, unknown>;
}

/**
 * The sync request a list request makes (null: it has no `sync_token`, it is a listing). A token
 * the site did not make for this collection, or older than the log's horizon, is `410
 * rest_sync_token_expired`; filters given beside it must be the token's own.
 */
export async function syncRequestOf(
  req: Request,
  resource: SyncResource,
  services: Services,
): Promise<SyncRequest | null> {
  const query = declaredQuery(req);
  if (query.sync_token === undefined) return null;
  const content = await services.syncTokens.decode(String(query.sync_token), resource);
  const clock = await logPosition(services.db);
  // A position the log has not reached: its history was lost (a restore of an earlier backup).
  if (content && content.epoch === clock.epoch && content.position.seq > clock.position.seq)
    await nextEpoch(services.db, clock.epoch);
  if (
    !content ||
    content.epoch !== clock.epoch ||
    content.position.seq < clock.horizon ||
    content.position.seq > clock.position.seq
  )
    throw new ApiError("rest_sync_token_expired");
  if (query.page !== undefined && query.page !== 1) throw invalidParam("page", "rest_sync_not_paged");
  const given = filtersOf(req);
  if (Object.keys(given).length > 0 && JSON.stringify(given) !== JSON.stringify(content.filters))
    throw invalidParam("sync_token", "rest_sync_filters_differ");
  // The request's own parameters (and the document's defaults), the token's filters over them.
  return {
    after: content.position,
    epoch: content.epoch,
    filters: content.filters,
    query: { ...query, ...content.filters },
  };
}

/**
 * Where a listing starts in the change log, read before the listing itself (here, or given as
 * `readBefore`): every change up to there is in what it reads, so the token it ends with misses
 * none. Resolves to what makes the token, sets its header on `res` and gives it for the body.
 */
export async function listingToken(
  req: Request,
  res: Response,
  resource: SyncResource,
  services: Services,
  readBefore?: LogPosition,
): Promise<() => Promise<string>> {
  const clock = await logPosition(services.db);
  const position = readBefore ?? clock.position;
  return async () => {
    const token = await services.syncTokens.encode({ resource, position, epoch: clock.epoch, filters: filtersOf(req) });
    setSyncTokenHeader(res, token);
    return token;
  };
}

/** The header that repeats a list's `next_sync_token`. */
export const SYNC_TOKEN_HEADER = "X-Next-Sync-Token";

function setSyncTokenHeader(res: Response, token: string): void {
  res.setHeader(SYNC_TOKEN_HEADER, token);
}

/**
 * Whether, and when, a caller is told that an item they are not shown is gone (a tombstone):
 * `never` (they could never read it); `leftSince` (they could read it while it was public: told
 * when it left the public view after their token, once); `always` (they may read it while it is not
 * public, a draft of theirs or anyone's for an editor: nothing tells when it left their own view,
 * so every change of an item they are not shown is one; a client deletes what it holds once).
 */
export type TombstoneRule = "never" | "leftSince" | "always";

/** The tombstone rule of a post for a caller: who could read it as a draft, who only while it was published. */
export function postTombstoneRule(
  principal: Principal | null,
  type: PostType,
): (change: LoggedChange) => TombstoneRule {
  return (change) => {
    const authorId = change.authorId ?? 0;
    if (canReadItem(principal, type, { status: "draft", authorId })) return "always";
    return change.everPublic && canReadItem(principal, type, { status: "publish", authorId }) ? "leftSince" : "never";
  };
}

export interface SyncPage<R> {
  resource: SyncResource;
  /** The collection's path under the namespace ("/events") and its key in the body ("events"). */
  path: string;
  collectionKey: string;
  perPage: number;
  /** Of `ids`, the items the list's filters and the caller's rights show now, as the list reads them. */
  readShown(ids: number[]): Promise<R[]>;
  idOf(record: R): number;
  serialize(record: R): unknown;
  tombstoneRule(change: LoggedChange): TombstoneRule;
}

/**
 * Whether an item the caller does not see now may have left their view after `after` (the token's
 * position): it stopped being public later, or it is public (a filter leaves it out). An item
 * hidden before then was reported already, or never seen: its later edits tell the caller nothing.
 */
function leftViewAfter(change: LoggedChange, after: LogPosition): boolean {
  return (
    change.hiddenAt === null ||
    change.hiddenAt > after.seq ||
    (change.hiddenAt === after.seq && change.itemId > after.itemId)
  );
}

/**
 * Answers a sync request: the next `perPage` changes of the log after the token's position (one
 * range of an index), the items among them the list shows (one list statement restricted to
 * their ids), tombstones for the others the caller may know of. `next_rest_url` is there while
 * more changes wait; `total` counts this answer's changes and `total_pages` is 2 while more wait,
 * else 1.
 */
export async function sendSyncPage<R>(
  req: Request,
  res: Response,
  ctx: RequestContext,
  sync: SyncRequest,
  page: SyncPage<R>,
  services: Services,
): Promise<void> {
  const changes = await changesAfter(services.db, page.resource, sync.after, page.perPage + 1);
  const more = changes.length > page.perPage;
  const answered = changes.slice(0, page.perPage);
  const live = answered.filter((change) => !change.deleted).map((change) => change.itemId);
  const shown = new Map(
    (live.length > 0 ? await page.readShown(live) : []).map((record) => [page.idOf(record), record]),
  );
  const items: unknown[] = [];
  const deleted: Array<{ id: number; deleted: true }> = [];
  for (const change of answered) {
    const record = shown.get(change.itemId);
    if (record !== undefined) items.push(page.serialize(record));
    else {
      const rule = page.tombstoneRule(change);
      if (rule === "always" || (rule === "leftSince" && leftViewAfter(change, sync.after)))
        deleted.push({ id: change.itemId, deleted: true });
    }
  }
  const last = answered.at(-1);
  const token = await services.syncTokens.encode({
    resource: page.resource,
    position: last ? { seq: last.seq, itemId: last.itemId } : sync.after,
    epoch: sync.epoch,
    filters: sync.filters,
  });
  const url = (entries: Array<[string, string | number]>) => `${ctx.apiBase}${page.path}?${encodeQuery(entries)}`;
  const links: CollectionLinks = {
    rest_url: url([
      ["sync_token", String(declaredQuery(req).sync_token)],
      ["per_page", page.perPage],
    ]),
  };
  if (more)
    links.next_rest_url = url([
      ["sync_token", token],
      ["per_page", page.perPage],
    ]);
  const total = items.length + deleted.length;
  const totalPages = more ? 2 : 1;
  setCollectionHeaders(res, total, totalPages, links);
  setSyncTokenHeader(res, token);
  sendRepresentation(res, {
    [page.collectionKey]: items,
    deleted,
    ...links,
    total,
    total_pages: totalPages,
    next_sync_token: token,
  });
}
