import { editableCondition, listableConditions, statusesToList } from "../../auth/post-permissions";
import type { Principal } from "../../auth/principal";
import type { PostType } from "../../auth/roles";
import { canReadItem, type OwnedItem } from "../../auth/visibility";
import type { Database } from "../../db/database";
import { ParamProblems } from "../../http/errors";
import type { QueryOf } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { searchOf } from "../../text/search-text";
import { resolveTermRefs } from "../terms/term-repository";
import { organizerRepository } from "../organizers/organizer-repository";
import { venueIdsWithin, venueRepository } from "../venues/venue-repository";
import { eventOwners } from "./event-repository";
import { eventWindow } from "./event-dates";
import { modifiedWindowOf } from "../../sync/modified-window";
import type { EventFilters } from "./event-list-sql";

const DEFAULT_GEOLOC_RADIUS_KM = 10;

/** Whether every one of `ids` is an item the caller may read (rows: those of them that exist). */
function allReadable(ids: number[], rows: OwnedItem[], type: PostType, principal: Principal | null): boolean {
  return rows.filter((row) => canReadItem(principal, type, row)).length === new Set(ids).size;
}

/**
 * Whether each id names an event the caller may read, or one in the trash that they may list there
 * (`include` of a trashed event with `status=trash`, the occurrences of a trashed series).
 */
function allNameable(ids: number[], rows: OwnedItem[], principal: Principal | null): boolean {
  const trashListable = listableConditions(principal, "events", ["trash"]);
  const nameable = (row: OwnedItem) =>
    canReadItem(principal, "events", row) ||
    (row.status === "trash" &&
      trashListable.some((condition) => condition.authorId === undefined || condition.authorId === row.authorId));
  return rows.filter(nameable).length === new Set(ids).size;
}

/**
 * The filters of `GET /events` from its query (docs/compatibility.md §5): statuses the caller may see,
 * the date window, terms by id or slug, venues, organizers, the parent, the circle of `geoloc`.
 * Filters that name items that do not exist, or that the caller may not see (a draft venue, a
 * private parent), are `400 rest_invalid_param` alike, all reported at once: a filter does not
 * tell whether a hidden item exists.
 */
/** A list's search, as WordPress reads one (words, phrases, terms to leave out). */
function searchFilters(search: string | undefined, language: string) {
  if (!search) return { searchWords: [] };
  const { words, phrases, excluded } = searchOf(search, language);
  return { searchWords: words, searchPhrases: phrases, searchExcluded: excluded };
}

/**
 * As in the original, `include` lists those events whatever the dates: dates given with it are read
 * (an unreadable one is 400) and repeated in the links, not applied.
 */
function windowOf(query: QueryOf<"listEvents">, siteTimezone: string, now: Date, problems: ParamProblems) {
  const window = eventWindow(query, siteTimezone, now, query.include === undefined, problems);
  return query.include === undefined ? window : { echo: window.echo };
}

export async function eventFiltersOf(
  db: Database,
  query: QueryOf<"listEvents">,
  ctx: RequestContext,
  now: Date,
  passwordHash: string | null,
): Promise<EventFilters> {
  const problems = new ParamProblems();
  const { principal } = ctx;
  const filters: EventFilters = {
    language: ctx.language,
    visible: listableConditions(ctx.principal, "events", statusesToList(ctx.principal, "events", query.status)),
    window: windowOf(query, ctx.siteTimezone, now, problems),
    ...searchFilters(query.search, ctx.language),
    featured: query.featured,
    ticketed: query.ticketed,
    includeIds: query.include,
    modified: modifiedWindowOf(query, ctx.siteTimezone, now, problems),
    protectedOpen: { passwordHash, editable: editableCondition(principal, "events") },
  };
  for (const [param, taxonomy] of [
    ["categories", "category"],
    ["tags", "tag"],
  ] as const) {
    const refs = query[param];
    if (refs === undefined) continue;
    const { ids, unknown } = await resolveTermRefs(db, taxonomy, refs, ctx.language, ctx.defaultLanguage);
    if (unknown.length > 0) problems.add(param, "rest_term_not_found", "notFound");
    filters[param === "categories" ? "categoryIds" : "tagIds"] = ids;
  }
  if (query.venue && !allReadable(query.venue, await venueRepository.owners(db, query.venue), "venues", principal)) {
    problems.add("venue", "rest_venue_not_found", "notFound");
  }
  filters.venueIds = query.venue;
  if (
    query.organizer &&
    !allReadable(query.organizer, await organizerRepository.owners(db, query.organizer), "organizers", principal)
  ) {
    problems.add("organizer", "rest_organizer_not_found", "notFound");
  }
  filters.organizerIds = query.organizer;
  if (query.post_parent !== undefined) {
    if (!allNameable([query.post_parent], await eventOwners(db, [query.post_parent]), principal))
      problems.add("post_parent", "rest_event_not_found", "notFound");
    filters.parentId = query.post_parent;
  }
  // As in the original, an unknown id in `include` is an error, not an empty list.
  if (query.include && !allNameable(query.include, await eventOwners(db, query.include), principal)) {
    problems.add("include", "rest_event_not_found", "notFound");
  }
  if (query.geoloc) {
    // A point is both coordinates or neither (then: events at a venue that has coordinates).
    const { geoloc_lat: lat, geoloc_lng: lng } = query;
    if (lat === undefined && lng === undefined) filters.atLocatedVenue = true;
    else if (lat === undefined) problems.add("geoloc_lat", "rest_missing_callback_param");
    else if (lng === undefined) problems.add("geoloc_lng", "rest_missing_callback_param");
    else {
      filters.nearVenueIds = await venueIdsWithin(db, lat, lng, query.geoloc_radius ?? DEFAULT_GEOLOC_RADIUS_KM);
    }
  }
  // As WordPress answers `orderby=relevance` without a search: there is nothing to rank by.
  if (query.orderby === "relevance" && filters.searchWords.length === 0)
    problems.add("search", "rest_missing_callback_param");
  problems.throwIfAny();
  return filters;
}
