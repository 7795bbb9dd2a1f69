import type { Request } from "express";
import { clientOf } from "../../auth/authenticate";
import type { Principal } from "../../auth/principal";
import { canEditItem } from "../../auth/post-permissions";
import { canReadItem } from "../../auth/visibility";
import { writeTargetOf } from "../../auth/write-targets";
import {
  collectionLinks,
  echoedQuery,
  offsetOf,
  pageRequest,
  setCollectionHeaders,
  totalPagesOf,
} from "../../http/collection";
import { sendPrepared, sendRepresentation, sendRepresentationText } from "../../http/conditional";
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
  readTagOf,
  refText,
  sendWritten,
  type ItemForms,
} from "../post-kernel/item-operations";
import { eventFiltersOf } from "./event-query";
import type { EventOrderBy } from "./event-list-sql";
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
import { listingToken, postTombstoneShown, sendSyncPage, syncRequestOf } from "../../sync/sync-listing";

/** A single GET shows the event with its schema.org data; writes answer without it. */
const FORMS: ItemForms<EventRecord> = {
  read: (event, ctx) => serializeEvent(event, ctx, { jsonLd: true, translations: true }),
  written: (event, ctx) => serializeEvent(event, ctx, { jsonLd: false, translations: true }),
};

/** The name calendar apps show for a feed. */
const FEED_NAME: Record<Language, string> = { en: "Events", "pt-br": "Eventos", es: "Eventos" };

/** Whether an event reads the same for every anonymous reader: published, without a password. */
function isPublic(event: EventRecord): boolean {
  return event.status === "publish" && event.passwordHash === null;
}

/** Whether the caller may see a password-protected event in full without its password: they may edit it. */
function editable(event: EventRecord, principal: Principal | null): boolean {
  return principal !== null && canEditItem(principal, "events", event);
}

/** The event operations (tec-rest-v1.md §5, §7.1), by id and by slug alike. */
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

  const list: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const sync = await syncRequestOf(req, "events", services);
    const query = (sync?.query ?? queryOf(req, "listEvents")) as QueryOf<"listEvents">;
    const page = pageRequest(query, services.config);
    // The request's password, derived once: it opens (and lets search find) the events it protects.
    const key = await eventPasswords.keyOf(query.password, clientOf(req));
    const filters = await eventFiltersOf(db, query, ctx, services.clock(), key.hash);
    const present = (event: EventRecord) =>
      serializeEvent(event, ctx, {
        jsonLd: false,
        redacted: !key.opens(event.passwordHash) && !editable(event, ctx.principal),
      });
    res.vary("Accept");
    if (wantsCalendar(req, query.ical)) {
      const { events, truncated } = await feedEvents(db, ctx, filters, services.config.feedMaxEvents);
      // The series of occurrences in the window, as the list would show them (same caller, same filters but the dates).
      const seriesOf = async (ids: number[]) =>
        (await eventsAmong(db, ctx, { ...filters, window: { echo: {} } }, ids)).map((record) => ({
          record,
          cancelled: false,
        }));
      const feed = await eventCalendar(await withSeries(events, seriesOf), ctx, FEED_NAME[ctx.language], {
        present,
        kept: ctx.principal === null ? keptEvents(await representations.freshen()) : null,
        maxBytes: services.config.feedMaxBytes,
      });
      return sendCalendar(res, feed, "events.ics", truncated);
    }
    if (sync) {
      return sendSyncPage(
        req,
        res,
        ctx,
        sync,
        {
          resource: "events",
          path: "/events",
          collectionKey: "events",
          perPage: page.perPage,
          readShown: (ids) => eventsAmong(db, ctx, filters, ids),
          idOf: (event) => event.id,
          serialize: present,
          tombstoneShown: postTombstoneShown(ctx.principal, "events"),
        },
        services,
      );
    }
    // An anonymous reader's list shows each public event as every anonymous reader sees it: kept.
    const freshness = await representations.freshen();
    const shared = ctx.principal === null ? freshness : null;
    const listedKey = (id: number) => `events:${id}|listed|${ctx.language}|${ctx.apiBase}`;
    const shown = new Map<number, string>();
    const needed = (id: number) => {
      const representation = shared && representations.get(listedKey(id));
      if (representation) shown.set(id, representation.json);
      return !representation;
    };
    const syncToken = await listingToken(req, res, "events", services, freshness.position);
    const { ids, items, total } = await listEvents(
      db,
      {
        shownIn: ctx,
        filters,
        orderBy: (query.orderby ?? "start_date") as EventOrderBy,
        order: (query.order ?? "asc").toLowerCase() as "asc" | "desc",
        offset: offsetOf(page),
        limit: page.perPage,
      },
      needed,
    );
    if (ids.length === 0 && page.page > 1) throw new ApiError("event-archive-page-not-found");
    for (const event of items) {
      const json = JSON.stringify(present(event));
      if (shared && isPublic(event)) representations.keep(shared, listedKey(event.id), json, itemsShownBy(event));
      shown.set(event.id, json);
    }
    const totalPages = totalPagesOf(total, page.perPage);
    // The links repeat the effective window: defaulted and whole-day dates, as applied.
    const links = collectionLinks(ctx, "/events", echoedQuery(req, page, filters.window.echo), page, totalPages);
    setCollectionHeaders(res, total, totalPages, links);
    const next_sync_token = await syncToken();
    const events = ids.flatMap((id) => shown.get(id) ?? []);
    sendRepresentationText(
      res,
      `{"events":[${events.join(",")}],${JSON.stringify({ ...links, total, total_pages: totalPages, next_sync_token }).slice(1)}`,
    );
  };

  const get: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const ref = itemRefOf(req);
    res.vary("Accept");
    const calendar = wantsCalendar(req, queryOf(req, "getEvent").ical);
    // Every anonymous reader gets the same JSON for a published event without a password: kept.
    const shared = ctx.principal === null && !calendar ? await sharedRepresentation(ref, ctx) : null;
    if (shared?.kept) return sendPrepared(res, shared.kept);
    const event = shared
      ? shared.named && (await readCommittedEvent(db, shared.named.id))
      : await resolveEvent(db, ref, ctx);
    if (!event) throw new ApiError("rest-event-not-found", { ref: refText(ref) });
    if (event.status === "trash") throw new ApiError("event-no-longer-available");
    if (!canReadItem(ctx.principal, "events", event)) throw new ApiError("event-not-accessible");
    const password = queryOf(req, "getEvent").password;
    if (
      event.passwordHash !== null &&
      !editable(event, ctx.principal) &&
      !(await eventPasswords.opensOne(event.passwordHash, password, clientOf(req)))
    ) {
      throw new ApiError("event-password-protected");
    }
    if (calendar) {
      const present = (record: EventRecord) => serializeEvent(record, ctx, { jsonLd: false });
      const single = await eventCalendar([{ record: event, cancelled: false }], ctx, FEED_NAME[ctx.language], {
        present,
        kept: null,
        maxBytes: Infinity,
      });
      return sendCalendar(res, single, `event-${event.id}.ics`);
    }
    const body = FORMS.read(event, ctx);
    if (!shared || !isPublic(event)) return sendRepresentation(res, body);
    const json = JSON.stringify(body);
    const shows = itemsShownBy(event);
    if (shared.slugKey && shared.named?.ownSlug) representations.keep(shared.freshness, shared.slugKey, json, shows);
    sendPrepared(res, representations.keep(shared.freshness, shared.idKey(event.id), json, shows));
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
    const slugKey = "slug" in ref ? `events-slug:${ref.slug}|${variant}` : null;
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
    { list: { run: list }, create: { run: create }, get: { run: get }, update, remove },
    {
      listEvents: "list",
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
