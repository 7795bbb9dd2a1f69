import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Language } from "../../i18n/languages";
import type { StatusCondition } from "../posts/post-access";
import type { EventWindow } from "./event-dates";

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
}

export type EventOrderBy = "start_date" | "end_date" | "title" | "date" | "modified" | "id";

export function eventWhere(filters: EventFilters): Prisma.EventWhereInput {
  const { window } = filters;
  const conditions: Prisma.EventWhereInput[] = [{ OR: filters.visible }, { hideFromListings: false }];
  const startsAt: Prisma.DateTimeFilter = {};
  if (window.startsFrom) startsAt.gte = window.startsFrom;
  if (window.startsBefore) startsAt.lt = window.startsBefore;
  if (window.startsAfter) startsAt.gt = window.startsAfter;
  if (Object.keys(startsAt).length > 0) conditions.push({ startsAt });
  const endsAt: Prisma.DateTimeFilter = {};
  if (window.endsUntil) endsAt.lte = window.endsUntil;
  if (window.endsBefore) endsAt.lt = window.endsBefore;
  if (window.endsAfter) endsAt.gt = window.endsAfter;
  if (Object.keys(endsAt).length > 0) conditions.push({ endsAt });
  if (filters.searchWords.length > 0) {
    conditions.push({ texts: { some: { language: filters.language, AND: filters.searchWords.map((word) => ({ searchText: { contains: word } })) } } });
  }
  if (filters.categoryIds) conditions.push({ terms: { some: { termId: { in: filters.categoryIds } } } });
  if (filters.tagIds) conditions.push({ terms: { some: { termId: { in: filters.tagIds } } } });
  if (filters.venueIds) conditions.push({ venues: { some: { venueId: { in: filters.venueIds } } } });
  if (filters.nearVenueIds) conditions.push({ venues: { some: { venueId: { in: filters.nearVenueIds } } } });
  if (filters.organizerIds) conditions.push({ organizers: { some: { organizerId: { in: filters.organizerIds } } } });
  if (filters.featured !== undefined) conditions.push({ featured: filters.featured });
  if (filters.ticketed !== undefined) conditions.push({ ticketed: filters.ticketed });
  if (filters.parentId !== undefined) conditions.push({ parentId: filters.parentId });
  if (filters.includeIds) conditions.push({ id: { in: filters.includeIds } });
  return { AND: conditions };
}

export function eventOrder(orderBy: EventOrderBy, direction: "asc" | "desc"): Prisma.EventOrderByWithRelationInput[] {
  const column = { start_date: "startsAt", end_date: "endsAt", date: "postDate", modified: "modifiedAt", id: "id", title: "id" }[orderBy];
  return column === "id" ? [{ id: direction }] : [{ [column]: direction }, { id: direction }];
}
