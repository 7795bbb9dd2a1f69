import type { Request } from "express";
import { writeTargetOf } from "../../auth/write-targets";
import { sendRepresentation } from "../../http/conditional";
import { ApiError } from "../../http/errors";
import { listResponder, type ListPolicy, type ListRequest } from "../../http/listing";
import {
  bindOperations,
  bodyOf,
  itemRefOf,
  queryOf,
  type ItemOperationSet,
  type Operation,
  type OperationHandler,
  type TargetRule,
} from "../../http/operation-types";
import { context, type RequestContext } from "../../http/request-context";
import type { Services } from "../../services";
import { markupFilterOf } from "../../text/kses";
import { itemTagOf, readTagOf, sendWritten, type ItemForms } from "../post-kernel/item-operations";
import { CATEGORIES, TAGS, type TaxonomyConfig, type TermRecord } from "./term-record";
import { termListQueryOf, type TermListParams } from "./term-query";
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
    written: (read) => read,
    // Its count moves with its events' writes, not its own.
    state: (term, ctx) => [config.taxonomy, term.id, term.version, term.count, ctx.language],
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

  /** What one request of the list reads: its filters checked. */
  const listRequest = async (
    _req: Request,
    query: TermListParams,
    ctx: RequestContext,
  ): Promise<ListRequest<TermRecord>> => {
    const listQuery = await termListQueryOf(db, config, query, ctx, services.clock(), services.bridges);
    return {
      present: (term) => serializeTerm(term, config, ctx),
      readPage: ({ offset, limit }, needed) => listTerms(db, { ...listQuery, offset, limit }, needed),
      readShown: async (ids) =>
        (await listTerms(db, { ...listQuery, onlyIds: ids, offset: 0, limit: ids.length })).items,
      pageKey: listQuery.searchWords.length > 0 ? undefined : JSON.stringify(listQuery),
    };
  };

  const listPolicy: ListPolicy<TermRecord, TermListParams> = {
    resource: config.collectionKey,
    path: config.collectionPath,
    collectionKey: config.collectionKey,
    query: (req) => queryOf(req, "listCategories"),
    prepare: listRequest,
    idOf: (term) => term.id,
    pastLastPage: null,
    totalsFirst: true,
    // Terms are public: anyone may learn that one is gone, once.
    tombstoneRule: () => () => "leftSince",
    // And every anonymous reader sees a term the same way: its list entry is kept.
    kept: { shared: () => true, shows: (term) => [`${config.collectionKey}:${term.id}`] },
  };

  const get: OperationHandler = async (req, res) => {
    const term = await resolveTerm(db, config.taxonomy, termIdOf(req));
    if (!term) throw new ApiError(config.notFound, { id: termIdOf(req) });
    sendRepresentation(res, forms.read(term, context(req)), { etag: itemTagOf(forms, term, context(req)) });
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

  return {
    list: { run: listResponder(listPolicy, services) },
    create: { run: create },
    get: { run: get },
    update,
    remove,
  };
}

/** The category operations (docs/compatibility.md §6.2, §7.3). */
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

/** The tag operations (docs/compatibility.md §6.2, §7.3). */
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
