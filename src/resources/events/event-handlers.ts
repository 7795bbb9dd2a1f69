import type { Request } from "express";
import { verifySecret } from "../../auth/password-hash";
import type { Principal } from "../../auth/principal";
import { canReadItem } from "../../auth/visibility";
import { collectionLinks, echoedQuery, offsetOf, pageRequest, setCollectionHeaders, totalPagesOf } from "../../http/collection";
import { ApiError } from "../../http/errors";
import { bodyOf, itemIdOf, queryOf, type OperationHandler } from "../../http/operation-types";
import { context } from "../../http/request-context";
import type { Services } from "../../services";
import { searchWords } from "../../text/search-text";
import type { LinkedPostWriteContext } from "../posts/linked-post-store";
import { canEditItem, listableConditions, statusesToList } from "../posts/post-access";
import { deleteGuard, editGuard } from "../posts/post-guards";
import { ParamProblems } from "../posts/post-write";
import { resolveTermRefs } from "../terms/term-store";
import { venueIdsWithin } from "../venues/venue-geo";
import { eventWindow } from "./event-dates";
import type { EventFilters, EventOrderBy } from "./event-query";
import { serializeEvent } from "./event-serializer";
import { createEvent, destroyEvent, findEvent, findEventBySlug, listEvents, trashEvent, updateEvent, type EventInput, type EventRecord } from "./event-store";

export interface EventHandlers {
  list: OperationHandler;
  create: OperationHandler;
  get: OperationHandler;
  update: OperationHandler;
  remove: OperationHandler;
}

const NO_SUCH_ITEM = {
  en: "Every item must name an existing item of this kind.",
  "pt-br": "Cada item deve indicar um item existente deste tipo.",
  es: "Cada elemento debe indicar un elemento existente de este tipo.",
};

const GEOLOC_NEEDS_POINT = {
  en: "Required when geoloc is true.",
  "pt-br": "Obrigatório quando geoloc é true.",
  es: "Obligatorio cuando geoloc es true.",
};

const DEFAULT_GEOLOC_RADIUS_KM = 10;

/**
 * Whether a request may see a password-protected event in full: it gives the event's password,
 * or its caller may edit the event. Events without a password are open to anyone who may read them.
 */
async function opens(event: EventRecord, principal: Principal | null, password: string | undefined): Promise<boolean> {
  if (event.passwordHash === null) return true;
  if (principal && canEditItem(principal, "events", event)) return true;
  return password !== undefined && (await verifySecret(password, event.passwordHash));
}

export function eventHandlers(services: Services): EventHandlers {
  const { db } = services;

  /** The event a request names, by its `{id}` or its `{slug}`; 404 when there is none. */
  async function eventOf(req: Request): Promise<EventRecord> {
    const ctx = context(req);
    const { slug } = req.params as { slug?: string };
    const ref = slug ?? itemIdOf(req);
    const event = slug === undefined ? await findEvent(db, itemIdOf(req)) : await findEventBySlug(db, slug, ctx.language, ctx.defaultLanguage);
    if (!event) throw new ApiError("rest-event-not-found", { ref });
    return event;
  }

  function writeContext(req: Request): LinkedPostWriteContext {
    const ctx = context(req);
    return { principal: ctx.principal!, type: "events", siteTimezone: ctx.siteTimezone, now: services.clock(), language: ctx.language, defaultLanguage: ctx.defaultLanguage };
  }

  async function filtersOf(req: Request): Promise<EventFilters> {
    const ctx = context(req);
    const query = queryOf(req, "listEvents");
    const problems = new ParamProblems();
    const filters: EventFilters = {
      language: ctx.language,
      visible: listableConditions(ctx.principal, "events", statusesToList(ctx.principal, "events", query.status)),
      window: eventWindow(query, ctx.siteTimezone, services.clock(), query.include === undefined, problems),
      searchWords: query.search ? searchWords(query.search) : [],
      featured: query.featured,
      ticketed: query.ticketed,
      includeIds: query.include,
    };
    for (const [param, taxonomy] of [["categories", "category"], ["tags", "tag"]] as const) {
      const refs = query[param];
      if (refs === undefined) continue;
      const { ids, unknown } = await resolveTermRefs(db, taxonomy, refs, ctx.language, ctx.defaultLanguage);
      if (unknown.length > 0) problems.add(param, "rest_term_not_found", NO_SUCH_ITEM, "notFound");
      filters[param === "categories" ? "categoryIds" : "tagIds"] = ids;
    }
    if (query.venue && (await db.read.venue.count({ where: { id: { in: query.venue } } })) !== new Set(query.venue).size) {
      problems.add("venue", "rest_venue_not_found", NO_SUCH_ITEM, "notFound");
    }
    filters.venueIds = query.venue;
    if (query.organizer && (await db.read.organizer.count({ where: { id: { in: query.organizer } } })) !== new Set(query.organizer).size) {
      problems.add("organizer", "rest_organizer_not_found", NO_SUCH_ITEM, "notFound");
    }
    filters.organizerIds = query.organizer;
    if (query.post_parent !== undefined) {
      if (!(await db.read.event.findUnique({ where: { id: query.post_parent }, select: { id: true } }))) problems.add("post_parent", "rest_event_not_found", NO_SUCH_ITEM, "notFound");
      filters.parentId = query.post_parent;
    }
    if (query.geoloc) {
      if (query.geoloc_lat === undefined) problems.add("geoloc_lat", "rest_missing_callback_param", GEOLOC_NEEDS_POINT);
      if (query.geoloc_lng === undefined) problems.add("geoloc_lng", "rest_missing_callback_param", GEOLOC_NEEDS_POINT);
      if (query.geoloc_lat !== undefined && query.geoloc_lng !== undefined) {
        filters.nearVenueIds = await venueIdsWithin(db, query.geoloc_lat, query.geoloc_lng, query.geoloc_radius ?? DEFAULT_GEOLOC_RADIUS_KM);
      }
    }
    problems.throwIfAny();
    return filters;
  }

  const list: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const query = queryOf(req, "listEvents");
    const page = pageRequest(query, services.config);
    const filters = await filtersOf(req);
    const { items, total } = await listEvents(db, {
      filters,
      orderBy: (query.orderby ?? "start_date") as EventOrderBy,
      order: (query.order ?? "asc").toLowerCase() as "asc" | "desc",
      offset: offsetOf(page),
      limit: page.perPage,
    });
    if (items.length === 0 && page.page > 1) throw new ApiError("event-archive-page-not-found");
    const open = await Promise.all(items.map((event) => opens(event, ctx.principal, query.password)));
    const totalPages = totalPagesOf(total, page.perPage);
    // The links repeat the effective window: defaulted and whole-day dates, as applied.
    const links = collectionLinks(ctx, "/events", echoedQuery(req, page, filters.window.echo), page, totalPages);
    setCollectionHeaders(res, total, totalPages, links);
    res.json({ events: items.map((event, i) => serializeEvent(event, ctx, { jsonLd: false, redacted: !open[i] })), ...links, total, total_pages: totalPages });
  };

  const get: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const event = await eventOf(req);
    if (event.status === "trash") throw new ApiError("event-no-longer-available");
    if (!canReadItem(ctx.principal, "events", event)) throw new ApiError("event-not-accessible");
    if (!(await opens(event, ctx.principal, queryOf(req, "getEvent").password))) throw new ApiError("event-password-protected");
    res.json(serializeEvent(event, ctx, { jsonLd: true, translations: true }));
  };

  const create: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const body = bodyOf(req, "createEvent") as EventInput & { title: string };
    const event = await createEvent(db, writeContext(req), body);
    res.status(201).setHeader("Location", `${ctx.apiBase}/events/${event.id}`);
    res.json(serializeEvent(event, ctx, { jsonLd: false, translations: true }));
  };

  const update: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const { id } = await eventOf(req);
    const guard = editGuard<EventRecord>(ctx.principal!, "events", "rest-event-not-found", id);
    const event = await updateEvent(db, writeContext(req), id, bodyOf(req, "updateEvent") as EventInput, guard);
    res.json(serializeEvent(event, ctx, { jsonLd: false, translations: true }));
  };

  const remove: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const { id } = await eventOf(req);
    const force = queryOf(req, "deleteEvent").force === true;
    const guard = deleteGuard<EventRecord>(ctx.principal!, "events", { notFound: "rest-event-not-found", inTrash: "event-is-in-trash" }, id, force);
    const event = force ? await destroyEvent(db, id, guard) : await trashEvent(db, services.clock(), id, guard);
    res.json(serializeEvent(event, ctx, { jsonLd: false, translations: true }));
  };

  return { list, create, get, update, remove };
}
