import type { Request, Response } from "express";
import type { Principal } from "../auth/principal";
import type { Services } from "../services";
import type { LoggedChange, SyncResource } from "../sync/change-log-repository";
import { EVERY_ITEM, type LoggedItem } from "../sync/representation-cache";
import { listingToken, sendSyncPage, SYNC_TOKEN_HEADER, syncRequestOf, type TombstoneRule } from "../sync/sync-listing";
import {
  applyCollectionHeaders,
  collectionLinks,
  echoedQuery,
  offsetOf,
  pageRequest,
  setCollectionHeaders,
  totalPagesOf,
  type PageRequest,
  type QueryValue,
} from "./collection";
import { sendPrepared, sendRepresentationText } from "./conditional";
import { ApiError, type ErrorCode } from "./errors";
import type { OperationHandler } from "./operation-types";
import { context, type RequestContext } from "./request-context";
import type { Freshness, KeptRepresentation } from "../sync/representation-cache";

/**
 * The one list responder. Every collection answers the same way, in this order: a sync request
 * (a `sync_token`) gets the changes since its token; a feed (the events' iCalendar), when the
 * list has one and the request asks for it; else a page, its items made or taken from the
 * representations kept for anonymous readers, with its links, totals, headers and the token to
 * sync from. A resource describes its list (ListPolicy: what is data) and what one request of it
 * reads (ListRequest); the skeleton is here once.
 */

/** What one request of a list reads and shows, made by the resource from the request's query. */
export interface ListRequest<R, P = unknown> {
  /** An item of the list as this caller sees it (JSON). */
  present(item: R): P;
  /**
   * A page and the total. `needed`: which items' records the page must read (those not kept);
   * `ids`, in page order, covers them all.
   */
  readPage(
    page: { offset: number; limit: number },
    needed?: (id: number) => boolean,
  ): Promise<{ ids: number[]; items: R[]; total: number }>;
  /** Of `ids`, the items this list shows now (a sync answer's changed items). */
  readShown(ids: number[]): Promise<R[]>;
  /** Query values the page links repeat in their effective form (the events' defaulted dates). */
  echo?: Record<string, QueryValue>;
  /**
   * The page's inputs as this request resolved them (relative dates made instants, defaults
   * applied): with the URL, what an anonymous reader's page is kept under (see sendPage).
   * Undefined for a page not to keep: a search's, seldom asked for twice, would push out of the
   * cache what every list shares.
   */
  pageKey?: string;
}

/** A resource's list, as data: what the responder needs to know of it. */
export interface ListPolicy<
  R,
  Q extends { page?: number; per_page?: number },
  L extends ListRequest<R> = ListRequest<R>,
> {
  resource: SyncResource;
  /** The collection's path under the namespace ("/events") and its key in the body ("events"). */
  path: string;
  collectionKey: string;
  /** The query of a request that is not a sync (a sync's comes from its token). */
  query(req: Request): Q;
  /** What the request reads: its filters checked (a 400 names every bad one). */
  prepare(req: Request, query: Q, ctx: RequestContext): Promise<L>;
  idOf(item: R): number;
  /** A page past the last one: this error, as the original answers (events, venues, organizers); null, an empty page (terms). */
  pastLastPage: ErrorCode | null;
  /** Where the totals go in the body: after the links (posts), or first, after `rest_url` (terms, as WordPress orders them). */
  totalsFirst: boolean;
  /** Whether, and when, the caller may learn that an item left the list (a sync answer's tombstones). */
  tombstoneRule(principal: Principal | null): (change: LoggedChange) => TombstoneRule;
  /** Representations kept for anonymous readers (events): which items are the same for all of them, and what they show. */
  kept?: { shared(item: R): boolean; shows(item: R): LoggedItem[] };
  /** The list as another format (events: iCalendar), when the request asks for it. */
  feed?: {
    wanted(req: Request, query: Q): boolean;
    send(req: Request, res: Response, list: L, query: Q): Promise<void>;
  };
  /** Whether the answer depends on `Accept` (a list that has a feed). */
  variesByAccept?: boolean;
}

/**
 * Where an anonymous reader's page was last kept, by the request as it came. What a request's
 * filters come to depends on its URL, its language, the data and the clock to the second (a
 * relative date, the default window's end): while the data is as it was (the representation
 * cache's generation) and within the second, the same request's page is found again without its
 * filters being read again (term lookups, dates, the window: a fifth of a kept page's CPU).
 * Requests with a password are read each time, so that every attempt counts. One per list
 * operation of an application; bounded in entries, the oldest going first.
 */
class PageKeysByRequest {
  private readonly keys = new Map<string, { pageKey: string; when: string }>();

  constructor(private readonly maxEntries: number) {}

  find(request: string, when: string): string | undefined {
    const known = this.keys.get(request);
    return known?.when === when ? known.pageKey : undefined;
  }

  remember(request: string, when: string, pageKey: string): void {
    this.keys.delete(request);
    if (this.keys.size >= this.maxEntries) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(request, { pageKey, when });
  }
}

/**
 * The data's state and the second, as PageKeysByRequest compares them: the service's clock's and
 * the process's, which differ only where a test gives the service a clock of its own.
 */
const momentOf = (services: Services, freshness: Freshness) =>
  `${freshness.generation}@${Math.floor(services.clock().getTime() / 1000)}@${Math.floor(Date.now() / 1000)}`;

/** The request as it came, for an anonymous page that may be kept (see PageKeysByRequest); null for others. */
function requestKeyOf(req: Request, ctx: RequestContext, resource: string): string | null {
  const query = req.query as Record<string, unknown>;
  if (ctx.principal !== null || query.sync_token !== undefined || query.password !== undefined) return null;
  return `${resource}|${ctx.language}|${ctx.apiBase}|${req.originalUrl}`;
}

/** Sends a page kept before, with the headers it was sent with, the REST root's link kept. */
function sendKeptPage(res: Response, kept: KeptRepresentation): void {
  applyCollectionHeaders(res, kept.headers);
  sendPrepared(res, kept);
}

/** The handler of a list operation, from its policy. */
export function listResponder<R, Q extends { page?: number; per_page?: number }, L extends ListRequest<R>>(
  policy: ListPolicy<R, Q, L>,
  services: Services,
): OperationHandler {
  const pageKeys = new PageKeysByRequest(2_000);
  return async (req, res) => {
    const ctx = context(req);
    const lookup = await sentAsKept(policy, services, pageKeys, req, res, ctx);
    if (lookup === "sent") return;
    const sync = await syncRequestOf(req, policy.resource, services);
    const query = (sync?.query ?? policy.query(req)) as Q;
    const page = pageRequest(query, services.config);
    const list = await policy.prepare(req, query, ctx);
    if (policy.variesByAccept) res.vary("Accept");
    if (policy.feed?.wanted(req, query)) return policy.feed.send(req, res, list, query);
    if (sync) {
      const { resource, path, collectionKey, idOf } = policy;
      const tombstoneRule = policy.tombstoneRule(ctx.principal);
      const source = {
        resource,
        path,
        collectionKey,
        idOf,
        tombstoneRule,
        perPage: page.perPage,
        readShown: list.readShown,
        serialize: list.present,
      };
      return sendSyncPage(req, res, ctx, sync, source, services);
    }
    await sendPage(policy, services, lookup, req, res, ctx, page, list);
  };
}

/**
 * What looking a page up by its request found, for the page made instead: where to remember it
 * (no `request` where it may not be kept), and the cache's freshness taken before the request's
 * reads (so that its page is kept only if nothing changed since: see sendPage).
 */
interface PageLookup {
  pageKeys: PageKeysByRequest;
  request: string | null;
  freshness: Freshness | null;
}

/** Answers with the page this request was last answered with, kept and current, if there is one. */
async function sentAsKept<R, Q extends { page?: number; per_page?: number }, L extends ListRequest<R>>(
  policy: ListPolicy<R, Q, L>,
  services: Services,
  pageKeys: PageKeysByRequest,
  req: Request,
  res: Response,
  ctx: RequestContext,
): Promise<"sent" | PageLookup> {
  const request = requestKeyOf(req, ctx, policy.resource);
  if (request === null || policy.feed?.wanted(req, policy.query(req)))
    return { pageKeys, request: null, freshness: null };
  const freshness = await services.representations.freshen();
  const pageKey = pageKeys.find(request, momentOf(services, freshness));
  const kept = pageKey === undefined ? undefined : services.representations.get(pageKey);
  if (!kept) return { pageKeys, request, freshness };
  if (policy.variesByAccept) res.vary("Accept");
  sendKeptPage(res, kept);
  return "sent";
}

/** A page of the list: items kept or made, links, totals, headers and the token to sync from. */
async function sendPage<R, Q extends { page?: number; per_page?: number }, L extends ListRequest<R>>(
  policy: ListPolicy<R, Q, L>,
  services: Services,
  lookup: PageLookup,
  req: Request,
  res: Response,
  ctx: RequestContext,
  page: PageRequest,
  list: ListRequest<R>,
): Promise<void> {
  const { representations } = services;
  // The freshness found before the filters were read, where it was looked for: a page made from
  // reads after it is kept only if nothing changed since (RepresentationCache.keep).
  const keeping = ctx.principal === null ? (lookup.freshness ?? (await representations.freshen())) : null;
  const freshness = keeping ?? (policy.kept ? await representations.freshen() : null);
  // An anonymous reader's page is kept whole until anything changes (a write anywhere may add an
  // item to it or change its total); its items are kept apart, until what each shows changes.
  const pageKey =
    keeping && list.pageKey !== undefined
      ? `${policy.resource}|page|${ctx.language}|${ctx.apiBase}|${req.originalUrl}|${list.pageKey}`
      : null;
  if (pageKey && lookup.request) lookup.pageKeys.remember(lookup.request, momentOf(services, keeping!), pageKey);
  const keptPage = pageKey ? representations.get(pageKey) : undefined;
  if (keptPage) return sendKeptPage(res, keptPage);
  const keyOf = (id: number) => `${policy.resource}:${id}|listed|${ctx.language}|${ctx.apiBase}`;
  const shown = new Map<number, string>();
  const needed = (id: number) => {
    const kept = keeping && policy.kept && representations.get(keyOf(id));
    if (kept) shown.set(id, kept.json);
    return !kept;
  };
  const syncToken = await listingToken(req, res, policy.resource, services, freshness?.position);
  const { ids, items, total } = await list.readPage(
    { offset: offsetOf(page), limit: page.perPage },
    policy.kept ? needed : undefined,
  );
  if (ids.length === 0 && page.page > 1 && policy.pastLastPage !== null) throw new ApiError(policy.pastLastPage);
  for (const item of items) {
    const json = JSON.stringify(list.present(item));
    if (keeping && policy.kept?.shared(item))
      representations.keep(keeping, keyOf(policy.idOf(item)), json, policy.kept.shows(item));
    shown.set(policy.idOf(item), json);
  }
  const totalPages = totalPagesOf(total, page.perPage);
  const links = collectionLinks(ctx, policy.path, echoedQuery(req, page, list.echo), page, totalPages);
  const headers = setCollectionHeaders(res, total, totalPages, links);
  const next_sync_token = await syncToken();
  const itemsJson = `"${policy.collectionKey}":[${ids.flatMap((id) => shown.get(id) ?? []).join(",")}]`;
  const { rest_url, ...pageLinks } = links;
  const json = policy.totalsFirst
    ? `${JSON.stringify({ rest_url, total, total_pages: totalPages }).slice(0, -1)},${itemsJson},${JSON.stringify({ ...pageLinks, next_sync_token }).slice(1)}`
    : `{${itemsJson},${JSON.stringify({ ...links, total, total_pages: totalPages, next_sync_token }).slice(1)}`;
  if (!pageKey) return sendRepresentationText(res, json);
  headers.push([SYNC_TOKEN_HEADER, next_sync_token]);
  sendPrepared(res, representations.keep(keeping!, pageKey, json, [EVERY_ITEM], headers));
}
