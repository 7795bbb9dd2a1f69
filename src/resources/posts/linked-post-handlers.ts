import type { Request } from "express";
import type { PostType } from "../../auth/roles";
import { canReadItem, type OwnedItem } from "../../auth/visibility";
import { collectionLinks, echoedQuery, offsetOf, pageRequest, setCollectionHeaders, totalPagesOf } from "../../http/collection";
import { ApiError, invalidParam, type ErrorCode } from "../../http/errors";
import { bodyOf, itemIdOf, queryOf, type OperationHandler } from "../../http/operation-types";
import { context, type RequestContext } from "../../http/request-context";
import type { Services } from "../../services";
import { searchWords } from "../../text/search-text";
import { isReadableEvent } from "../events/event-lookup";
import type { LinkedPostFilters } from "./linked-post-query";
import type { LinkedPostStore, LinkedPostWriteContext } from "./linked-post-store";
import { listableConditions, statusesToList } from "./post-access";
import { deleteGuard, editGuard } from "./post-guards";

/** What tells venues and organizers apart to their (shared) handlers. */
export interface LinkedPostResource<R extends OwnedItem & { id: number }, I, J> {
  type: PostType;
  collectionPath: "/venues" | "/organizers";
  collectionKey: "venues" | "organizers";
  codes: { notFound: ErrorCode; notAccessible: ErrorCode; inTrash: ErrorCode; archivePageNotFound: ErrorCode };
  store: LinkedPostStore<R, I>;
  serialize(record: R, ctx: RequestContext, options: { jsonLd: boolean; translations?: boolean }): J;
  /** The store's input, from a validated write body. */
  input(body: Record<string, unknown>): I;
}

export interface LinkedPostHandlers {
  list: OperationHandler;
  create: OperationHandler;
  get: OperationHandler;
  getBySlug: OperationHandler;
  update: OperationHandler;
  updateBySlug: OperationHandler;
  remove: OperationHandler;
  removeBySlug: OperationHandler;
}

const NO_SUCH_EVENT = {
  en: "Must be the id of an existing event.",
  "pt-br": "Deve ser o id de um evento existente.",
  es: "Debe ser el id de un evento existente.",
};

export function linkedPostHandlers<R extends OwnedItem & { id: number }, I, J>(resource: LinkedPostResource<R, I, J>, services: Services): LinkedPostHandlers {
  const { db } = services;
  const { store, codes, type } = resource;

  /** The id a request names, by its `{id}` or by resolving its `{slug}`. */
  async function idOf(req: Request): Promise<number> {
    const { slug } = req.params as { slug?: string };
    if (slug === undefined) return itemIdOf(req);
    const found = await store.findBySlug(db, slug);
    if (!found) throw new ApiError(codes.notFound, { ref: slug });
    return found.id;
  }

  function writeContext(req: Request): LinkedPostWriteContext {
    const ctx = context(req);
    return { principal: ctx.principal!, type, siteTimezone: ctx.siteTimezone, now: services.clock(), language: ctx.language, defaultLanguage: ctx.defaultLanguage };
  }

  const list: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const query = queryOf(req, "listVenues");
    const page = pageRequest(query, services.config);
    // The events the caller may read: linked events outside them count for no filter.
    const readableEvents = listableConditions(ctx.principal, "events", statusesToList(ctx.principal, "events", undefined));
    const filters: LinkedPostFilters = {
      language: ctx.language,
      visible: listableConditions(ctx.principal, type, statusesToList(ctx.principal, type, query.status)),
      searchWords: query.search ? searchWords(query.search) : [],
      hasEvents: query.has_events === undefined ? undefined : { value: query.has_events, visible: readableEvents },
    };
    if (query.event !== undefined) {
      if (!(await isReadableEvent(db, query.event, ctx.principal))) throw invalidParam("event", "rest_event_not_found", NO_SUCH_EVENT, "notFound");
      filters.eventId = query.event;
    }
    if (query.only_with_upcoming) filters.upcoming = { since: services.clock(), visible: readableEvents };
    const { items, total } = await store.list(db, filters, offsetOf(page), page.perPage);
    if (items.length === 0 && page.page > 1) throw new ApiError(codes.archivePageNotFound);
    const totalPages = totalPagesOf(total, page.perPage);
    const links = collectionLinks(ctx, resource.collectionPath, echoedQuery(req, page), page, totalPages);
    setCollectionHeaders(res, total, totalPages, links);
    res.json({ [resource.collectionKey]: items.map((item) => resource.serialize(item, ctx, { jsonLd: false })), ...links, total, total_pages: totalPages });
  };

  const get: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const id = await idOf(req);
    const record = await store.find(db, id);
    if (!record) throw new ApiError(codes.notFound, { ref: id });
    if (!canReadItem(ctx.principal, type, record)) throw new ApiError(codes.notAccessible);
    res.json(resource.serialize(record, ctx, { jsonLd: true, translations: true }));
  };

  const create: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const record = await store.create(db, writeContext(req), resource.input(bodyOf(req, "createVenue") as Record<string, unknown>));
    const json = resource.serialize(record, ctx, { jsonLd: false, translations: true });
    res.status(201).setHeader("Location", `${ctx.apiBase}${resource.collectionPath}/${record.id}`);
    res.json(json);
  };

  const update: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const id = await idOf(req);
    const record = await store.update(db, writeContext(req), id, resource.input(bodyOf(req, "updateVenue") as Record<string, unknown>), editGuard<R>(ctx.principal!, type, codes.notFound, id));
    res.json(resource.serialize(record, ctx, { jsonLd: false, translations: true }));
  };

  const remove: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const id = await idOf(req);
    const force = queryOf(req, "deleteVenue").force === true;
    const guard = deleteGuard<R>(ctx.principal!, type, codes, id, force);
    const record = force ? await store.destroy(db, id, guard) : await store.trash(db, { now: services.clock() }, id, guard);
    res.json(resource.serialize(record, ctx, { jsonLd: false, translations: true }));
  };

  return { list, create, get, getBySlug: get, update, updateBySlug: update, remove, removeBySlug: remove };
}
