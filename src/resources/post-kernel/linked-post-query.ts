import type { Language } from "../../i18n/languages";
import { listableConditions, statusesToList, type StatusCondition } from "../../auth/post-permissions";
import type { PostType } from "../../auth/roles";
import { ParamProblems } from "../../http/errors";
import type { QueryOf } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { modifiedWindowOf, type ModifiedWindow } from "../../sync/modified-window";
import { searchOf } from "../../text/search-text";

/**
 * The filters of GET /venues and GET /organizers (docs/compatibility.md §6.1). Both models have the
 * same relations (`texts`, and `events` through a link table), so one where-input serves both.
 */
export interface LinkedPostFilters {
  language: Language;
  /** Which items the caller may see (and asked for), as an OR-list. */
  visible: StatusCondition[];
  /** A search's words and phrases, that every item found holds, and its terms to leave out (see searchOf). */
  searchWords: string[];
  searchExcluded?: string[];
  /** Only items linked to this event. */
  eventId?: number;
  /**
   * true: linked to an event that is not a draft, pending or trashed, among the events the caller
   * may read (`visible`); false: linked to none.
   */
  hasEvents?: { value: boolean; visible: StatusCondition[] };
  /** Only items linked to an event that starts at or after `since`, among `visible` events. */
  upcoming?: { since: Date; visible: StatusCondition[] };
  /** Items last written in this window (`modified_after`, `modified_before`). */
  modified: ModifiedWindow;
  /** Only these items (the changed ones, in a sync). */
  onlyIds?: number[];
}

/** The query of both list operations (the spec gives them the same parameters). */
export type LinkedPostListQuery = QueryOf<"listVenues"> & QueryOf<"listOrganizers">;

/** A list's search, as WordPress reads one: its words and phrases are looked for alike (by LIKE). */
function searchFiltersOf(search: string | undefined, language: string) {
  if (!search) return { searchWords: [] };
  const { words, phrases, excluded } = searchOf(search, language);
  const inPhrases = new Set(phrases.flatMap((phrase) => phrase.split(" ")));
  return { searchWords: [...words.filter((word) => !inPhrases.has(word)), ...phrases], searchExcluded: excluded };
}

/** The filters of a list's query, but `event` (an event filter is the events' to check: see ResourceBridges). */
export function linkedPostFiltersOf(
  query: LinkedPostListQuery,
  ctx: RequestContext,
  type: PostType,
  now: Date,
): LinkedPostFilters {
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
    ...searchFiltersOf(query.search, ctx.language),
    hasEvents: query.has_events === undefined ? undefined : { value: query.has_events, visible: readableEvents },
    modified: modifiedWindowOf(query, ctx.siteTimezone, now, problems),
  };
  problems.throwIfAny();
  if (query.only_with_upcoming) filters.upcoming = { since: now, visible: readableEvents };
  return filters;
}

const ORDER_COLUMNS = { date: "postDate", modified: "modifiedAt", id: "id" } as const;

/** The order of a list: a column of the item, in a direction (ties by id, the same way). */
export interface LinkedPostOrder {
  column: (typeof ORDER_COLUMNS)[keyof typeof ORDER_COLUMNS];
  direction: "asc" | "desc";
}

/**
 * By `orderby` (default `date`) in `order` (default newest first, as WordPress lists posts); ties
 * by id. The other orders WordPress names are ignored, as the original ignores them all here.
 */
export function linkedPostOrder(orderBy: string = "date", order: string = "desc"): LinkedPostOrder {
  if (!(orderBy in ORDER_COLUMNS)) return linkedPostOrder();
  return {
    column: ORDER_COLUMNS[orderBy as keyof typeof ORDER_COLUMNS],
    direction: order.toLowerCase() === "asc" ? "asc" : "desc",
  };
}
