import { Prisma } from "../../../generated/prisma/sqlite/client";
import { editableCondition, listableConditions, statusesToList, type EditableCondition, type StatusCondition } from "../../auth/post-permissions";
import type { Principal } from "../../auth/principal";
import type { PostType } from "../../auth/roles";
import { canReadItem, type OwnedItem } from "../../auth/visibility";
import type { Database, Provider } from "../../db/database";
import { ParamProblems } from "../../http/errors";
import type { QueryOf } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import type { Language } from "../../i18n/languages";
import { searchWords } from "../../text/search-text";
import { resolveTermRefs } from "../terms/term-store";
import { venueIdsWithin } from "../venues/venue-geo";
import { eventWindow, type EventWindow } from "./event-dates";
import type { EventOrderSql } from "./event-record";
import { searchMatchSql, searchSourceSql } from "./event-search";
import { modifiedWindowOf, type ModifiedWindow } from "../../sync/modified-window";

/** The filters of `GET /events`, resolved (ids, instants); combined with AND. */
export interface EventFilters {
  language: Language;
  /** Which events the caller may see (and asked for), as an OR-list. */
  visible: StatusCondition[];
  window: EventWindow;
  searchWords: string[];
  categoryIds?: number[];
  tagIds?: number[];
  /** Events at any of these venues. */
  venueIds?: number[];
  /** Events at any of these venues: those within the `geoloc` circle. */
  nearVenueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  ticketed?: boolean;
  parentId?: number;
  includeIds?: number[];
  /** Events last written in this window (`modified_after`, `modified_before`). */
  modified: ModifiedWindow;
  /** Only these events (the changed ones, in a sync). */
  onlyIds?: number[];
  /** Only events that were published at some time (the sync log says so): the cancellations of a feed. */
  oncePublished?: boolean;
  /**
   * What a search may find of password-protected events: those the request's password opens (its
   * stored form), and those the caller may edit. WordPress keeps protected posts out of visitors'
   * searches: their text is what the password protects.
   */
  protectedOpen: { passwordHash: string | null; editable: EditableCondition };
}

export type EventOrderBy = NonNullable<QueryOf<"listEvents">["orderby"]>;

const DEFAULT_GEOLOC_RADIUS_KM = 10;

/** Whether every one of `ids` is an item the caller may read (rows: those of them that exist). */
function allReadable(ids: number[], rows: OwnedItem[], type: PostType, principal: Principal | null): boolean {
  return rows.filter((row) => canReadItem(principal, type, row)).length === new Set(ids).size;
}

const OWNERSHIP = { status: true, authorId: true } as const;

/**
 * The filters of `GET /events` from its query (tec-rest-v1.md §5): statuses the caller may see,
 * the date window, terms by id or slug, venues, organizers, the parent, the circle of `geoloc`.
 * Filters that name items that do not exist, or that the caller may not see (a draft venue, a
 * private parent), are `400 rest_invalid_param` alike, all reported at once: a filter does not
 * tell whether a hidden item exists.
 */
export async function eventFiltersOf(db: Database, query: QueryOf<"listEvents">, ctx: RequestContext, now: Date, passwordHash: string | null): Promise<EventFilters> {
  const problems = new ParamProblems();
  const { principal } = ctx;
  const filters: EventFilters = {
    language: ctx.language,
    visible: listableConditions(ctx.principal, "events", statusesToList(ctx.principal, "events", query.status)),
    window: eventWindow(query, ctx.siteTimezone, now, query.include === undefined, problems),
    searchWords: query.search ? searchWords(query.search) : [],
    featured: query.featured,
    ticketed: query.ticketed,
    includeIds: query.include,
    modified: modifiedWindowOf(query, ctx.siteTimezone, now, problems),
    protectedOpen: { passwordHash, editable: editableCondition(principal, "events") },
  };
  for (const [param, taxonomy] of [["categories", "category"], ["tags", "tag"]] as const) {
    const refs = query[param];
    if (refs === undefined) continue;
    const { ids, unknown } = await resolveTermRefs(db, taxonomy, refs, ctx.language, ctx.defaultLanguage);
    if (unknown.length > 0) problems.add(param, "rest_term_not_found", "notFound");
    filters[param === "categories" ? "categoryIds" : "tagIds"] = ids;
  }
  if (query.venue && !allReadable(query.venue, await db.read.venue.findMany({ where: { id: { in: query.venue } }, select: OWNERSHIP }), "venues", principal)) {
    problems.add("venue", "rest_venue_not_found", "notFound");
  }
  filters.venueIds = query.venue;
  if (query.organizer && !allReadable(query.organizer, await db.read.organizer.findMany({ where: { id: { in: query.organizer } }, select: OWNERSHIP }), "organizers", principal)) {
    problems.add("organizer", "rest_organizer_not_found", "notFound");
  }
  filters.organizerIds = query.organizer;
  if (query.post_parent !== undefined) {
    const parents = await db.read.event.findMany({ where: { id: query.post_parent }, select: OWNERSHIP });
    // A series in the trash may be named by those who may list it there: its occurrences are there too.
    const trashListable = listableConditions(principal, "events", ["trash"]);
    const nameable = parents.filter((row) => row.status === "trash" && trashListable.some((condition) => condition.authorId === undefined || condition.authorId === row.authorId));
    if (nameable.length === 0 && !allReadable([query.post_parent], parents, "events", principal)) problems.add("post_parent", "rest_event_not_found", "notFound");
    filters.parentId = query.post_parent;
  }
  // As in the original, an unknown id in `include` is an error, not an empty list.
  if (query.include && !allReadable(query.include, await db.read.event.findMany({ where: { id: { in: query.include } }, select: OWNERSHIP }), "events", principal)) {
    problems.add("include", "rest_event_not_found", "notFound");
  }
  if (query.geoloc) {
    if (query.geoloc_lat === undefined) problems.add("geoloc_lat", "rest_missing_callback_param");
    if (query.geoloc_lng === undefined) problems.add("geoloc_lng", "rest_missing_callback_param");
    if (query.geoloc_lat !== undefined && query.geoloc_lng !== undefined) {
      filters.nearVenueIds = await venueIdsWithin(db, query.geoloc_lat, query.geoloc_lng, query.geoloc_radius ?? DEFAULT_GEOLOC_RADIUS_KM);
    }
  }
  problems.throwIfAny();
  return filters;
}

const NOTHING = Prisma.sql`1 = 0`;

/**
 * Events linked to any of `ids`. The first link filter of a list (`driving`) is an IN list, from
 * which the planners can start: the filter's links, each event then looked up by id. The others
 * are EXISTS, tested on each event so found. SQLite starts from the first IN list it is given and
 * reads every other one in full, so the filters come most selective first (see eventListSql).
 * At 1,000,000 events, a venue (42 events) with a category (46,255): EXISTS everywhere walked the
 * date window, 1.6 s; IN everywhere read the category's links, 80 ms; this, 0.2 ms.
 */
function linkedTo(table: string, key: string, ids: number[], driving: boolean): Prisma.Sql {
  if (ids.length === 0) return NOTHING;
  const links = Prisma.raw(`"${table}" "x"`);
  const column = Prisma.raw(`"x"."${key}"`);
  return driving
    ? Prisma.sql`"e"."id" IN (SELECT "x"."eventId" FROM ${links} WHERE ${column} IN (${Prisma.join(ids)}))`
    : Prisma.sql`EXISTS (SELECT 1 FROM ${links} WHERE "x"."eventId" = "e"."id" AND ${column} IN (${Prisma.join(ids)}))`;
}

/** Events without a password, or whose password the request gives, or that the caller may edit. */
function protectedOpenSql({ passwordHash, editable }: EventFilters["protectedOpen"]): Prisma.Sql {
  if ("all" in editable) return Prisma.sql`1 = 1`;
  const open = [Prisma.sql`"e"."passwordHash" IS NULL`];
  if (passwordHash !== null) open.push(Prisma.sql`"e"."passwordHash" = ${passwordHash}`);
  if ("authorId" in editable) {
    open.push(editable.unpublishedOnly ? Prisma.sql`("e"."authorId" = ${editable.authorId} AND "e"."status" NOT IN ('publish', 'future'))` : Prisma.sql`"e"."authorId" = ${editable.authorId}`);
  }
  return Prisma.sql`(${Prisma.join(open, " OR ")})`;
}

/** The rows (FROM) and conditions (WHERE) of a list of events, the event table aliased "e". */
export function eventListSql(filters: EventFilters, provider: Provider): { from: Prisma.Sql; where: Prisma.Sql } {
  const { window } = filters;
  const conditions: Prisma.Sql[] = [];
  const visible = filters.visible.map((condition) =>
    condition.authorId === undefined ? Prisma.sql`"e"."status" = ${condition.status}` : Prisma.sql`("e"."status" = ${condition.status} AND "e"."authorId" = ${condition.authorId})`,
  );
  conditions.push(visible.length > 0 ? Prisma.sql`(${Prisma.join(visible, " OR ")})` : NOTHING);
  conditions.push(Prisma.sql`"e"."hideFromListings" = ${false}`);
  if (window.startsFrom) conditions.push(Prisma.sql`"e"."startsAt" >= ${window.startsFrom}`);
  if (window.startsBefore) conditions.push(Prisma.sql`"e"."startsAt" < ${window.startsBefore}`);
  if (window.startsAfter) conditions.push(Prisma.sql`"e"."startsAt" > ${window.startsAfter}`);
  if (window.endsUntil) conditions.push(Prisma.sql`"e"."endsAt" <= ${window.endsUntil}`);
  if (window.endsBefore) conditions.push(Prisma.sql`"e"."endsAt" < ${window.endsBefore}`);
  if (window.endsAfter) conditions.push(Prisma.sql`"e"."endsAt" > ${window.endsAfter}`);
  const searching = filters.searchWords.length > 0;
  if (searching) {
    conditions.push(searchMatchSql(filters.language, filters.searchWords));
    conditions.push(protectedOpenSql(filters.protectedOpen));
  }
  // Most selective first, as calendars go: a venue or an organizer has few events, a tag more,
  // a category the most. A search drives the list itself (FROM), so no link filter does.
  const links: Array<[string, string, number[] | undefined]> = [
    ["EventVenue", "venueId", filters.venueIds],
    ["EventOrganizer", "organizerId", filters.organizerIds],
    ["EventVenue", "venueId", filters.nearVenueIds],
    ["EventTerm", "termId", filters.tagIds],
    ["EventTerm", "termId", filters.categoryIds],
  ];
  let driving = !searching;
  for (const [table, key, ids] of links) {
    if (!ids) continue;
    conditions.push(linkedTo(table, key, ids, driving));
    driving = false;
  }
  if (filters.featured !== undefined) conditions.push(Prisma.sql`"e"."featured" = ${filters.featured}`);
  if (filters.ticketed !== undefined) conditions.push(Prisma.sql`"e"."ticketed" = ${filters.ticketed}`);
  if (filters.parentId !== undefined) conditions.push(Prisma.sql`"e"."parentId" = ${filters.parentId}`);
  if (filters.includeIds) conditions.push(filters.includeIds.length > 0 ? Prisma.sql`"e"."id" IN (${Prisma.join(filters.includeIds)})` : NOTHING);
  if (filters.onlyIds) conditions.push(filters.onlyIds.length > 0 ? Prisma.sql`"e"."id" IN (${Prisma.join(filters.onlyIds)})` : NOTHING);
  if (filters.oncePublished) {
    conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM "SyncChange" "s" WHERE "s"."resource" = 'events' AND "s"."itemId" = "e"."id" AND "s"."everPublic" = ${true})`);
  }
  if (filters.modified.after) conditions.push(Prisma.sql`"e"."modifiedAt" > ${filters.modified.after}`);
  if (filters.modified.before) conditions.push(Prisma.sql`"e"."modifiedAt" < ${filters.modified.before}`);
  return {
    from: searching ? searchSourceSql(provider, filters.searchWords) : Prisma.sql`"Event" "e"`,
    where: Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`,
  };
}

const ORDER_COLUMNS: Record<Exclude<EventOrderBy, "title">, string> = {
  start_date: `"e"."startsAt"`,
  end_date: `"e"."endsAt"`,
  date: `"e"."postDate"`,
  modified: `"e"."modifiedAt"`,
  id: `"e"."id"`,
};

/** How a list is ordered; titles in the request language. */
export function eventOrderSql(orderBy: EventOrderBy, direction: "asc" | "desc", language: Language): EventOrderSql {
  const dir = direction === "desc" ? "DESC" : "ASC";
  if (orderBy === "title") {
    return { join: Prisma.sql`LEFT JOIN "EventText" "o" ON "o"."eventId" = "e"."id" AND "o"."language" = ${language}`, key: `"o"."sortKey"`, direction: dir };
  }
  return { join: Prisma.empty, key: ORDER_COLUMNS[orderBy], direction: dir };
}
