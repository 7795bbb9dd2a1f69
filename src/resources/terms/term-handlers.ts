import type { Request } from "express";
import { collectionLinks, echoedQuery, offsetOf, pageRequest, setCollectionHeaders, totalPagesOf } from "../../http/collection";
import { ApiError, invalidParam } from "../../http/errors";
import { bodyOf, itemIdOf, queryOf, type OperationHandler } from "../../http/operation-types";
import { context } from "../../http/request-context";
import type { Services } from "../../services";
import { searchWords } from "../../text/search-text";
import { isReadableEvent } from "../events/event-lookup";
import type { TaxonomyConfig } from "./taxonomies";
import { createTerm, deleteTerm, findTerm, listTerms, resolveTermRefs, updateTerm, type TermOrderBy } from "./term-store";
import { serializeTerm } from "./term-serializer";

export interface TermHandlers {
  list: OperationHandler;
  create: OperationHandler;
  get: OperationHandler;
  update: OperationHandler;
  remove: OperationHandler;
}

const NO_SUCH_TERM = {
  en: "No term of this taxonomy has this id or slug.",
  "pt-br": "Nenhum termo desta taxonomia tem este id ou slug.",
  es: "Ningún término de esta taxonomía tiene este id o slug.",
};

const NO_SUCH_EVENT = {
  en: "Must be the id of an existing event.",
  "pt-br": "Deve ser o id de um evento existente.",
  es: "Debe ser el id de un evento existente.",
};

/**
 * The handlers of `/categories` and `/tags`: the two taxonomies behave alike, so one set of
 * handlers serves both, told apart by their TaxonomyConfig. (The spec types of the category
 * operations are used for both; the tag operations take a subset of their parameters.)
 */
export function termHandlers(config: TaxonomyConfig, services: Services): TermHandlers {
  const { db } = services;

  async function termIds(req: Request, param: "include" | "exclude", refs: string[] | undefined): Promise<number[] | undefined> {
    if (refs === undefined) return undefined;
    const ctx = context(req);
    const { ids, unknown } = await resolveTermRefs(db, config.taxonomy, refs, ctx.language, ctx.defaultLanguage);
    if (unknown.length > 0) throw invalidParam(param, "rest_term_not_found", NO_SUCH_TERM, "notFound");
    return ids;
  }

  async function eventFilter(req: Request, query: { post?: number; event?: number }): Promise<number | undefined> {
    // When both are given, `event` wins (as in the original).
    const param = query.event !== undefined ? "event" : query.post !== undefined ? "post" : null;
    if (param === null) return undefined;
    const id = query[param]!;
    if (!(await isReadableEvent(db, id, context(req).principal))) throw invalidParam(param, "rest_event_not_found", NO_SUCH_EVENT, "notFound");
    return id;
  }

  async function parentFilter(parent: number | undefined): Promise<number | undefined> {
    if (parent === undefined || parent === 0) return parent;
    if (!(await findTerm(db, config.taxonomy, parent))) throw invalidParam("parent", "rest_term_not_found", NO_SUCH_TERM, "notFound");
    return parent;
  }

  const list: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const query = queryOf(req, "listCategories");
    const page = pageRequest(query, services.config);
    const [includeIds, excludeIds, eventId, parentId] = await Promise.all([
      termIds(req, "include", query.include),
      termIds(req, "exclude", query.exclude),
      eventFilter(req, query),
      config.hierarchical ? parentFilter(query.parent) : undefined,
    ]);
    const { items, total } = await listTerms(db, {
      taxonomy: config.taxonomy,
      language: ctx.language,
      defaultLanguage: ctx.defaultLanguage,
      offset: offsetOf(page),
      limit: page.perPage,
      searchWords: query.search ? searchWords(query.search) : [],
      includeIds,
      excludeIds,
      order: (query.order ?? "asc").toLowerCase() as "asc" | "desc",
      orderBy: (query.orderby ?? "name") as TermOrderBy,
      hideEmpty: query.hide_empty ?? true,
      parentId,
      eventId,
      slug: query.slug,
    });
    const totalPages = totalPagesOf(total, page.perPage);
    const links = collectionLinks(ctx, config.collectionPath, echoedQuery(req, page), page, totalPages);
    setCollectionHeaders(res, total, totalPages, links);
    const { rest_url, ...pageLinks } = links;
    res.json({
      rest_url,
      total,
      total_pages: totalPages,
      [config.collectionKey]: items.map((term) => serializeTerm(term, config, ctx)),
      ...pageLinks,
    });
  };

  const get: OperationHandler = async (req, res) => {
    const id = itemIdOf(req);
    const term = await findTerm(db, config.taxonomy, id);
    if (!term) throw new ApiError(config.notFound, { id });
    res.json(serializeTerm(term, config, context(req), { translations: true }));
  };

  const create: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const body = bodyOf(req, "createCategory");
    const term = await createTerm(
      db,
      { config, language: ctx.language, defaultLanguage: ctx.defaultLanguage },
      { name: body.name, description: body.description, slug: body.slug, parent: body.parent },
    );
    const json = serializeTerm(term, config, ctx, { translations: true });
    res.status(201).setHeader("Location", json.urls.self);
    res.json(json);
  };

  const update: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const id = itemIdOf(req);
    const body = bodyOf(req, "updateCategory");
    const term = await updateTerm(
      db,
      { config, language: ctx.language, defaultLanguage: ctx.defaultLanguage },
      id,
      { name: body.name, description: body.description, slug: body.slug, parent: body.parent },
    );
    res.json(serializeTerm(term, config, ctx, { translations: true }));
  };

  const remove: OperationHandler = async (req, res) => {
    const id = itemIdOf(req);
    const term = await deleteTerm(db, config, id);
    res.json(serializeTerm(term, config, context(req), { translations: true }));
  };

  return { list, create, get, update, remove };
}
