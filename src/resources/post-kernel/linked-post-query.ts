import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Language } from "../../i18n/languages";
import { listableConditions, statusesToList, type StatusCondition } from "../../auth/post-permissions";
import type { PostType } from "../../auth/roles";
import { ParamProblems } from "../../http/errors";
import type { QueryOf } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { modifiedWindowOf, type ModifiedWindow } from "../../sync/modified-window";
import { searchWords } from "../../text/search-text";

/**
 * The filters of GET /venues and GET /organizers (tec-rest-v1.md §6.1). Both models have the
 * same relations (`texts`, and `events` through a link table), so one where-input serves both.
 */
export interface LinkedPostFilters {
  language: Language;
  /** Which items the caller may see (and asked for), as an OR-list. */
  visible: StatusCondition[];
  searchWords: string[];
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
    searchWords: query.search ? searchWords(query.search) : [],
    hasEvents: query.has_events === undefined ? undefined : { value: query.has_events, visible: readableEvents },
    modified: modifiedWindowOf(query, ctx.siteTimezone, now, problems),
  };
  problems.throwIfAny();
  if (query.only_with_upcoming) filters.upcoming = { since: now, visible: readableEvents };
  return filters;
}

/** Event statuses that do not count for `has_events`. */
const NOT_COUNTED = ["draft", "pending", "trash"];

export type LinkedPostWhere = Prisma.VenueWhereInput & Prisma.OrganizerWhereInput;

export function linkedPostWhere(filters: LinkedPostFilters): LinkedPostWhere {
  const conditions: LinkedPostWhere[] = [{ OR: filters.visible }];
  if (filters.searchWords.length > 0) {
    conditions.push({
      texts: {
        some: {
          language: filters.language,
          AND: filters.searchWords.map((word) => ({ searchText: { contains: word } })),
        },
      },
    });
  }
  if (filters.eventId !== undefined) conditions.push({ events: { some: { eventId: filters.eventId } } });
  if (filters.hasEvents) {
    const counted = { event: { status: { notIn: NOT_COUNTED }, OR: filters.hasEvents.visible } };
    conditions.push({ events: filters.hasEvents.value ? { some: counted } : { none: counted } });
  }
  if (filters.upcoming) {
    conditions.push({
      events: { some: { event: { startsAt: { gte: filters.upcoming.since }, OR: filters.upcoming.visible } } },
    });
  }
  if (filters.modified.after || filters.modified.before)
    conditions.push({ modifiedAt: { gt: filters.modified.after, lt: filters.modified.before } });
  if (filters.onlyIds) conditions.push({ id: { in: filters.onlyIds } });
  return { AND: conditions };
}

const ORDER_COLUMNS = { date: "postDate", modified: "modifiedAt", id: "id" } as const;

export type LinkedPostOrder = Array<Prisma.VenueOrderByWithRelationInput & Prisma.OrganizerOrderByWithRelationInput>;

/**
 * By `orderby` (default `date`) in `order` (default newest first, as WordPress lists posts); ties
 * by id. The other orders WordPress names are ignored, as the original ignores them all here.
 */
export function linkedPostOrder(orderBy: string = "date", order: string = "desc"): LinkedPostOrder {
  if (!(orderBy in ORDER_COLUMNS)) return linkedPostOrder();
  const direction = order.toLowerCase() === "asc" ? "asc" : "desc";
  const column = ORDER_COLUMNS[orderBy as keyof typeof ORDER_COLUMNS];
  return column === "id" ? [{ id: direction }] : [{ [column]: direction }, { id: direction }];
}
