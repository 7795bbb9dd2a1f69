import type { Request, Response } from "express";
import { clientOf } from "../../auth/authenticate";
import type { Principal } from "../../auth/principal";
import { canEditItem } from "../../auth/post-permissions";
import { canReadItem } from "../../auth/visibility";
import { writeTargetOf } from "../../auth/write-targets";
import { sendPrepared, sendRepresentation } from "../../http/conditional";
import { listResponder, type ListPolicy, type ListRequest } from "../../http/listing";
import { ApiError } from "../../http/errors";
import {
  bindOperations,
  bodyOf,
  itemRefOf,
  queryOf,
  type ItemRef,
  type Operation,
  type OperationHandler,
  type QueryOf,
} from "../../http/operation-types";
import { context, type RequestContext } from "../../http/request-context";
import type { Language } from "../../i18n/languages";
import type { Services } from "../../services";
import {
  destroysOf,
  postTargetRules,
  postWriteContext,
  itemTagOf,
  readTagOf,
  refText,
  sendWritten,
  type ItemForms,
  withoutJsonLd,
} from "../post-kernel/item-operations";
import { eventFiltersOf } from "./event-query";
import { isSearch, type EventFilters, type EventOrderBy } from "./event-list-sql";
import { itemsShownBy, type EventRecord } from "./event-record";
import {
  eventsAmong,
  feedEvents,
  listEvents,
  readCommittedEvent,
  resolveEvent,
  resolveEventId,
} from "./event-repository";
import { serializeEvent } from "./event-serializer";
import { createEvent, removeEvent, updateEvent } from "./event-store";
import { eventCalendar, sendCalendar, wantsCalendar, withSeries, type KeptEvents } from "./event-ical";
import type { Freshness } from "../../sync/representation-cache";
import { postTombstoneRule } from "../../sync/sync-listing";
import { slugLookupKeys } from "../../text/slug";

/** A single GET shows the event with its schema.org data; writes answer without it. */
const FORMS: ItemForms<EventRecord> = {
  read: (event, ctx) => serializeEvent(event, ctx, { jsonLd: true, translations: true }),
  written: withoutJsonLd,
  // Its occurrences' horizon moves without a write of it; its terms' counts without writes of them;
  // readers are shown the venues and organizers they may read (as the serializer shows them).
  state: (event, ctx) => [
    "event",
    event.id,
    event.version,
    event.recurrenceUntil?.getTime() ?? null,
    ctx.language,
    event.venues
      .filter(({ venue }) => canReadItem(ctx.principal, "venues", venue))
      .map(({ venue }) => [venue.id, venue.version]),
    event.organizers
      .filter(({ organizer }) => canReadItem(ctx.principal, "organizers", organizer))
      .map(({ organizer }) => [organizer.id, organizer.version]),
    event.terms.map(({ term }) => [term.id, term.version, term.count]),
  ],
};

/** The name calendar apps show for a feed. */
const FEED_NAME: Record<Language, string> = { en: "Events", "pt-br": "Eventos", es: "Eventos" };

/** A request of the event list: what the list reads and shows, and its filters (its feed reads them too). */
interface EventListRequest extends ListRequest<EventRecord, ReturnType<typeof serializeEvent>> {
  filters: EventFilters;
}

/** Whether an event reads the same for every anonymous reader: published, without a password. */
function isPublic(event: EventRecord): boolean {
  return event.status === "publish" && event.passwordHash === null;
}

/** Whether the caller may see a password-protected event in full without its password: they may edit it. */
function editable(event: EventRecord, principal: Principal | null): boolean {
  return principal !== null && canEditItem(principal, "events", event);
}

/** The event operations (docs/compatibility.md §5, §7.1), by id and by slug alike. */
export function eventOperations(services: Services) {
  const { db, eventPasswords, representations } = services;
  /** The stored form of a write's `password`: undefined, unchanged; null (or ""), removed. */
  const passwordWrite = async (req: Request, password: string | null | undefined) =>
    password ? eventPasswords.hash(password, clientOf(req)) : password === undefined ? undefined : null;
  const seriesHorizon = { horizonDays: services.config.recurrenceHorizonDays };
  const rules = postTargetRules<EventRecord>(
    "events",
    (ref, order) => resolveEvent(db, ref, order),
    "rest-event-not-found",
    services,
  );

  /** The VEVENTs of public events, kept for anonymous readers' feeds as their JSON is for lists. */
  const keptEvents = (freshness: Freshness): KeptEvents => ({
    get: (key) => representations.get(key)?.json,
    keep: (key, vevent, record) => void representations.keep(freshness, key, vevent, itemsShownBy(record)),
  });

  /** What one request of the list reads: its filters checked, the request's password derived once (it opens, and lets search find, the events it protects). */
  const listRequest = async (
    req: Request,
    query: QueryOf<"listEvents">,
    ctx: RequestContext,
  ): Promise<EventListRequest> => {
    const key = await eventPasswords.keyOf(query.password, clientOf(req));
    const filters = await eventFiltersOf(db, query, ctx, services.clock(), key.hash);
    const orderBy = (query.orderby ?? "start_date") as EventOrderBy;
    const order = (query.order ?? "asc").toLowerCase() as "asc" | "desc";
    const redacted = (event: EventRecord) => !key.opens(event.passwordHash) && !editable(event, ctx.principal);
    return {
      filters,
      present: (event) => serializeEvent(event, ctx, { jsonLd: false, redacted: redacted(event) }),
      readPage: (page, needed) => listEvents(db, { shownIn: ctx, filters, orderBy, order, ...page }, needed),
      readShown: (ids) => eventsAmong(db, ctx, filters, ids),
      // The links repeat the effective window: defaulted and whole-day dates, as applied.
      echo: filters.window.echo,
      pageKey: isSearch(filters) ? undefined : JSON.stringify({ filters, orderBy, order }),
    };
  };

  /** The list as an iCalendar feed: its events in date order, the series of its occurrences, its cancellations. */
  const sendFeed = async (req: Request, res: Response, list: EventListRequest) => {
    const ctx = context(req);
    const { events, truncated } = await feedEvents(db, ctx, list.filters, services.config.feedMaxEvents);
    // The series of occurrences in the window, as the list would show them (same caller, same filters but the dates).
    const seriesOf = async (ids: number[]) =>
      (await eventsAmong(db, ctx, { ...list.filters, window: { echo: {} } }, ids)).map((record) => ({
        record,
        cancelled: false,
      }));
    const kept = ctx.principal === null ? keptEvents(await representations.freshen()) : null;
    const options = { present: list.present, kept, maxBytes: services.config.feedMaxBytes };
    const feed = await eventCalendar(await withSeries(events, seriesOf), ctx, FEED_NAME[ctx.language], options);
    sendCalendar(res, feed, "events.ics", truncated);
  };

  const listPolicy: ListPolicy<EventRecord, QueryOf<"listEvents">, EventListRequest> = {
    resource: "events",
    path: "/events",
    collectionKey: "events",
    query: (req) => queryOf(req, "listEvents"),
    prepare: listRequest,
    idOf: (event) => event.id,
    pastLastPage: "event-archive-page-not-found",
    totalsFirst: false,
    tombstoneRule: (principal) => postTombstoneRule(principal, "events"),
    // An anonymous reader's list shows each public event as every anonymous reader sees it: kept.
    kept: { shared: isPublic, shows: itemsShownBy },
    feed: { wanted: (req, query) => wantsCalendar(req, query.ical), send: sendFeed },
    variesByAccept: true,
  };

  /** `/events.ics`: the list's feed, whatever the request accepts. */
  const feed: OperationHandler = async (req, res) => {
    const query = queryOf(req, "getEventsFeed");
    await sendFeed(req, res, await listRequest(req, query, context(req)));
  };

  /** `/events/{id}.ics`: the event's file, whatever the request accepts. */
  const getCalendar: OperationHandler = async (req, res) => {
    const ctx = context(req);
    await sendSingleCalendar(res, await readableEvent(req, ctx), ctx);
  };

  const get: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const query = queryOf(req, "getEvent");
    res.vary("Accept");
    const calendar = wantsCalendar(req, query.ical);
    // Every anonymous reader gets the same JSON for a published event without a password: kept.
    const shared = ctx.principal === null && !calendar ? await sharedRepresentation(itemRefOf(req), ctx) : null;
    if (shared?.kept) return sendPrepared(res, shared.kept);
    const event = await readableEvent(req, ctx, shared?.named);
    if (calendar) return sendSingleCalendar(res, event, ctx);
    const body = FORMS.read(event, ctx);
    const etag = itemTagOf(FORMS, event, ctx);
    if (!shared || !isPublic(event)) return sendRepresentation(res, body, { etag });
    const json = JSON.stringify(body);
    const shows = itemsShownBy(event);
    const kept = (key: string) => representations.keep(shared.freshness, key, json, shows, [], etag);
    if (shared.slugKey && shared.named?.ownSlug) kept(shared.slugKey);
    sendPrepared(res, kept(shared.idKey(event.id)));
  };

  /** The event a GET names (`named`: found already), when the caller may read it: else the error the original answers. */
  const readableEvent = async (
    req: Request,
    ctx: RequestContext,
    named?: { id: number } | null,
  ): Promise<EventRecord> => {
    const ref = itemRefOf(req);
    // A single event shows its linked items in the request's language, and its own translations.
    const only = { shownIn: ctx, linkedOnly: true };
    const event =
      named !== undefined
        ? named && (await readCommittedEvent(db, named.id, only))
        : await resolveEvent(db, ref, ctx, only);
    if (!event) throw new ApiError("rest-event-not-found", { ref: refText(ref) });
    if (event.status === "trash") throw new ApiError("event-no-longer-available");
    if (!canReadItem(ctx.principal, "events", event)) throw new ApiError("event-not-accessible");
    await requireOpened(req, ctx, event);
    return event;
  };

  /** A password-protected event opens to those who may edit it, and to a request with its password. */
  const requireOpened = async (req: Request, ctx: RequestContext, event: EventRecord): Promise<void> => {
    if (event.passwordHash === null || editable(event, ctx.principal)) return;
    const password = queryOf(req, "getEvent").password;
    if (!(await eventPasswords.opensOne(event.passwordHash, password, clientOf(req))))
      throw new ApiError("event-password-protected");
  };

  /** One event as an iCalendar file. */
  const sendSingleCalendar = async (res: Response, event: EventRecord, ctx: RequestContext) => {
    const present = (record: EventRecord) => serializeEvent(record, ctx, { jsonLd: false });
    const options = { present, kept: null, maxBytes: Infinity };
    sendCalendar(
      res,
      await eventCalendar([{ record: event, cancelled: false }], ctx, FEED_NAME[ctx.language], options),
      `event-${event.id}.ics`,
    );
  };

  /**
   * An anonymous reader's representation of the event a request names, kept before: under its
   * slug, when the slug is the event's own in the request language (no other event can take it
   * while the event keeps it); else under its id. `named`: the event found, when none was kept.
   */
  const sharedRepresentation = async (ref: ItemRef, ctx: RequestContext) => {
    const freshness = await representations.freshen();
    const variant = `read|${ctx.language}|${ctx.apiBase}`;
    const idKey = (id: number) => `events:${id}|${variant}`;
    // Under the slug as looked up (`Jazz-Night` and `jazz-night` are one), kept only when that exact slug matched.
    const slugKey = "slug" in ref ? `events-slug:${slugLookupKeys(ref.slug)[0] ?? ""}|${variant}` : null;
    const keptBySlug = slugKey === null ? undefined : representations.get(slugKey);
    if (keptBySlug) return { freshness, idKey, slugKey, kept: keptBySlug, named: null };
    const named = await resolveEventId(db, ref, ctx);
    return {
      freshness,
      idKey,
      slugKey,
      named,
      kept: named === null ? undefined : representations.get(idKey(named.id)),
    };
  };

  const create: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const body = bodyOf(req, "createEvent");
    const event = await createEvent(
      db,
      postWriteContext(req, "events", services.clock()),
      body,
      await passwordWrite(req, body.password),
      seriesHorizon,
      services.bridges.linkedItems,
    );
    res.setHeader("Location", `${ctx.apiBase}/events/${event.id}`);
    sendWritten(req, res, event, FORMS, { status: 201 });
  };

  const targetOf = (req: Request, rule: typeof rules.edit) => writeTargetOf(req, rule, readTagOf(FORMS, context(req)));

  const update: Operation = {
    target: rules.edit,
    run: async (req, res) => {
      const body = bodyOf(req, "updateEvent");
      const event = await updateEvent(
        db,
        postWriteContext(req, "events", services.clock()),
        targetOf(req, rules.edit),
        body,
        await passwordWrite(req, body.password),
        seriesHorizon,
        services.bridges.linkedItems,
      );
      sendWritten(req, res, event, FORMS);
    },
  };

  const remove: Operation = {
    target: rules.remove,
    run: async (req, res) => {
      const { event, deleted } = await removeEvent(db, services.clock(), targetOf(req, rules.remove), destroysOf(req));
      sendWritten(req, res, event, FORMS, { deleted });
    },
  };

  return bindOperations(
    {
      list: { run: listResponder(listPolicy, services) },
      feed: { run: feed },
      create: { run: create },
      get: { run: get },
      getCalendar: { run: getCalendar },
      update,
      remove,
    },
    {
      listEvents: "list",
      getEventsFeed: "feed",
      getEventCalendar: "getCalendar",
      createEvent: "create",
      getEvent: "get",
      getEventBySlug: "get",
      updateEvent: "update",
      putEvent: "update",
      patchEvent: "update",
      updateEventBySlug: "update",
      putEventBySlug: "update",
      patchEventBySlug: "update",
      deleteEvent: "remove",
      deleteEventBySlug: "remove",
    },
  );
}
