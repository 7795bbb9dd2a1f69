import type { Request } from "express";
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
import { ApiError } from "../../http/errors";
import {
  bindOperations,
  bodyOf,
  itemRefOf,
  queryOf,
  type ItemOperationSet,
  type Operation,
  type OperationHandler,
  type QueryOf,
  type TargetRule,
} from "../../http/operation-types";
import { context, type RequestContext } from "../../http/request-context";
import type { Services } from "../../services";
import { markupFilterOf } from "../../text/kses";
import { readTagOf, sendWritten, type ItemForms } from "../post-kernel/item-operations";
import { CATEGORIES, TAGS, type TaxonomyConfig, type TermRecord } from "./term-record";
import { termListQueryOf } from "./term-query";
import { listingToken, sendSyncPage, syncRequestOf } from "../../sync/sync-listing";
import { serializeTerm } from "./term-serializer";
import { listTerms, resolveTerm } from "./term-repository";
import { createTerm, deleteTerm, updateTerm } from "./term-store";

/** The id in a term's path, as a number (the spec has checked it is an integer). */
function termIdOf(req: Request): number {
  const ref = itemRefOf(req);
  return "id" in ref ? ref.id : NaN;
}

/**
 * The handlers of one taxonomy: categories and tags behave alike, so one set serves both, told
 * apart by their TaxonomyConfig. (Tags take a subset of the categories' parameters and fields, so
 * the category operations' types serve both.)
 */
function termHandlers(config: TaxonomyConfig, services: Services): ItemOperationSet {
  const { db } = services;
  const forms: ItemForms<TermRecord> = {
    read: (term, ctx: RequestContext) => serializeTerm(term, config, ctx, { translations: true }),
    written: (term, ctx: RequestContext) => serializeTerm(term, config, ctx, { translations: true }),
  };
  // Writes need only the caller's role (the spec's scopes): any such caller may write any term.
  const rule: TargetRule<TermRecord> = {
    resolve: (req) => resolveTerm(db, config.taxonomy, termIdOf(req)),
    notFound: (req) => new ApiError(config.notFound, { id: termIdOf(req) }),
    allows: () => true,
  };
  const writeContext = (req: Request) => {
    const ctx = context(req);
    return {
      config,
      language: ctx.language,
      defaultLanguage: ctx.defaultLanguage,
      markup: markupFilterOf(ctx.principal!),
      now: services.clock(),
    };
  };
  const targetOf = (req: Request) => writeTargetOf(req, rule, readTagOf(forms, context(req)));

  const list: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const sync = await syncRequestOf(req, config.collectionKey, services);
    const query = (sync?.query ?? queryOf(req, "listCategories")) as QueryOf<"listCategories">;
    const page = pageRequest(query, services.config);
    const listQuery = await termListQueryOf(
      db,
      config,
      query,
      ctx,
      { offset: offsetOf(page), limit: page.perPage },
      services.clock(),
      services.bridges,
    );
    const present = (term: TermRecord) => serializeTerm(term, config, ctx);
    if (sync) {
      return sendSyncPage(
        req,
        res,
        ctx,
        sync,
        {
          resource: config.collectionKey,
          path: config.collectionPath,
          collectionKey: config.collectionKey,
          perPage: page.perPage,
          readShown: async (ids) =>
            (await listTerms(db, { ...listQuery, onlyIds: ids, offset: 0, limit: ids.length })).items,
          idOf: (term) => term.id,
          serialize: present,
          // Terms are public: anyone may learn that one is gone.
          tombstoneShown: () => true,
        },
        services,
      );
    }
    const syncToken = await listingToken(req, res, config.collectionKey, services);
    const { items, total } = await listTerms(db, listQuery);
    const totalPages = totalPagesOf(total, page.perPage);
    const links = collectionLinks(ctx, config.collectionPath, echoedQuery(req, page), page, totalPages);
    setCollectionHeaders(res, total, totalPages, links);
    const next_sync_token = await syncToken();
    const { rest_url, ...pageLinks } = links;
    sendRepresentation(res, {
      rest_url,
      total,
      total_pages: totalPages,
      [config.collectionKey]: items.map(present),
      ...pageLinks,
      next_sync_token,
    });
  };

  const get: OperationHandler = async (req, res) => {
    const term = await resolveTerm(db, config.taxonomy, termIdOf(req));
    if (!term) throw new ApiError(config.notFound, { id: termIdOf(req) });
    sendRepresentation(res, forms.read(term, context(req)));
  };

  const create: OperationHandler = async (req, res) => {
    const term = await createTerm(db, writeContext(req), bodyOf(req, "createCategory"));
    res.setHeader("Location", `${context(req).apiBase}${config.collectionPath}/${term.id}`);
    sendWritten(req, res, term, forms, { status: 201 });
  };

  const update: Operation = {
    target: rule,
    run: async (req, res) =>
      sendWritten(
        req,
        res,
        await updateTerm(db, writeContext(req), targetOf(req), bodyOf(req, "updateCategory")),
        forms,
      ),
  };

  const remove: Operation = {
    target: rule,
    // The answer is the term as it was; it has no representation any more, so no tag.
    run: async (req, res) =>
      sendWritten(req, res, await deleteTerm(db, config, targetOf(req)), forms, { deleted: true }),
  };

  return { list: { run: list }, create: { run: create }, get: { run: get }, update, remove };
}

/** The category operations (tec-rest-v1.md §6.2, §7.3). */
export function categoryOperations(services: Services) {
  return bindOperations(termHandlers(CATEGORIES, services), {
    listCategories: "list",
    createCategory: "create",
    getCategory: "get",
    updateCategory: "update",
    putCategory: "update",
    patchCategory: "update",
    deleteCategory: "remove",
  });
}

/** The tag operations (tec-rest-v1.md §6.2, §7.3). */
export function tagOperations(services: Services) {
  return bindOperations(termHandlers(TAGS, services), {
    listTags: "list",
    createTag: "create",
    getTag: "get",
    updateTag: "update",
    putTag: "update",
    patchTag: "update",
    deleteTag: "remove",
  });
}
