import type { Request } from "express";
import { verifySecret } from "../../auth/password-hash";
import type { Principal } from "../../auth/principal";
import { canEditItem } from "../../auth/post-permissions";
import { canReadItem } from "../../auth/visibility";
import { writeTargetOf } from "../../auth/write-targets";
import { collectionLinks, echoedQuery, offsetOf, pageRequest, setCollectionHeaders, totalPagesOf } from "../../http/collection";
import { sendRepresentation } from "../../http/conditional";
import { ApiError } from "../../http/errors";
import { bindOperations, bodyOf, itemRefOf, queryOf, type Operation, type OperationHandler } from "../../http/operation-types";
import { context } from "../../http/request-context";
import type { Services } from "../../services";
import { forceOf, postTargetRules, postWriteContext, readTagOf, refText, sendWritten, type ItemForms } from "../post-kernel/item-operations";
import { eventFiltersOf, type EventOrderBy } from "./event-query";
import type { EventRecord } from "./event-record";
import { serializeEvent } from "./event-serializer";
import { createEvent, destroyEvent, listEvents, resolveEvent, trashEvent, updateEvent } from "./event-store";

/** A single GET shows the event with its schema.org data; writes answer without it. */
const FORMS: ItemForms<EventRecord> = {
  read: (event, ctx) => serializeEvent(event, ctx, { jsonLd: true, translations: true }),
  written: (event, ctx) => serializeEvent(event, ctx, { jsonLd: false, translations: true }),
};

/**
 * Whether a request may see a password-protected event in full: it gives the event's password,
 * or its caller may edit the event. Events without a password are open to anyone who may read them.
 */
async function opens(event: EventRecord, principal: Principal | null, password: string | undefined): Promise<boolean> {
  if (event.passwordHash === null) return true;
  if (principal && canEditItem(principal, "events", event)) return true;
  return password !== undefined && (await verifySecret(password, event.passwordHash));
}

/** The event operations (tec-rest-v1.md §5, §7.1), by id and by slug alike. */
export function eventOperations(services: Services) {
  const { db } = services;
  const rules = postTargetRules<EventRecord>("events", (ref, order) => resolveEvent(db, ref, order), "rest-event-not-found", services);

  const list: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const query = queryOf(req, "listEvents");
    const page = pageRequest(query, services.config);
    const filters = await eventFiltersOf(db, query, ctx, services.clock());
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
    sendRepresentation(res, { events: items.map((event, i) => serializeEvent(event, ctx, { jsonLd: false, redacted: !open[i] })), ...links, total, total_pages: totalPages });
  };

  const get: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const ref = itemRefOf(req);
    const event = await resolveEvent(db, ref, ctx);
    if (!event) throw new ApiError("rest-event-not-found", { ref: refText(ref) });
    if (event.status === "trash") throw new ApiError("event-no-longer-available");
    if (!canReadItem(ctx.principal, "events", event)) throw new ApiError("event-not-accessible");
    if (!(await opens(event, ctx.principal, queryOf(req, "getEvent").password))) throw new ApiError("event-password-protected");
    sendRepresentation(res, FORMS.read(event, ctx));
  };

  const create: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const event = await createEvent(db, postWriteContext(req, "events", services.clock()), bodyOf(req, "createEvent"));
    res.setHeader("Location", `${ctx.apiBase}/events/${event.id}`);
    sendWritten(req, res, event, FORMS, { status: 201 });
  };

  const targetOf = (req: Request, rule: typeof rules.edit) => writeTargetOf(req, rule, readTagOf(FORMS, context(req)));

  const update: Operation = {
    target: rules.edit,
    run: async (req, res) => {
      const event = await updateEvent(db, postWriteContext(req, "events", services.clock()), targetOf(req, rules.edit), bodyOf(req, "updateEvent"));
      sendWritten(req, res, event, FORMS);
    },
  };

  const remove: Operation = {
    target: rules.remove,
    run: async (req, res) => {
      const target = targetOf(req, rules.remove);
      const force = forceOf(req);
      const event = force ? await destroyEvent(db, target) : await trashEvent(db, services.clock(), target);
      sendWritten(req, res, event, FORMS, { deleted: force });
    },
  };

  return bindOperations({ list: { run: list }, create: { run: create }, get: { run: get }, update, remove }, {
    listEvents: "list", createEvent: "create", getEvent: "get", getEventBySlug: "get",
    updateEvent: "update", putEvent: "update", patchEvent: "update", updateEventBySlug: "update", putEventBySlug: "update", patchEventBySlug: "update",
    deleteEvent: "remove", deleteEventBySlug: "remove",
  });
}
