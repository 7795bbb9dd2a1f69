import type { Database } from "../../db/database";
import { invalidParam, ParamProblems } from "../../http/errors";
import type { QueryOf } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { searchWords } from "../../text/search-text";
import { modifiedWindowOf } from "../../sync/modified-window";
import type { TaxonomyConfig, TermListQuery } from "./term-record";
import { resolveTerm, resolveTermRefs } from "./term-repository";
import type { ResourceBridges } from "../../services";

/** The query of both list operations (the spec gives tags a subset of the categories' parameters). */
export type TermListParams = QueryOf<"listCategories">;

/**
 * A term list's query, its filters checked: `include`/`exclude` name terms of the taxonomy (ids or
 * slugs), `post`/`event` an event the caller may read (`event` wins, as in the original), `parent` a
 * category. Anything else is `400 rest_invalid_param`.
 */
export async function termListQueryOf(
  db: Database,
  config: TaxonomyConfig,
  query: TermListParams,
  ctx: RequestContext,
  now: Date,
  bridges: ResourceBridges,
): Promise<Omit<TermListQuery, "offset" | "limit">> {
  const termIds = async (param: "include" | "exclude"): Promise<number[] | undefined> => {
    const refs = query[param];
    if (refs === undefined) return undefined;
    const { ids, unknown } = await resolveTermRefs(db, config.taxonomy, refs, ctx.language, ctx.defaultLanguage);
    if (unknown.length > 0) throw invalidParam(param, "rest_term_not_found", "notFound");
    return ids;
  };
  const eventFilter = async (): Promise<number | undefined> => {
    const param = query.event !== undefined ? "event" : query.post !== undefined ? "post" : null;
    if (param === null) return undefined;
    return bridges.eventFilterOf(db, query[param]!, param, ctx);
  };
  const parentFilter = async (): Promise<number | undefined> => {
    const parent = query.parent;
    if (!config.hierarchical || parent === undefined || parent === 0) return config.hierarchical ? parent : undefined;
    if (!(await resolveTerm(db, config.taxonomy, parent)))
      throw invalidParam("parent", "rest_term_not_found", "notFound");
    return parent;
  };
  const [includeIds, excludeIds, eventId, parentId] = await Promise.all([
    termIds("include"),
    termIds("exclude"),
    eventFilter(),
    parentFilter(),
  ]);
  const problems = new ParamProblems();
  const modified = modifiedWindowOf(query, ctx.siteTimezone, now, problems);
  problems.throwIfAny();
  return {
    taxonomy: config.taxonomy,
    language: ctx.language,
    defaultLanguage: ctx.defaultLanguage,
    searchWords: query.search ? searchWords(query.search) : [],
    includeIds,
    excludeIds,
    order: (query.order ?? "asc").toLowerCase() as "asc" | "desc",
    orderBy: query.orderby ?? "name",
    hideEmpty: query.hide_empty ?? true,
    parentId,
    eventId,
    slug: query.slug,
    modified,
  };
}
