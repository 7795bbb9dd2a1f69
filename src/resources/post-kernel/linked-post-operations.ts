import type { Request, Response } from "express";
import { listableConditions, statusesToList } from "../../auth/post-permissions";
import type { PostType } from "../../auth/roles";
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
import { sendRepresentation } from "../../http/conditional";
import { ApiError, ParamProblems, type ErrorCode } from "../../http/errors";
import { itemRefOf, type ItemOperationSet, type QueryOf, type TargetRule } from "../../http/operation-types";
import { context, type RequestContext } from "../../http/request-context";
import type { Services } from "../../services";
import { searchWords } from "../../text/search-text";
import {
  destroysOf,
  postTargetRules,
  postWriteContext,
  readTagOf,
  refText,
  sendWritten,
  type ItemForms,
} from "./item-operations";
import { linkedPostOrder, type LinkedPostFilters } from "./linked-post-query";
import { modifiedWindowOf } from "../../sync/modified-window";
import { listingToken, postTombstoneShown, sendSyncPage, syncRequestOf } from "../../sync/sync-listing";
import type { LinkedPostRecord, LinkedPostStore } from "./linked-post-store";

/**
 * The operations venues and organizers share (TEC's linked posts), written once: each resource's
 * operations module (venue-operations.ts, organizer-operations.ts) binds them to its own
 * operationIds, typed from the spec.
 */

/** A linked post's name: what its collection, routes and error codes are named after. */
export type LinkedPostKind = "venue" | "organizer";

/** The item as its serializer gives it; single-item responses (`translations`) also list its languages, GETs carry `json_ld`. */
export type LinkedPostSerializer<R> = (
  record: R,
  ctx: RequestContext,
  options: { jsonLd: boolean; translations?: boolean },
) => unknown;

/** How a resource reads its own operations' inputs, typed from the spec. */
export interface LinkedPostInputs<I> {
  query(req: Request): LinkedPostListQuery;
  createBody(req: Request): I;
  updateBody(req: Request): I;
}

/** The query of both list operations (the spec gives them the same parameters). */
export type LinkedPostListQuery = QueryOf<"listVenues"> & QueryOf<"listOrganizers">;

/** The operations of venues or organizers, reading their inputs as the resource says (`inputs`). */
export function linkedPostOperations<R extends LinkedPostRecord, I>(
  kind: LinkedPostKind,
  store: LinkedPostStore<R, I>,
  serialize: LinkedPostSerializer<R>,
  inputs: LinkedPostInputs<I>,
  services: Services,
): ItemOperationSet {
  const { db } = services;
  const type: PostType = `${kind}s`;
  const collectionPath = `/${type}`;
  const codes = {
    notFound: `rest-${kind}-not-found`,
    notAccessible: `${kind}-not-accessible`,
    inTrash: `${kind}-is-in-trash`,
    archivePageNotFound: `${kind}-archive-page-not-found`,
  } as const satisfies Record<string, ErrorCode>;
  const forms: ItemForms<R> = {
    read: (record, ctx) => serialize(record, ctx, { jsonLd: true, translations: true }),
    written: (record, ctx) => serialize(record, ctx, { jsonLd: false, translations: true }),
  };
  const rules = postTargetRules<R>(type, (ref, order) => store.resolve(db, ref, order), codes.notFound, services);
  const targetOf = (req: Request, rule: TargetRule<R>) => writeTargetOf(req, rule, readTagOf(forms, context(req)));

  const handlers = {
    async list(req: Request, res: Response): Promise<void> {
      const ctx = context(req);
      const sync = await syncRequestOf(req, type, services);
      const query = (sync?.query ?? inputs.query(req)) as LinkedPostListQuery;
      const page = pageRequest(query, services.config);
      // The events the caller may read: linked events outside them count for no filter.
      const readableEvents = listableConditions(
        ctx.principal,
        "events",
        statusesToList(ctx.principal, "events", undefined),
      );
      const problems = new ParamProblems();
      const filters: LinkedPostFilters = {
        language: ctx.language,
        visible: listableConditions(ctx.principal, type, statusesToList(ctx.principal, type, query.status)),
        searchWords: query.search ? searchWords(query.search) : [],
        hasEvents: query.has_events === undefined ? undefined : { value: query.has_events, visible: readableEvents },
        modified: modifiedWindowOf(query, ctx.siteTimezone, services.clock(), problems),
      };
      problems.throwIfAny();
      if (query.event !== undefined)
        filters.eventId = await services.bridges.eventFilterOf(db, query.event, "event", ctx);
      if (query.only_with_upcoming) filters.upcoming = { since: services.clock(), visible: readableEvents };
      const orderBy = linkedPostOrder(query.orderby, query.order);
      const present = (item: R) => serialize(item, ctx, { jsonLd: false });
      if (sync) {
        return sendSyncPage(
          req,
          res,
          ctx,
          sync,
          {
            resource: type,
            path: collectionPath,
            collectionKey: type,
            perPage: page.perPage,
            readShown: async (ids) =>
              (await store.list(db, { ...filters, onlyIds: ids }, orderBy, 0, ids.length)).items,
            idOf: (item) => item.id,
            serialize: present,
            tombstoneShown: postTombstoneShown(ctx.principal, type),
          },
          services,
        );
      }
      const syncToken = await listingToken(req, res, type, services);
      const { items, total } = await store.list(db, filters, orderBy, offsetOf(page), page.perPage);
      if (items.length === 0 && page.page > 1) throw new ApiError(codes.archivePageNotFound);
      const totalPages = totalPagesOf(total, page.perPage);
      const links = collectionLinks(ctx, collectionPath, echoedQuery(req, page), page, totalPages);
      setCollectionHeaders(res, total, totalPages, links);
      const next_sync_token = await syncToken();
      sendRepresentation(res, {
        [type]: items.map(present),
        ...links,
        total,
        total_pages: totalPages,
        next_sync_token,
      });
    },

    async get(req: Request, res: Response): Promise<void> {
      const ctx = context(req);
      const ref = itemRefOf(req);
      const record = await store.resolve(db, ref, ctx);
      if (!record) throw new ApiError(codes.notFound, { ref: refText(ref) });
      if (!canReadItem(ctx.principal, type, record)) throw new ApiError(codes.notAccessible);
      sendRepresentation(res, forms.read(record, ctx));
    },

    async create(req: Request, res: Response): Promise<void> {
      const ctx = context(req);
      const record = await store.create(db, postWriteContext(req, type, services.clock()), inputs.createBody(req));
      res.setHeader("Location", `${ctx.apiBase}${collectionPath}/${record.id}`);
      sendWritten(req, res, record, forms, { status: 201 });
    },

    async update(req: Request, res: Response): Promise<void> {
      const record = await store.update(
        db,
        postWriteContext(req, type, services.clock()),
        targetOf(req, rules.edit),
        inputs.updateBody(req),
      );
      sendWritten(req, res, record, forms);
    },

    async remove(req: Request, res: Response): Promise<void> {
      const { record, deleted } = await store.remove(
        db,
        services.clock(),
        targetOf(req, rules.remove),
        codes.inTrash,
        destroysOf(req),
      );
      sendWritten(req, res, record, forms, { deleted });
    },
  };

  return {
    list: { run: handlers.list },
    create: { run: handlers.create },
    get: { run: handlers.get },
    update: { target: rules.edit, run: handlers.update },
    remove: { target: rules.remove, run: handlers.remove },
  };
}
