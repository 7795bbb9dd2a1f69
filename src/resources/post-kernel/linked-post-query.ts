import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Language } from "../../i18n/languages";
import type { StatusCondition } from "../../auth/post-permissions";

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
}

/** Event statuses that do not count for `has_events`. */
const NOT_COUNTED = ["draft", "pending", "trash"];

export type LinkedPostWhere = Prisma.VenueWhereInput & Prisma.OrganizerWhereInput;

export function linkedPostWhere(filters: LinkedPostFilters): LinkedPostWhere {
  const conditions: LinkedPostWhere[] = [{ OR: filters.visible }];
  if (filters.searchWords.length > 0) {
    conditions.push({ texts: { some: { language: filters.language, AND: filters.searchWords.map((word) => ({ searchText: { contains: word } })) } } });
  }
  if (filters.eventId !== undefined) conditions.push({ events: { some: { eventId: filters.eventId } } });
  if (filters.hasEvents) {
    const counted = { event: { status: { notIn: NOT_COUNTED }, OR: filters.hasEvents.visible } };
    conditions.push({ events: filters.hasEvents.value ? { some: counted } : { none: counted } });
  }
  if (filters.upcoming) {
    conditions.push({ events: { some: { event: { startsAt: { gte: filters.upcoming.since }, OR: filters.upcoming.visible } } } });
  }
  return { AND: conditions };
}

/** Newest first, as WordPress lists posts; ties by id. */
export const LINKED_POST_ORDER = [{ postDate: "desc" as const }, { id: "desc" as const }];
