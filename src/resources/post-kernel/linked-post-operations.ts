import type { Request, Response } from "express";
import type { PostType } from "../../auth/roles";
import { canEditItem } from "../../auth/post-permissions";
import type { Principal } from "../../auth/principal";
import { canReadItem } from "../../auth/visibility";
import { writeTargetOf } from "../../auth/write-targets";
import { sendRepresentation } from "../../http/conditional";
import { ApiError, type ErrorCode } from "../../http/errors";
import { listResponder, type ListPolicy, type ListRequest } from "../../http/listing";
import { itemRefOf, type ItemOperationSet, type TargetRule } from "../../http/operation-types";
import { context, type RequestContext } from "../../http/request-context";
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
} from "./item-operations";
import { linkedPostFiltersOf, linkedPostOrder, type LinkedPostListQuery } from "./linked-post-query";
import { postTombstoneRule } from "../../sync/sync-listing";
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
) => object;

/** How a resource reads its own operations' inputs, typed from the spec. */
export interface LinkedPostInputs<I> {
  query(req: Request): LinkedPostListQuery;
  createBody(req: Request): I;
  updateBody(req: Request): I;
}

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
    written: withoutJsonLd,
    state: (record, ctx) => [kind, record.id, record.version, ctx.language],
  };
  const rules = postTargetRules<R>(type, (ref, order) => store.resolve(db, ref, order), codes.notFound, services);
  const targetOf = (req: Request, rule: TargetRule<R>) => writeTargetOf(req, rule, readTagOf(forms, context(req)));

  /** What one request of the list reads: its filters checked. */
  const listRequest = async (
    _req: Request,
    query: LinkedPostListQuery,
    ctx: RequestContext,
  ): Promise<ListRequest<R>> => {
    const filters = linkedPostFiltersOf(query, ctx, type, services.clock());
    if (query.event !== undefined)
      filters.eventId = await services.bridges.eventFilterOf(db, query.event, "event", ctx);
    const orderBy = linkedPostOrder(query.orderby, query.order);
    return {
      present: (item) => serialize(item, ctx, { jsonLd: false }),
      readPage: (page, needed) => store.list(db, filters, orderBy, page, needed),
      readShown: async (ids) =>
        (await store.list(db, { ...filters, onlyIds: ids }, orderBy, { offset: 0, limit: ids.length })).items,
      pageKey:
        filters.searchWords.length > 0 || filters.searchExcluded?.length
          ? undefined
          : JSON.stringify({ filters, orderBy }),
    };
  };

  const listPolicy: ListPolicy<R, LinkedPostListQuery> = {
    resource: type,
    path: collectionPath,
    collectionKey: type,
    query: inputs.query,
    prepare: listRequest,
    idOf: (item) => item.id,
    pastLastPage: codes.archivePageNotFound,
    totalsFirst: false,
    tombstoneRule: (principal) => postTombstoneRule(principal, type),
    // Every anonymous reader sees a published item the same way: its list entry is kept.
    kept: { shared: (item) => item.status === "publish", shows: (item) => [`${type}:${item.id}`] },
  };

  const handlers = {
    list: listResponder(listPolicy, services),

    async get(req: Request, res: Response): Promise<void> {
      const ctx = context(req);
      const ref = itemRefOf(req);
      const record = await store.resolve(db, ref, ctx);
      if (!record) throw new ApiError(codes.notFound, { ref: refText(ref) });
      if (!readableOnItsRoute(ctx.principal, type, record)) throw new ApiError(codes.notAccessible);
      sendRepresentation(res, forms.read(record, ctx), { etag: itemTagOf(forms, record, ctx) });
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

/**
 * A venue or organizer on its own route: a trashed one too, to those who may edit it (WordPress
 * reads a trashed post's read_post as edit_post), so that it can be looked at before it is restored.
 * Embedded in events and linked by writes, a trashed one stays unseen (canReadItem).
 */
function readableOnItsRoute(principal: Principal | null, type: PostType, record: LinkedPostRecord): boolean {
  if (record.status === "trash") return principal !== null && canEditItem(principal, type, record);
  return canReadItem(principal, type, record);
}
